//! A caller's own tools in a turn: shown beside the agent's, their calls
//! handed back, the turn going on from their results; under both routings.

use pretty_assertions::assert_eq;
use riverse_agent::{ToolUse, Turn, TurnEvent};
use riverse_llm::{Message, ToolChoice};
use riverse_test_support::Project;
use riverse_test_support::openai::{OpenAiServer, ev_text, ev_tool_calls};
use riverse_tool::ToolManifest;
use serde_json::json;

use super::support::agent;

fn weather_project() -> Project {
    let project = Project::new();
    project.fixture("weather.py");
    project
}

fn packing_list() -> ToolUse {
    ToolUse {
        client_tools: vec![ToolManifest {
            name: "packing_list".into(),
            description: "Lists what to pack for a trip".into(),
            parameters: [("city".to_owned(), "Where to".to_owned())]
                .into_iter()
                .collect(),
            ..ToolManifest::default()
        }],
        ..ToolUse::default()
    }
}

async fn turn_with(
    agent: &riverse_agent::Agent,
    history: &[Message],
    message: Option<&str>,
    tool_use: &ToolUse,
) -> Turn {
    let mut on_event = |_: TurnEvent| {};
    agent
        .turn_with(history, message, tool_use, &mut on_event)
        .await
        .unwrap()
}

/// `turn`'s messages, then a result for each of its client calls.
fn answered(history: &[Message], turn: &Turn, result: &str) -> Vec<Message> {
    let mut messages = history.to_vec();
    messages.extend(turn.messages.iter().cloned());
    for call in &turn.client_calls {
        messages.push(Message::Tool {
            call_id: call.id.clone(),
            content: result.into(),
            failed: false,
        });
    }
    messages
}

#[tokio::test]
async fn the_dispatcher_hands_back_a_client_call_and_answers_from_both_results() {
    let project = weather_project();
    let server = OpenAiServer::start([
        ev_text(
            "[{\"tool\": \"weather\", \"params\": {\"city\": \"Tokyo\"}}, \
             {\"tool\": \"packing_list\", \"params\": {\"city\": \"Tokyo\"}}]",
        ),
        ev_text("Sunny; pack light."),
    ]);
    let agent = agent(&project, &server, "agent: {tool_mode: dispatcher}").await;
    let tool_use = packing_list();
    let turn = turn_with(&agent, &[], Some("Packing for Tokyo?"), &tool_use).await;
    assert_eq!(turn.tool_calls.len(), 1);
    assert_eq!(turn.tool_calls[0].tool, "weather");
    assert_eq!(turn.client_calls.len(), 1);
    assert_eq!(turn.client_calls[0].name, "packing_list");
    assert_eq!(turn.client_calls[0].arguments, "{\"city\":\"Tokyo\"}");
    // The routing prompt listed the client's tool.
    let routing = &server.requests()[0].roles_and_contents()[0].1;
    assert!(
        routing.contains("- packing_list: Lists what to pack"),
        "{routing}"
    );

    let history = answered(&[], &turn, "t-shirts");
    let turn = turn_with(&agent, &history, None, &tool_use).await;
    assert_eq!(turn.answer, "Sunny; pack light.");
    assert!(turn.client_calls.is_empty());
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "the choice is not made again");
    let notes: Vec<String> = requests[1]
        .roles_and_contents()
        .into_iter()
        .filter(|(role, _)| role == "system")
        .map(|(_, text)| text)
        .collect();
    let notes = notes.join("\n");
    assert!(notes.contains("Tokyo: 21°C, sunny"), "{notes}");
    assert!(
        notes.contains("[packing_list {\"city\":\"Tokyo\"}]\nt-shirts"),
        "{notes}"
    );
    assert!(requests[1].tool_results().is_empty());
}

#[tokio::test]
async fn a_choice_of_none_shows_no_tools_and_one_call_a_round_keeps_the_first() {
    let project = weather_project();
    let server = OpenAiServer::start([
        ev_text("Hello."),
        ev_tool_calls(&[
            ("m1", "packing_list", json!({"city": "Oslo"})),
            ("m2", "weather", json!({"city": "Oslo"})),
        ]),
    ]);
    let agent = agent(&project, &server, "").await;
    let none = ToolUse {
        choice: ToolChoice::None,
        ..packing_list()
    };
    let turn = turn_with(&agent, &[], Some("hi"), &none).await;
    assert_eq!(turn.answer, "Hello.");
    assert!(server.take_requests()[0].body.get("tools").is_none());

    let one_a_round = ToolUse {
        parallel: false,
        ..packing_list()
    };
    let turn = turn_with(&agent, &[], Some("Oslo?"), &one_a_round).await;
    assert!(turn.tool_calls.is_empty(), "weather was not kept");
    assert_eq!(turn.client_calls.len(), 1);
    let Some(Message::Assistant { tool_calls, .. }) = turn.messages.last() else {
        panic!("{:?}", turn.messages);
    };
    assert_eq!(tool_calls, &turn.client_calls);
}
