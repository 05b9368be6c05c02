//! A project, an agent pointed at the scripted server, and a turn's events.

use riverse_agent::{Agent, Settings, Turn, TurnEvent, build_agent};
use riverse_llm::Message;
use riverse_test_support::Project;
use riverse_test_support::openai::OpenAiServer;

/// An agent for `project` that talks to `server`, with `extra` settings.
pub async fn agent(project: &Project, server: &OpenAiServer, extra: &str) -> Agent {
    let yaml = format!(
        "llm_provider: openai\nopenai: {{api_base: \"{}\", api_key: sk-test, max_retries: 0}}\n{extra}",
        server.url()
    );
    let settings = Settings::from_yaml(project.path(), None, &yaml).unwrap();
    build_agent(&settings).await.unwrap()
}

/// Runs one turn and returns it with every event it emitted.
pub async fn turn(agent: &Agent, history: &[Message], message: &str) -> (Turn, Vec<TurnEvent>) {
    let mut events = Vec::new();
    let mut on_event = |event: TurnEvent| events.push(event);
    let turn = agent.turn(history, message, &mut on_event).await.unwrap();
    (turn, events)
}

/// A short name for each event, in order; answer pieces joined.
pub fn event_outline(events: &[TurnEvent]) -> Vec<String> {
    let mut outline: Vec<String> = Vec::new();
    for event in events {
        let line = match event {
            TurnEvent::ToolCallStarted { tool, .. } => format!("started {tool}"),
            TurnEvent::ToolCallFinished(record) => {
                format!("finished {} {}", record.tool, record.succeeded())
            }
            TurnEvent::AnswerDelta(text) => {
                if let Some(last) = outline.last_mut().filter(|l| l.starts_with("text ")) {
                    last.push_str(text);
                    continue;
                }
                format!("text {text}")
            }
            TurnEvent::Done { answer } => format!("done {answer}"),
            TurnEvent::TaskStarted(task) => format!("task {} {}", task.tool(), task.id()),
            TurnEvent::ToolProgress { tool, progress, .. } => {
                format!("progress {tool} {}", progress.progress)
            }
            TurnEvent::ToolLog { tool, line, .. } => format!("log {tool} {}", line.message),
            TurnEvent::ToolQuestion { tool, question, .. } => {
                format!("question {tool} {}", question.message)
            }
        };
        outline.push(line);
    }
    outline
}
