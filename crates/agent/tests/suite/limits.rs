//! `agent.max_rounds` and `agent.max_tool_calls`.

use pretty_assertions::assert_eq;
use riverse_test_support::openai::{OpenAiServer, ev_text, ev_tool_call, ev_tool_calls};
use riverse_test_support::{Project, simple_tool};
use serde_json::json;

use super::support::{agent, turn};

fn echo_project() -> Project {
    let project = Project::new();
    project.tool(
        "echo.py",
        &simple_tool("echo", "return ToolResult(success=True, data='echoed')"),
    );
    project
}

#[tokio::test]
async fn a_model_that_never_stops_calling_tools_is_asked_for_an_answer_without_tools() {
    let project = echo_project();
    // A call in every reply while tools are on offer; past the rounds, the
    // request without tools gets text. The fallback would keep calling.
    let server = OpenAiServer::start([
        ev_tool_call("r1", "echo", json!({})),
        ev_tool_call("r2", "echo", json!({})),
        ev_tool_call("r3", "echo", json!({})),
        ev_text("Here is what I found."),
    ])
    .fallback(ev_tool_call("again", "echo", json!({})));
    let agent = agent(&project, &server, "agent: {max_rounds: 3}").await;
    let (turn, _) = turn(&agent, &[], "loop forever").await;

    let requests = server.requests();
    assert_eq!(requests.len(), 4, "three rounds and one final request");
    for request in &requests[..3] {
        assert_eq!(request.tool_names(), vec!["echo"]);
    }
    assert!(
        requests[3].tool_names().is_empty(),
        "the final request offers no tools"
    );
    let last = requests[3].roles_and_contents().last().unwrap().clone();
    assert_eq!(last.0, "system");
    assert!(last.1.contains("limit"), "{last:?}");
    assert_eq!(turn.answer, "Here is what I found.");
    assert_eq!(turn.tool_calls.len(), 3);
    // The note was for the final request only.
    assert!(
        !turn
            .messages
            .iter()
            .any(|m| matches!(m, riverse_llm::Message::System(_)))
    );
}

#[tokio::test]
async fn calls_past_max_tool_calls_do_not_run_and_say_why() {
    let project = echo_project();
    let server = OpenAiServer::start([
        ev_tool_calls(&[
            ("a", "echo", json!({"n": 1})),
            ("b", "echo", json!({"n": 2})),
            ("c", "echo", json!({"n": 3})),
        ]),
        ev_text("Two of three."),
    ]);
    let agent = agent(&project, &server, "agent: {max_tool_calls: 2}").await;
    let (turn, _) = turn(&agent, &[], "three please").await;
    assert_eq!(turn.tool_calls.len(), 2);
    assert_eq!(turn.answer, "Two of three.");
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[1].tool_results(),
        vec![
            ("a".into(), "echoed".into()),
            ("b".into(), "echoed".into()),
            (
                "c".into(),
                "not run: the limit of 2 tool calls for one message was reached".into()
            ),
        ]
    );
    assert!(
        requests[1].tool_names().is_empty(),
        "with no calls left, tools are not offered again"
    );
}

#[tokio::test]
async fn limits_of_zero_offer_no_tools_and_add_no_note() {
    let project = echo_project();
    let server = OpenAiServer::start([ev_text("plain answer")]);
    let agent = agent(&project, &server, "agent: {max_tool_calls: 0}").await;
    let (turn, _) = turn(&agent, &[], "hi").await;
    assert_eq!(turn.answer, "plain answer");
    let request = server.single_request();
    assert!(request.tool_names().is_empty());
    let roles: Vec<String> = request
        .roles_and_contents()
        .into_iter()
        .map(|(r, _)| r)
        .collect();
    assert_eq!(roles, ["system", "user"]);
}
