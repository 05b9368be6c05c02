//! A turn's running tools: their log lines, progress and questions as turn
//! events, samples answered by the agent's LLM, images shown to a model that
//! sees them and named to one that does not.

use pretty_assertions::assert_eq;
use riverse_agent::TurnEvent;
use riverse_test_support::Project;
use riverse_test_support::openai::{OpenAiServer, ev_text, ev_tool_call};
use riverse_tool::Answer;
use serde_json::{Value, json};

use super::support::{agent, event_outline};

const REPORTER: &str = r#"
from agent.tools import BaseTool, ToolManifest, ToolResult, Image


class Reporter(BaseTool):
    def manifest(self):
        return ToolManifest(name="reporter", description="writes a report", parameters={})

    def execute(self, params):
        self.log("fetching pages")
        self.progress(3, 3, "all pages")
        answer = self.ask("Overwrite report.pdf?", {"overwrite": "yes or no"})
        summary = self.sample("Summarise in one line: three pages", max_tokens=50)
        return ToolResult(True, f"{answer.action}:{answer.content.get('overwrite')}:{summary}",
                          content=[Image(b"\x89PNG", "image/png")])
"#;

fn project() -> Project {
    let project = Project::new();
    project.tool("reporter.py", REPORTER);
    project
}

#[tokio::test]
async fn a_running_tool_is_heard_answered_and_sampled_through_the_turn() {
    let project = project();
    let server = OpenAiServer::start([
        ev_tool_call("call_1", "reporter", json!({})),
        ev_text("Three pages, in one line."),
        ev_text("Done: the report is written."),
    ]);
    let agent = agent(&project, &server, "").await;
    let mut events = Vec::new();
    let mut on_event = |event: TurnEvent| {
        if let TurnEvent::ToolQuestion { reply, .. } = &event {
            let mut content = serde_json::Map::new();
            content.insert("overwrite".into(), json!("yes"));
            assert!(reply.answer(Answer::accept(content)));
        }
        events.push(event);
    };
    let turn = agent
        .turn(&[], "Write the report", &mut on_event)
        .await
        .unwrap();

    assert_eq!(
        turn.tool_calls[0].data,
        "accept:yes:Three pages, in one line."
    );
    assert_eq!(
        event_outline(&events),
        [
            "started reporter",
            "log reporter fetching pages",
            "progress reporter 3",
            "question reporter Overwrite report.pdf?",
            "finished reporter true",
            "text Done: the report is written.",
            "done Done: the report is written.",
        ]
    );
    let requests = server.requests();
    assert_eq!(
        requests[1].roles_and_contents(),
        [("user".into(), "Summarise in one line: three pages".into())],
        "the sample is a completion of its own, without tools"
    );
    assert!(requests[1].tool_names().is_empty());
    assert_eq!(requests[1].body["max_tokens"], json!(50));
    assert_eq!(
        requests[2].body["max_tokens"],
        json!(2048),
        "the configured limit"
    );
    // The model does not see images (the default): it reads a line naming it.
    assert_eq!(
        requests[2].tool_results(),
        [(
            "call_1".into(),
            "accept:yes:Three pages, in one line.\n[image image/png, 4 B]".into()
        )]
    );
}

#[tokio::test]
async fn a_question_nobody_answers_is_a_cancel() {
    let project = project();
    let server = OpenAiServer::start([
        ev_tool_call("call_1", "reporter", json!({})),
        ev_text("sampled"),
        ev_text("Cancelled."),
    ]);
    let agent = agent(&project, &server, "").await;
    // The front end drops the question: nobody is there to answer.
    let mut on_event = |_event: TurnEvent| {};
    let turn = agent.turn(&[], "Write it", &mut on_event).await.unwrap();
    assert_eq!(turn.tool_calls[0].data, "cancel:None:sampled");
}

#[tokio::test]
async fn a_model_that_sees_images_is_shown_them_after_the_results() {
    let project = project();
    let server = OpenAiServer::start([
        ev_tool_call("call_1", "reporter", json!({})),
        ev_text("sampled"),
        ev_text("A picture."),
    ]);
    let yaml = format!(
        "llm_provider: openai\nopenai: {{api_base: \"{}\", api_key: sk-test, max_retries: 0, images: true}}\n",
        server.url()
    );
    let settings = riverse_agent::Settings::from_yaml(project.path(), None, &yaml).unwrap();
    let agent = riverse_agent::build_agent(&settings).await.unwrap();
    let mut on_event = |_event: TurnEvent| {};
    let turn = agent.turn(&[], "Draw it", &mut on_event).await.unwrap();
    assert!(
        !turn
            .messages
            .iter()
            .any(|message| matches!(message, riverse_llm::Message::Images(_))),
        "the images stay out of the history"
    );
    let messages = server.requests()[2].messages();
    let last: &Value = messages.last().unwrap();
    assert_eq!(
        last,
        &json!({"role": "user", "content": [
            {"type": "text", "text": "An image from the tool \"reporter\":"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw=="}},
        ]})
    );
}
