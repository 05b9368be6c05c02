//! Answers: streamed, short, and grounded in tool results.

use riverse_embedded::ChatMessage;

use super::model;

#[test]
fn an_answer_streams_pieces_that_make_up_the_whole() {
    let mut pieces = Vec::new();
    let answer = model()
        .answer(
            &[ChatMessage::user("Say hello in one short sentence.")],
            &mut |piece| pieces.push(piece.to_owned()),
        )
        .unwrap();
    assert!(!answer.is_empty());
    assert!(pieces.len() > 1, "{pieces:?}");
    assert_eq!(pieces.concat().trim(), answer);
}

#[test]
fn a_grounded_answer_states_only_numbers_from_the_results() {
    let conversation = [
        ChatMessage::user("What's the weather in Oslo?"),
        ChatMessage::ToolResult {
            tool: "weather".into(),
            content: "Oslo: 🌦 +7°C, wind 13 km/h".into(),
            failed: false,
        },
    ];
    let answer = model().answer(&conversation, &mut |_| {}).unwrap();
    let numbers: Vec<String> = answer
        .split(|c: char| !c.is_ascii_digit())
        .filter(|run| !run.is_empty())
        .map(str::to_owned)
        .collect();
    for number in &numbers {
        assert!(
            ["7", "13"].contains(&number.as_str()),
            "{answer:?} invents {number}"
        );
    }
    assert!(
        numbers.iter().any(|n| n == "7"),
        "{answer:?} leaves out the temperature"
    );
}

#[test]
fn a_failed_tool_is_explained_rather_than_answered_from_memory() {
    let conversation = [
        ChatMessage::user("What time is it in Atlantis?"),
        ChatMessage::ToolResult {
            tool: "clock".into(),
            content: "tool clock failed: unknown time zone 'Atlantis' (port 443)".into(),
            failed: true,
        },
    ];
    let answer = model().answer(&conversation, &mut |_| {}).unwrap();
    assert!(
        answer.contains("unknown time zone 'Atlantis'"),
        "{answer:?}"
    );
    assert!(
        !answer.contains("Atlantis is") && answer.matches("443").count() == 1,
        "nothing is made up around the error: {answer:?}"
    );
}
