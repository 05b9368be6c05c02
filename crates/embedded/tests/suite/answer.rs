//! Answers: by default the results laid out and fixed replies; generated
//! ones, when asked for, checked and grounded in the tool results. (Which
//! answer each turn gets is the answer policy's, unit-tested without the
//! model in `src/answer`.)

use riverse_llm::{Message, ToolCall};

use super::model;

fn oslo_weather() -> [Message; 3] {
    [
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
    ]
}

#[test]
fn by_default_the_results_are_the_answer_and_small_talk_a_fixed_reply() {
    let mut pieces = Vec::new();
    let answer = model()
        .answer(&oslo_weather(), &[], &mut |piece| {
            pieces.push(piece.to_owned());
        })
        .unwrap();
    assert_eq!(answer, "Oslo: 🌦 +7°C, wind 13 km/h");
    assert_eq!(pieces.concat(), answer);
    let reply = model()
        .answer(&[Message::User("Good morning!".into())], &[], &mut |_| {})
        .unwrap();
    assert_eq!(reply, "Hello! How can I help you?");
}

#[test]
fn a_generated_reply_is_checked_before_it_is_given() {
    let model = model().clone().with_generated_replies(true);
    let mut pieces = Vec::new();
    let reply = model
        .answer(
            &[Message::User("Say hello in one short sentence.".into())],
            &[],
            &mut |piece| pieces.push(piece.to_owned()),
        )
        .unwrap();
    assert!(!reply.is_empty());
    assert_eq!(pieces.concat(), reply, "given whole, once checked");
    assert!(!reply.to_lowercase().contains("sorry"), "{reply}");
}

#[test]
fn a_generated_answer_states_only_numbers_from_the_results() {
    let model = model().clone().with_generated_replies(true);
    let answer = model.answer(&oslo_weather(), &[], &mut |_| {}).unwrap();
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
