//! Skills applied in a turn: keywords in any script, `/NAME`, the model's
//! choice through the built-in `skill` tool, and steps run through the
//! registry, all against the scripted server and real Python tools.

use pretty_assertions::assert_eq;
use riverse_agent::{AppliedSkill, SkillTrigger};
use riverse_skills::StepOutput;
use riverse_test_support::Project;
use riverse_test_support::openai::{OpenAiServer, ev_text, ev_tool_call};
use serde_json::json;

use super::support::{agent, event_outline, turn};

const EXPLAIN: &str = "name: explain_code
description: Explain a piece of code the user sends
trigger:
  type: keyword
  keywords: [\"explain code\", \"コードを説明して\", \"解释代码\"]
instruction: |
  Say what the code is for in one sentence, then go through it block by block.
";

/// A tool that packs for the forecast it is given.
const PACKING: &str = r#"from agent.tools import BaseTool, ToolManifest, ToolResult

class Packing(BaseTool):
    def manifest(self):
        return ToolManifest(name="packing", description="What to pack for a forecast",
                            parameters={"forecast": "The forecast"})
    def execute(self, params):
        forecast = params.get("forecast", "")
        if "sunny" not in forecast:
            return ToolResult(success=False, data="", error=f"no packing list for {forecast!r}")
        return ToolResult(success=True, data=f"sunglasses (for {forecast})")
"#;

fn system_prompt(request: &riverse_test_support::openai::Request) -> String {
    request.roles_and_contents()[0].1.clone()
}

fn applied(name: &str, trigger: SkillTrigger) -> AppliedSkill {
    AppliedSkill {
        name: name.into(),
        trigger,
        run: None,
    }
}

#[tokio::test]
async fn a_keyword_skill_applies_in_english_japanese_and_chinese() {
    let project = Project::new();
    project.file("agent/skills/explain_code.yaml", EXPLAIN);
    let server = OpenAiServer::start([ev_text("ok")]).fallback(ev_text("ok"));
    let agent = agent(&project, &server, "").await;
    for message in [
        "Please EXPLAIN CODE: fn main() {}",
        "この関数のコードを説明してください",
        "请解释代码：print(1)",
    ] {
        let (turn, _) = turn(&agent, &[], message).await;
        assert_eq!(
            turn.skills,
            [applied("explain_code", SkillTrigger::Keyword)],
            "{message}"
        );
        let request = server.take_requests().remove(0);
        let system = system_prompt(&request);
        assert!(
            system.ends_with(
                "\n\n[Skill: explain_code — Explain a piece of code the user sends]\n\
                 Say what the code is for in one sentence, then go through it block by block."
            ),
            "{system}"
        );
        assert_eq!(request.roles_and_contents()[1].1, message);
    }
    let (turn, _) = turn(&agent, &[], "What is the time?").await;
    assert_eq!(turn.skills, []);
    assert!(!system_prompt(&server.take_requests()[0]).contains("[Skill:"));
}

#[tokio::test]
async fn slash_name_applies_one_skill_and_the_model_answers_the_rest() {
    let project = Project::new();
    project.file("agent/skills/explain_code.yaml", EXPLAIN);
    project.file(
        "agent/skills/haiku.yaml",
        "name: haiku\ndescription: Answer in a haiku\ntrigger: {keywords: [code]}\ninstruction: Write a haiku.\n",
    );
    let server = OpenAiServer::start([ev_text("It prints one.")]);
    let agent = agent(&project, &server, "").await;
    let (turn, _) = turn(&agent, &[], "/Explain_Code print(1)  # code").await;
    assert_eq!(
        turn.skills,
        [applied("explain_code", SkillTrigger::Explicit)]
    );
    let request = server.single_request();
    let system = system_prompt(&request);
    assert!(system.contains("[Skill: explain_code"), "{system}");
    assert!(!system.contains("haiku"), "{system}");
    assert_eq!(request.roles_and_contents()[1].1, "print(1)  # code");
}

#[tokio::test]
async fn the_model_chooses_a_skill_md_skill_through_the_skill_tool() {
    let project = Project::new();
    project.file(
        "agent/skills/pdf-forms/SKILL.md",
        "---\nname: pdf-forms\ndescription: Fill in PDF forms\n---\n\nRead references/fields.md first.\n",
    );
    project.file(
        "agent/skills/pdf-forms/references/fields.md",
        "Name goes in box 1.\n",
    );
    project.file("agent/secret.txt", "not for skills\n");
    project.file("agent/skills/explain_code.yaml", EXPLAIN);
    let server = OpenAiServer::start([
        ev_tool_call("c1", "skill", json!({"name": "pdf-forms"})),
        ev_tool_call(
            "c2",
            "skill",
            json!({"name": "pdf-forms", "file": "references/fields.md"}),
        ),
        ev_tool_call(
            "c3",
            "skill",
            json!({"name": "pdf-forms", "file": "../../secret.txt"}),
        ),
        ev_text("Put your name in box 1."),
    ]);
    let agent = agent(&project, &server, "").await;
    let (turn, events) = turn(&agent, &[], "Help me with this form").await;
    assert_eq!(turn.answer, "Put your name in box 1.");
    assert_eq!(turn.skills, [applied("pdf-forms", SkillTrigger::Model)]);
    let requests = server.requests();
    assert_eq!(requests[0].tool_names(), ["skill"]);
    let description = requests[0].body["tools"][0]["function"]["description"]
        .as_str()
        .unwrap()
        .to_owned();
    // Offered by name and description only: not the body, not the keyword skill.
    assert!(
        description.ends_with("\n- pdf-forms: Fill in PDF forms"),
        "{description}"
    );
    assert!(!description.contains("explain_code") && !description.contains("fields.md"));
    assert_eq!(
        requests[0].body["tools"][0]["function"]["parameters"]["required"],
        json!(["name"])
    );
    let results = requests[3].tool_results();
    assert_eq!(results[0].1, "Read references/fields.md first.");
    assert_eq!(results[1].1, "Name goes in box 1.\n");
    assert!(
        results[2]
            .1
            .contains("\"../../secret.txt\" is not a path inside the skill's folder"),
        "{}",
        results[2].1
    );
    assert!(!results[2].1.contains("not for skills"));
    let outcomes: Vec<(String, bool)> = turn
        .tool_calls
        .iter()
        .map(|record| (record.call_id.clone(), record.succeeded()))
        .collect();
    assert_eq!(
        outcomes,
        [
            ("c1".into(), true),
            ("c2".into(), true),
            ("c3".into(), false)
        ]
    );
    assert_eq!(event_outline(&events)[0], "started skill");
}

#[tokio::test]
async fn a_steps_skill_runs_its_tools_in_order_and_the_second_reads_the_first() {
    let project = Project::new();
    project.fixture("weather.py");
    project.tool("packing.py", PACKING);
    project.file(
        "agent/skills/trip.yaml",
        "name: trip\ndescription: Pack for a trip\ntrigger: {keywords: [\"pack for\"]}\n\
         variables: {city: Oslo}\nsteps:\n\
         \x20 - tool: weather\n    params: {city: \"{city}\"}\n    save_as: forecast\n\
         \x20 - tool: packing\n    params: {forecast: \"{forecast}\"}\n    save_as: bag\n\
         \x20 - respond: \"Forecast: {forecast}. Bag: {bag}. Asked: {message}\"\n",
    );
    let server = OpenAiServer::start([ev_text("Bring sunglasses."), ev_text("Sunglasses!")]);
    let agent = agent(&project, &server, "").await;
    let (turn, events) = turn(&agent, &[], "What should I pack for Oslo?").await;
    assert_eq!(turn.answer, "Sunglasses!");
    let calls: Vec<(&str, bool, &str)> = turn
        .tool_calls
        .iter()
        .map(|r| (r.tool.as_str(), r.succeeded(), r.data.as_str()))
        .collect();
    assert_eq!(
        calls,
        [
            ("weather", true, "Oslo: 21°C, sunny"),
            ("packing", true, "sunglasses (for Oslo: 21°C, sunny)"),
        ]
    );
    assert_eq!(
        event_outline(&events)[..4],
        [
            "started weather",
            "finished weather true",
            "started packing",
            "finished packing true"
        ]
    );
    let requests = server.requests();
    assert_eq!(
        requests[0].roles_and_contents()[1].1,
        "Forecast: Oslo: 21°C, sunny. Bag: sunglasses (for Oslo: 21°C, sunny). \
         Asked: What should I pack for Oslo?"
    );
    assert_eq!(requests[0].tool_names(), Vec::<String>::new());
    let system = system_prompt(&requests[1]);
    assert!(
        system.ends_with("[Skill: trip — Pack for a trip]\nThe skill's steps ran before this turn. What they produced:\nBring sunglasses."),
        "{system}"
    );
    let run = turn.skills[0].run.as_ref().unwrap();
    assert_eq!(turn.skills[0].trigger, SkillTrigger::Keyword);
    assert_eq!(run.steps.len(), 3);
    assert_eq!(run.reply, "Bring sunglasses.");
}

#[tokio::test]
async fn a_failed_step_reaches_the_model_with_its_error() {
    let project = Project::new();
    project.tool("packing.py", PACKING);
    project.file(
        "agent/skills/bag.yaml",
        "name: bag\ndescription: Pack a bag\nsteps:\n\
         \x20 - tool: packing\n    params: {forecast: \"{message}\"}\n    save_as: bag\n",
    );
    let server = OpenAiServer::start([ev_text("The packing tool failed: no list for snow.")]);
    let agent = agent(&project, &server, "").await;
    let (turn, _) = turn(&agent, &[], "/bag snow").await;
    let run = turn.skills[0].run.as_ref().unwrap();
    assert!(
        matches!(&run.steps[0].output, StepOutput::Error(error) if error.contains("no packing list for 'snow'")),
        "{run:?}"
    );
    assert!(!turn.tool_calls[0].succeeded());
    let request = server.single_request();
    let system = system_prompt(&request);
    assert!(
        system.contains("What they produced:\n[tool error: ")
            && system.contains("no packing list for 'snow'"),
        "{system}"
    );
    assert_eq!(request.roles_and_contents()[1].1, "snow");
}

#[tokio::test]
async fn under_the_dispatcher_a_skill_joins_the_answer_call_and_not_the_routing_call() {
    let project = Project::new();
    project.fixture("weather.py");
    project.file("agent/skills/explain_code.yaml", EXPLAIN);
    let server = OpenAiServer::start([
        ev_text("[{\"tool\": \"weather\", \"params\": {\"city\": \"Oslo\"}}]"),
        ev_text("Oslo is sunny; and here is the code explained."),
    ]);
    let agent = agent(&project, &server, "agent: {tool_mode: dispatcher}").await;
    let (turn, _) = turn(&agent, &[], "Weather in Oslo, and explain code: x = 1").await;
    assert_eq!(
        turn.skills,
        [applied("explain_code", SkillTrigger::Keyword)]
    );
    assert_eq!(turn.tool_calls[0].data, "Oslo: 21°C, sunny");
    let requests = server.requests();
    assert!(!system_prompt(&requests[0]).contains("[Skill:"));
    assert!(
        system_prompt(&requests[1]).contains("[Skill: explain_code"),
        "{}",
        system_prompt(&requests[1])
    );
}
