//! Dispatcher routing, for models without function calling.

use pretty_assertions::assert_eq;
use riverse_agent::ToolMode;
use riverse_test_support::Project;
use riverse_test_support::openai::{OpenAiServer, ev_text};
use serde_json::json;

use super::support::{agent, event_outline, turn};

fn weather_project() -> Project {
    let project = Project::new();
    project.fixture("weather.py");
    project
}

#[tokio::test]
async fn the_dispatcher_picks_a_tool_and_the_answer_reads_its_result() {
    let project = weather_project();
    let server = OpenAiServer::start([
        ev_text(
            "Sure:\n```json\n[{\"tool\": \"weather\", \"params\": {\"city\": \"Tokyo\"}}]\n```",
        ),
        ev_text("Tokyo is sunny, 21°C."),
    ]);
    let agent = agent(&project, &server, "agent: {tool_mode: dispatcher}").await;
    assert_eq!(agent.routing(), ToolMode::Dispatcher);
    let (turn, events) = turn(&agent, &[], "What's the weather in Tokyo?").await;
    assert_eq!(turn.answer, "Tokyo is sunny, 21°C.");
    assert_eq!(turn.tool_calls.len(), 1);
    assert_eq!(json!(turn.tool_calls[0].params), json!({"city": "Tokyo"}));
    assert_eq!(
        event_outline(&events),
        vec![
            "started weather",
            "finished weather true",
            "text Tokyo is sunny, 21°C.",
            "done Tokyo is sunny, 21°C."
        ]
    );

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let routing = &requests[0];
    assert_eq!(routing.body["temperature"], json!(0.0));
    assert_eq!(routing.body["stream"], json!(false));
    assert!(routing.body.get("tools").is_none());
    let prompt = &routing.roles_and_contents()[0].1;
    assert!(
        prompt.contains("- weather: Get the current weather of a city\n"),
        "{prompt}"
    );
    assert!(
        prompt.contains("city (string): City name, e.g. Tokyo, London"),
        "{prompt}"
    );
    assert!(
        prompt.contains("\"What's the weather in Tokyo?\", \"Is it raining in London?\""),
        "{prompt}"
    );
    assert!(prompt.contains("NONE"), "{prompt}");

    let answer = &requests[1];
    assert!(answer.is_stream());
    assert!(answer.body.get("tools").is_none());
    let messages = answer.roles_and_contents();
    assert_eq!(
        messages[1],
        ("user".into(), "What's the weather in Tokyo?".into())
    );
    assert_eq!(messages[2].0, "system");
    assert!(
        messages[2]
            .1
            .contains("[weather {\"city\":\"Tokyo\"}]\nTokyo: 21°C, sunny"),
        "{messages:?}"
    );
}

#[tokio::test]
async fn none_goes_straight_to_the_answer() {
    let project = weather_project();
    let server = OpenAiServer::start([ev_text("NONE"), ev_text("Hello!")]);
    let agent = agent(&project, &server, "agent: {tool_mode: dispatcher}").await;
    let (turn, _) = turn(&agent, &[], "hi").await;
    assert_eq!(turn.answer, "Hello!");
    assert!(turn.tool_calls.is_empty());
    assert_eq!(
        server.requests()[1].roles_and_contents().len(),
        2,
        "system prompt and the message, no results"
    );
}

#[tokio::test]
async fn replies_that_are_not_calls_of_registered_tools_run_nothing() {
    for reply in [
        "I think the user wants the weather.",
        r#"[{"tool": "delete_everything", "params": {}}]"#,
        r#"[{"tool": "weather", "params": "Tokyo"}]"#,
    ] {
        let project = weather_project();
        let server = OpenAiServer::start([ev_text(reply), ev_text("answer")]);
        let agent = agent(&project, &server, "agent: {tool_mode: dispatcher}").await;
        let (turn, events) = turn(&agent, &[], "weather?").await;
        assert!(turn.tool_calls.is_empty(), "{reply}");
        assert_eq!(
            event_outline(&events),
            vec!["text answer", "done answer"],
            "{reply}"
        );
        assert_eq!(server.requests().len(), 2);
    }
}

#[tokio::test]
async fn the_dispatcher_prompt_follows_the_language() {
    let project = weather_project();
    let server = OpenAiServer::start([ev_text("NONE"), ev_text("你好")]);
    let agent = agent(
        &project,
        &server,
        "language: zh\nagent: {tool_mode: dispatcher}",
    )
    .await;
    turn(&agent, &[], "你好").await;
    let requests = server.requests();
    let routing_prompt = &requests[0].roles_and_contents()[0].1;
    assert!(
        routing_prompt.starts_with("请判断应调用哪些工具"),
        "{routing_prompt}"
    );
    assert!(
        routing_prompt.contains("- weather: Get the current weather of a city"),
        "{routing_prompt}"
    );
    assert!(
        requests[1].roles_and_contents()[0]
            .1
            .starts_with("你是 Riverse")
    );
}

#[tokio::test]
async fn the_dispatcher_limits_calls_too() {
    let project = weather_project();
    let calls: Vec<serde_json::Value> = ["A", "B", "C"]
        .iter()
        .map(|city| json!({"tool": "weather", "params": {"city": city}}))
        .collect();
    let server = OpenAiServer::start([
        ev_text(&serde_json::to_string(&calls).unwrap()),
        ev_text("ok"),
    ]);
    let agent = agent(
        &project,
        &server,
        "agent: {tool_mode: dispatcher, max_tool_calls: 2}",
    )
    .await;
    let (turn, _) = turn(&agent, &[], "three cities").await;
    assert_eq!(turn.tool_calls.len(), 2);
    let results = &server.requests()[1].roles_and_contents()[2].1;
    assert!(
        results.contains("not run: the limit of 2 tool calls"),
        "{results}"
    );
}
