//! Answers: streamed, short, and grounded in tool results. (Which answers
//! are the results as they are, a failed call's among them, is the answer
//! policy's, unit-tested without the model in `src/answer`.)

use riverse_llm::{Message, ToolCall};

use super::model;

#[test]
fn an_answer_streams_pieces_that_make_up_the_whole() {
    let mut pieces = Vec::new();
    let answer = model()
        .answer(
            &[Message::User("Say hello in one short sentence.".into())],
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
        Message::User("What's the weather in Oslo?".into()),
        Message::Assistant {
            content: String::new(),
            tool_calls: vec![ToolCall {
                id: "call_1".into(),
                name: "weather".into(),
                arguments: r#"{"city": "Oslo"}"#.into(),
            }],
        },
        Message::Tool {
            call_id: "call_1".into(),
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
