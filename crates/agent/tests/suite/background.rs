//! Background calls in a turn (issue 45): a call that ends within its
//! tool's `background.after` is an ordinary call; one still running then
//! becomes a task the turn reports, and a follow-up turn answers from it.

use pretty_assertions::assert_eq;
use riverse_agent::TurnEvent;
use riverse_test_support::Project;
use riverse_test_support::openai::{OpenAiServer, ev_text, ev_tool_call, ev_tool_calls};
use serde_json::{Value, json};

use super::support::{agent, event_outline, turn};

/// Sleeps `seconds` before it answers.
const NAP: &str = r#"import time
from agent.tools import BaseTool, ToolManifest, ToolResult

class Nap(BaseTool):
    def __init__(self, config):
        self.config = config
    def manifest(self):
        return ToolManifest(name="nap", description="Take a nap", parameters={"seconds": "how long"})
    def execute(self, params):
        time.sleep(float(params["seconds"]))
        return ToolResult(success=True, data=f"slept {params['seconds']}s")
"#;

#[tokio::test]
async fn a_call_that_ends_within_after_is_an_ordinary_call() {
    let project = Project::new();
    project.tool("nap.py", NAP);
    let server = OpenAiServer::start([
        ev_tool_call("c1", "nap", json!({"seconds": 0})),
        ev_text("Rested."),
    ]);
    let agent = agent(&project, &server, "tools: {nap: {background: {after: 30}}}").await;
    let (turn, events) = turn(&agent, &[], "Nap").await;
    assert_eq!(turn.answer, "Rested.");
    assert_eq!(
        event_outline(&events),
        [
            "started nap",
            "finished nap true",
            "text Rested.",
            "done Rested."
        ]
    );
    assert_eq!(turn.tool_calls[0].data, "slept 0s");
}

#[tokio::test]
async fn after_zero_makes_a_task_at_once_and_the_follow_up_answers_from_it() {
    let project = Project::new();
    project.tool("nap.py", NAP);
    let server = OpenAiServer::start([
        ev_tool_call("c1", "nap", json!({"seconds": 1})),
        ev_text("Napping."),
        ev_text("Woke up after a second."),
    ]);
    let agent = agent(&project, &server, "tools: {nap: {background: {after: 0}}}").await;
    let (turn, events) = turn(&agent, &[], "Nap").await;
    assert_eq!(turn.answer, "Napping.");
    let task = events
        .iter()
        .find_map(|event| match event {
            TurnEvent::TaskStarted(task) => Some(task.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!((task.tool(), task.call_id()), ("nap", "c1"));
    assert!(task.id().starts_with("task_"), "{task:?}");
    assert!(
        turn.tool_calls[0].data.contains(task.id()),
        "{:?}",
        turn.tool_calls[0]
    );
    let end = task.ended().await;
    assert!(!end.cancelled);
    assert_eq!(end.result.data, "slept 1s");
    let mut ignore = |_| {};
    let follow = agent
        .follow_up(
            &turn.messages,
            task.id(),
            task.tool(),
            task.params(),
            &end.result,
            &mut ignore,
        )
        .await
        .unwrap();
    assert_eq!(follow.answer, "Woke up after a second.");
    // The follow-up's messages begin with the task's exchange.
    assert_eq!(follow.messages.len(), 3);
    assert_eq!(
        server.requests()[2].tool_results().last().unwrap(),
        &(task.id().to_owned(), "slept 1s".to_owned())
    );
}

#[tokio::test]
async fn a_cancelled_task_ends_cancelled() {
    let project = Project::new();
    project.tool("nap.py", NAP);
    let server = OpenAiServer::start([
        ev_tool_call("c1", "nap", json!({"seconds": 300})),
        ev_text("Napping."),
    ]);
    let agent = agent(
        &project,
        &server,
        "tools: {nap: {timeout: 600, background: {after: 0}}}",
    )
    .await;
    let (_, events) = turn(&agent, &[], "Nap").await;
    let Some(TurnEvent::TaskStarted(task)) = events
        .into_iter()
        .find(|event| matches!(event, TurnEvent::TaskStarted(_)))
    else {
        panic!("no task")
    };
    task.cancel();
    let end = task.ended().await;
    assert!(end.cancelled);
    assert_eq!(end.result.error, riverse_agent::CANCELLED);
    assert!(task.is_finished());
}

/// Twenty calls of one round become twenty tasks, each ending with its own
/// result, however few workers run them.
#[tokio::test]
async fn twenty_calls_become_twenty_tasks_that_each_end() {
    let project = Project::new();
    project.tool("nap.py", NAP);
    let calls: Vec<(String, Value)> = (0..20)
        .map(|n| (format!("c{n}"), json!({"seconds": format!("0.{n:02}")})))
        .collect();
    let asked: Vec<(&str, &str, Value)> = calls
        .iter()
        .map(|(id, params)| (id.as_str(), "nap", params.clone()))
        .collect();
    let server = OpenAiServer::start([ev_tool_calls(&asked), ev_text("Twenty naps.")]);
    let agent = agent(
        &project,
        &server,
        "agent: {max_tool_calls: 20}\npython: {workers: 4}\ntools: {nap: {timeout: 120, background: {after: 0}}}",
    )
    .await;
    let (turn, events) = turn(&agent, &[], "Nap twenty times").await;
    assert_eq!(turn.answer, "Twenty naps.");
    let tasks: Vec<_> = events
        .iter()
        .filter_map(|event| match event {
            TurnEvent::TaskStarted(task) => Some(task.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(tasks.len(), 20);
    for task in &tasks {
        let end = task.ended().await;
        let seconds = task.params()["seconds"].as_str().unwrap();
        assert_eq!(end.result.data, format!("slept {seconds}s"), "{task:?}");
    }
}
