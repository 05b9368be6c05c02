//! Issue 41: a round runs only calls of tools it offered the model. A model
//! that calls a tool anyway (under `tool_choice: none`, one hidden by
//! `agent.max_tools_shown`, another than `tool_choice` names) gets a failure
//! it can read, recorded like any call, and the tool does not run; under
//! both routings, for the agent's tools and the caller's.

use pretty_assertions::assert_eq;
use riverse_agent::{Agent, CallRecord, ToolUse, Turn, TurnEvent};
use riverse_llm::ToolChoice;
use riverse_test_support::Project;
use riverse_test_support::openai::{OpenAiServer, ev_text, ev_tool_call};
use riverse_tool::{FailureKind, ToolManifest};
use serde_json::json;

use super::support::{agent, event_outline};

/// A project with `weather` and `mark`, the tool that leaves a file behind
/// each time it runs.
fn marking_project() -> Project {
    let project = Project::new();
    project.fixture("weather.py").fixture("leaves_a_mark.py");
    project
}

fn marks(project: &Project) -> Vec<String> {
    project.file_names("marks")
}

fn choosing(choice: ToolChoice) -> ToolUse {
    ToolUse {
        choice,
        ..ToolUse::default()
    }
}

async fn turn_with(agent: &Agent, message: &str, tool_use: &ToolUse) -> (Turn, Vec<TurnEvent>) {
    let mut events = Vec::new();
    let mut on_event = |event: TurnEvent| events.push(event);
    let turn = agent
        .turn_with(&[], Some(message), tool_use, &mut on_event)
        .await
        .unwrap();
    (turn, events)
}

/// The one record of `turn`: a call of `mark` refused because `why`.
fn assert_refused(turn: &Turn, why: &str) {
    let [record] = turn.tool_calls.as_slice() else {
        panic!("{:?}", turn.tool_calls);
    };
    let CallRecord {
        tool,
        params,
        success,
        error,
        failure,
        ..
    } = record;
    assert_eq!(
        (tool.as_str(), json!(params), *success, *failure),
        (
            "mark",
            json!({"name": "hostile"}),
            Some(false),
            Some(FailureKind::Unavailable)
        )
    );
    assert_eq!(
        error,
        &format!("tool \"mark\" was not offered in this round: {why}")
    );
}

/// The cases of a model that calls `mark` though the round did not offer
/// it: `agent.max_tools_shown`, the choice, and why the call is refused.
fn hostile_cases() -> Vec<(usize, ToolChoice, &'static str)> {
    vec![
        (0, ToolChoice::None, "tool_choice is \"none\""),
        (
            1,
            ToolChoice::Auto,
            "it is not among the tools shown (weather)",
        ),
        (
            0,
            ToolChoice::Function("weather".into()),
            "tool_choice names \"weather\"",
        ),
    ]
}

#[tokio::test]
async fn natively_a_call_of_a_tool_the_round_did_not_offer_does_not_run() {
    for (shown, choice, why) in hostile_cases() {
        let project = marking_project();
        let server = OpenAiServer::start([
            ev_tool_call("c1", "mark", json!({"name": "hostile"})),
            ev_text("No tools, then."),
        ]);
        let settings = format!("agent: {{max_tools_shown: {shown}}}");
        let agent = agent(&project, &server, &settings).await;
        let (turn, events) =
            turn_with(&agent, "What's the weather in Tokyo?", &choosing(choice)).await;
        assert_eq!(marks(&project), Vec::<String>::new(), "{why}");
        assert_refused(&turn, why);
        assert_eq!(turn.answer, "No tools, then.");
        assert_eq!(
            event_outline(&events)[..2],
            ["started mark", "finished mark false"],
            "{why}"
        );
        assert_eq!(
            server.requests()[1].tool_results(),
            vec![(
                "c1".into(),
                format!("tool mark failed: tool \"mark\" was not offered in this round: {why}")
            )]
        );
    }
}

#[tokio::test]
async fn the_dispatcher_runs_no_call_of_a_tool_it_did_not_offer() {
    let hostile = r#"[{"tool": "mark", "params": {"name": "hostile"}}]"#;
    for (shown, choice, why) in hostile_cases() {
        let project = marking_project();
        let server = OpenAiServer::start([ev_text(hostile)]);
        if choice != ToolChoice::None {
            server.push([ev_text("No tools, then.")]);
        }
        let settings = format!("agent: {{tool_mode: dispatcher, max_tools_shown: {shown}}}");
        let agent = agent(&project, &server, &settings).await;
        let (turn, _) = turn_with(
            &agent,
            "What's the weather in Tokyo?",
            &choosing(choice.clone()),
        )
        .await;
        assert_eq!(marks(&project), Vec::<String>::new(), "{why}");
        let requests = server.requests();
        if choice == ToolChoice::None {
            // No tools, so no routing call: the model's one reply is its answer.
            assert!(turn.tool_calls.is_empty());
            assert_eq!(turn.answer, hostile);
            assert_eq!(requests.len(), 1);
            continue;
        }
        assert_refused(&turn, why);
        let routing = &requests[0].roles_and_contents()[0].1;
        assert!(!routing.contains("- mark:"), "{routing}");
        let notes = &requests[1].roles_and_contents()[2].1;
        assert!(
            notes.contains(&format!(
                "tool mark failed: tool \"mark\" was not offered in this round: {why}"
            )),
            "{notes}"
        );
    }
}

#[tokio::test]
async fn a_tool_that_tool_choice_names_is_offered_though_selection_hid_it() {
    let project = marking_project();
    let server = OpenAiServer::start([
        ev_tool_call("c1", "mark", json!({"name": "named"})),
        ev_text("Marked."),
    ]);
    let agent = agent(&project, &server, "agent: {max_tools_shown: 1}").await;
    assert_eq!(
        agent.tools_shown(&[], "What's the weather in Tokyo?").len(),
        1
    );
    let named = choosing(ToolChoice::Function("mark".into()));
    let (turn, _) = turn_with(&agent, "What's the weather in Tokyo?", &named).await;
    assert_eq!(marks(&project), vec!["named"]);
    assert!(turn.tool_calls[0].succeeded(), "{:?}", turn.tool_calls);
    assert_eq!(server.requests()[0].tool_names(), vec!["weather", "mark"]);
}

#[tokio::test]
async fn a_call_of_a_client_tool_the_round_did_not_offer_is_not_handed_back() {
    let project = marking_project();
    let server = OpenAiServer::start([
        ev_tool_call("c1", "packing_list", json!({"city": "Oslo"})),
        ev_text("Nothing to pack."),
    ]);
    let agent = agent(&project, &server, "").await;
    let tool_use = ToolUse {
        client_tools: vec![ToolManifest {
            name: "packing_list".into(),
            description: "Lists what to pack for a trip".into(),
            ..ToolManifest::default()
        }],
        choice: ToolChoice::None,
        ..ToolUse::default()
    };
    let (turn, _) = turn_with(&agent, "Packing for Oslo?", &tool_use).await;
    assert!(turn.client_calls.is_empty(), "{:?}", turn.client_calls);
    assert_eq!(turn.answer, "Nothing to pack.");
    assert_eq!(turn.tool_calls.len(), 1);
    assert_eq!(turn.tool_calls[0].failure, Some(FailureKind::Unavailable));
    assert_eq!(
        turn.tool_calls[0].error,
        "tool \"packing_list\" was not offered in this round: tool_choice is \"none\""
    );
}
