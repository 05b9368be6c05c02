//! Native function calling, end to end.

use pretty_assertions::assert_eq;
use riverse_agent::ToolMode;
use riverse_llm::Message;
use riverse_test_support::openai::{
    OpenAiServer, ev_raw_tool_call, ev_status, ev_text, ev_tool_call, ev_tool_calls,
};
use riverse_test_support::{Project, simple_tool};
use serde_json::json;

use super::support::{agent, event_outline, turn};

#[tokio::test]
async fn a_python_tool_runs_and_its_result_reaches_the_answer() {
    let project = Project::new();
    project.fixture("weather.py");
    let server = OpenAiServer::start([
        ev_tool_call("call_1", "weather", json!({"city": "Tokyo"})),
        ev_text("It is 21°C and sunny in Tokyo."),
    ]);
    let agent = agent(&project, &server, "").await;
    assert_eq!(agent.routing(), ToolMode::Native);
    let (turn, events) = turn(&agent, &[], "What's the weather in Tokyo?").await;

    assert_eq!(turn.answer, "It is 21°C and sunny in Tokyo.");
    assert_eq!(
        serde_json::to_value(&turn.tool_calls).unwrap()[0]
            .as_object()
            .unwrap()
            .iter()
            .filter(|(key, _)| *key != "duration_ms")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect::<serde_json::Map<_, _>>(),
        json!({"call_id": "call_1", "tool": "weather", "params": {"city": "Tokyo"}, "success": true, "data": "Tokyo: 21°C, sunny", "error": ""})
            .as_object()
            .unwrap()
            .clone()
    );
    assert_eq!(
        event_outline(&events),
        vec![
            "started weather",
            "finished weather true",
            "text It is 21°C and sunny in Tokyo.",
            "done It is 21°C and sunny in Tokyo.",
        ]
    );

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].tool_names(), vec!["weather"]);
    assert_eq!(
        requests[0].body["tools"][0]["function"]["description"],
        json!(
            "Get the current weather of a city\n\nExamples:\n- What's the weather in Tokyo?\n- Is it raining in London?"
        )
    );
    assert_eq!(
        requests[0].roles_and_contents()[1],
        ("user".into(), "What's the weather in Tokyo?".into())
    );
    assert_eq!(
        requests[1].tool_results(),
        vec![("call_1".into(), "Tokyo: 21°C, sunny".into())]
    );
}

#[tokio::test]
async fn unavailable_and_disabled_tools_are_not_offered() {
    let project = Project::new();
    project.fixture("weather.py");
    project.tool(
        "clock.py",
        &simple_tool("clock", "return ToolResult(success=True, data='noon')"),
    );
    project.tool(
        "shy.py",
        &format!(
            "{}\n    def is_available(self):\n        return False\n",
            simple_tool("shy", "return ToolResult(True, 'x')")
        ),
    );
    let server = OpenAiServer::start([ev_text("hi")]);
    let agent = agent(&project, &server, "tools: {clock: {enabled: false}}").await;
    turn(&agent, &[], "hello").await;
    assert_eq!(server.single_request().tool_names(), vec!["weather"]);
}

#[tokio::test]
async fn the_calls_of_one_round_run_at_the_same_time() {
    let project = Project::new();
    let log = project.path().join("spans.txt");
    project.tool(
        "sleeper.py",
        &format!(
            r#"
import time
from agent.tools import BaseTool, ToolManifest, ToolResult

class Sleeper(BaseTool):
    def __init__(self, config):
        pass
    def manifest(self):
        return ToolManifest(name="sleeper", description="sleeps one second", parameters={{"n": "which"}})
    def execute(self, params):
        start = time.time()
        time.sleep(1)
        with open({log:?}, "a") as f:
            f.write(f"{{start}} {{time.time()}}\n")
        return ToolResult(success=True, data="slept " + params["n"])
"#
        ),
    );
    let server = OpenAiServer::start([
        ev_tool_calls(&[
            ("a", "sleeper", json!({"n": "1"})),
            ("b", "sleeper", json!({"n": "2"})),
            ("c", "sleeper", json!({"n": "3"})),
        ]),
        ev_text("done"),
    ]);
    let agent = agent(&project, &server, "python: {workers: 3}").await;
    let (turn, _) = turn(&agent, &[], "sleep three times").await;
    assert_eq!(turn.tool_calls.iter().filter(|c| c.succeeded()).count(), 3);

    let spans: Vec<(f64, f64)> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|line| {
            let (start, end) = line.split_once(' ').unwrap();
            (start.parse().unwrap(), end.parse().unwrap())
        })
        .collect();
    assert_eq!(spans.len(), 3);
    let last_start = spans.iter().map(|s| s.0).fold(f64::MIN, f64::max);
    let first_end = spans.iter().map(|s| s.1).fold(f64::MAX, f64::min);
    let first_start = spans.iter().map(|s| s.0).fold(f64::MAX, f64::min);
    let last_end = spans.iter().map(|s| s.1).fold(f64::MIN, f64::max);
    assert!(
        last_start < first_end,
        "the three sleeps never ran at once: {spans:?}"
    );
    // One after another they would take at least three seconds.
    assert!(
        last_end - first_start < 2.5,
        "the three sleeps took {}s",
        last_end - first_start
    );
    assert_eq!(
        server.requests()[1].tool_results(),
        vec![
            ("a".into(), "slept 1".into()),
            ("b".into(), "slept 2".into()),
            ("c".into(), "slept 3".into())
        ]
    );
}

#[tokio::test]
async fn failing_crashing_unknown_and_malformed_calls_reach_the_model_as_errors() {
    let project = Project::new();
    project.fixture("weather.py");
    project.tool(
        "failing.py",
        &simple_tool(
            "failing",
            "return ToolResult(success=False, data='', error='no such city')",
        ),
    );
    project.tool(
        "crashing.py",
        &simple_tool("crashing", "import os\nos._exit(3)"),
    );
    project.tool(
        "raising.py",
        &simple_tool("raising", "raise ValueError('bad input')"),
    );
    let server = OpenAiServer::start([
        ev_tool_calls(&[
            ("c1", "failing", json!({})),
            ("c2", "crashing", json!({})),
            ("c3", "raising", json!({})),
            ("c4", "nope", json!({"x": 1})),
        ]),
        ev_raw_tool_call("c5", "weather", "{city: Tokyo"),
        ev_tool_call("c6", "weather", json!({"city": "Oslo"})),
        ev_text("Some tools failed."),
    ]);
    let agent = agent(&project, &server, "").await;
    let (turn, _) = turn(&agent, &[], "try everything").await;
    assert_eq!(turn.answer, "Some tools failed.");

    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    let results = requests[1].tool_results();
    assert_eq!(
        results[0],
        ("c1".into(), "tool failing failed: no such city".into())
    );
    assert!(
        results[1]
            .1
            .starts_with("tool crashing failed: tool \"crashing\" crashed: "),
        "{results:?}"
    );
    assert!(
        results[2].1.starts_with("tool raising failed: ") && results[2].1.contains("bad input"),
        "{results:?}"
    );
    assert_eq!(
        results[3].1,
        "tool nope failed: tool \"nope\" was not offered in this round: \
         it is not among the tools shown (crashing, failing, raising, weather)"
    );
    let malformed = requests[2].tool_results().last().unwrap().clone();
    assert_eq!(malformed.0, "c5");
    assert!(
        malformed
            .1
            .starts_with("tool weather failed: the arguments are not valid JSON"),
        "{malformed:?}"
    );
    assert!(malformed.1.ends_with("{city: Tokyo"), "{malformed:?}");
    // The crash took one worker down; the next call still runs.
    assert_eq!(
        requests[3].tool_results().last().unwrap(),
        &("c6".into(), "Oslo: 21°C, sunny".into())
    );

    let outcomes: Vec<(String, bool)> = turn
        .tool_calls
        .iter()
        .map(|c| (c.tool.clone(), c.succeeded()))
        .collect();
    assert_eq!(
        outcomes,
        [
            ("failing", false),
            ("crashing", false),
            ("raising", false),
            ("nope", false),
            ("weather", false),
            ("weather", true)
        ]
        .map(|(t, s)| (t.to_owned(), s))
        .to_vec()
    );
    assert_eq!(json!(turn.tool_calls[4].params), json!("{city: Tokyo"));
    // The conversation marks each result as failed or not, for providers
    // (the embedded model) that answer failures differently.
    let failed: Vec<(&str, bool)> = turn
        .messages
        .iter()
        .filter_map(|message| match message {
            Message::Tool {
                call_id, failed, ..
            } => Some((call_id.as_str(), *failed)),
            _ => None,
        })
        .collect();
    assert_eq!(
        failed,
        [
            ("c1", true),
            ("c2", true),
            ("c3", true),
            ("c4", true),
            ("c5", true),
            ("c6", false)
        ]
    );
}

#[tokio::test]
async fn identical_calls_in_one_round_run_once() {
    let project = Project::new();
    let log = project.path().join("runs.txt");
    project.tool(
        "count.py",
        &simple_tool("count", &format!("open({log:?}, 'a').write('run\\n')\nreturn ToolResult(success=True, data='counted')")),
    );
    let server = OpenAiServer::start([
        ev_tool_calls(&[
            ("c1", "count", json!({"k": "a", "n": 1})),
            ("c2", "count", json!({"n": 1, "k": "a"})),
            ("c3", "count", json!({"k": "b"})),
        ]),
        ev_text("ok"),
    ]);
    let agent = agent(&project, &server, "").await;
    let (turn, _) = turn(&agent, &[], "count").await;
    assert_eq!(std::fs::read_to_string(&log).unwrap().lines().count(), 2);
    assert_eq!(turn.tool_calls.len(), 2);
    assert_eq!(
        server.requests()[1].tool_results(),
        vec![
            ("c1".into(), "counted".into()),
            ("c2".into(), "counted".into()),
            ("c3".into(), "counted".into())
        ]
    );
}

#[tokio::test]
async fn the_conversation_so_far_is_carried_into_the_next_turn() {
    let project = Project::new();
    project.fixture("weather.py");
    let server = OpenAiServer::start([
        ev_tool_call("c1", "weather", json!({"city": "Tokyo"})),
        ev_text("Sunny in Tokyo."),
        ev_text("You asked about Tokyo."),
    ]);
    let agent = agent(&project, &server, "").await;
    let (first, _) = turn(&agent, &[], "Weather in Tokyo?").await;
    let mut history: Vec<Message> = first.messages.clone();
    let (second, _) = turn(&agent, &history, "Which city did I ask about?").await;
    history.extend(second.messages);
    assert_eq!(second.answer, "You asked about Tokyo.");

    let third = &server.requests()[2];
    let roles: Vec<(String, String)> = third.roles_and_contents();
    assert_eq!(roles[0].0, "system");
    assert_eq!(
        roles[1..].to_vec(),
        [
            ("user", "Weather in Tokyo?"),
            ("assistant", ""),
            ("tool", "Tokyo: 21°C, sunny"),
            ("assistant", "Sunny in Tokyo."),
            ("user", "Which city did I ask about?"),
        ]
        .map(|(r, c)| (r.to_owned(), c.to_owned()))
        .to_vec()
    );
    assert_eq!(history.len(), 6);
}

#[tokio::test]
async fn japanese_settings_give_japanese_prompts_and_error_wording() {
    let project = Project::new();
    project.tool(
        "failing.py",
        &simple_tool(
            "failing",
            "return ToolResult(success=False, data='', error='都市が見つかりません')",
        ),
    );
    let server = OpenAiServer::start([
        ev_tool_call("c1", "failing", json!({})),
        ev_text("申し訳ありません、天気を取得できませんでした。").split_bytes(5),
    ]);
    let agent = agent(&project, &server, "language: ja").await;
    let (turn, events) = turn(&agent, &[], "東京の天気は？").await;
    assert_eq!(
        turn.answer,
        "申し訳ありません、天気を取得できませんでした。"
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, riverse_agent::TurnEvent::AnswerDelta(_)))
    );
    let requests = server.requests();
    let first = requests[0].roles_and_contents();
    assert!(first[0].1.starts_with("あなたは Riverse"), "{first:?}");
    assert_eq!(first[1], ("user".into(), "東京の天気は？".into()));
    assert_eq!(
        requests[1].tool_results(),
        vec![(
            "c1".into(),
            "ツール failing は失敗しました: 都市が見つかりません".into()
        )]
    );
}

#[tokio::test]
async fn auto_mode_falls_back_to_the_dispatcher_when_the_model_refuses_tools() {
    let project = Project::new();
    project.fixture("weather.py");
    let server = OpenAiServer::start([
        ev_status(
            400,
            "registry.ollama.ai/library/gemma:2b does not support tools",
        ),
        ev_text(r#"[{"tool": "weather", "params": {"city": "Tokyo"}}]"#),
        ev_text("Sunny."),
        ev_text("NONE"),
        ev_text("Hello."),
    ]);
    let agent = agent(&project, &server, "").await;
    let (first, _) = turn(&agent, &[], "weather in Tokyo?").await;
    assert_eq!(first.answer, "Sunny.");
    assert_eq!(first.tool_calls[0].data, "Tokyo: 21°C, sunny");
    assert_eq!(agent.routing(), ToolMode::Dispatcher);
    let (second, _) = turn(&agent, &[], "hi").await;
    assert_eq!(second.answer, "Hello.");
    let requests = server.requests();
    assert_eq!(requests.len(), 5);
    assert!(requests[1].tool_names().is_empty() && requests[3].tool_names().is_empty());
    assert_eq!(requests[1].body["temperature"], json!(0.0));
}

#[tokio::test]
async fn an_llm_that_cannot_be_reached_fails_the_turn_with_its_error() {
    let project = Project::new();
    let server = OpenAiServer::start([ev_status(401, "bad key")]);
    let agent = agent(&project, &server, "").await;
    let mut on_event = |_| {};
    let err = agent
        .turn(&[], "hi", &mut on_event)
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("401 Unauthorized: bad key"), "{err}");
}
