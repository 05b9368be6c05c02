//! A skill's steps run through a host: interpolation across `save_as`, and
//! failures that reach the reply.

use async_trait::async_trait;
use pretty_assertions::assert_eq;
use riverse_skills::{SkillRun, StepHost, StepOutput, run_steps};
use serde_json::{Map, Value, json};
use std::sync::Mutex;

use super::Project;

/// Tools of its own and an LLM that echoes its prompt, keeping every call.
#[derive(Default)]
struct Host {
    calls: Mutex<Vec<(String, Value)>>,
    llm_down: bool,
}

#[async_trait]
impl StepHost for Host {
    async fn call_tool(&self, name: &str, params: Map<String, Value>) -> Result<String, String> {
        self.calls
            .lock()
            .unwrap()
            .push((name.to_owned(), Value::Object(params.clone())));
        match name {
            "weather" => Ok(format!(
                "{}: rain, 14°C",
                params["city"].as_str().unwrap_or("?")
            )),
            "packing" => Ok(format!(
                "umbrella (for {})",
                params["forecast"].as_str().unwrap_or("?")
            )),
            "broken" => Err("the service is down".into()),
            other => Err(format!("no tool {other:?}")),
        }
    }

    async fn respond(&self, prompt: &str) -> Result<String, String> {
        match self.llm_down {
            true => Err("the LLM can't be reached".into()),
            false => Ok(format!("LLM: {prompt}")),
        }
    }
}

async fn run_skill(skill_yaml: &str, message: &str, host: &Host) -> SkillRun {
    let project = Project::new();
    project.file("skill.yaml", skill_yaml);
    let set = project.load("en");
    let skill = set
        .skills()
        .next()
        .unwrap_or_else(|| panic!("{:?}", set.entries()));
    run_steps(skill, message, host).await
}

#[tokio::test]
async fn a_later_step_reads_an_earlier_save_as() {
    let host = Host::default();
    let skill = r#"
name: trip
variables: {city: Oslo, days: 2}
steps:
  - tool: weather
    params: {city: "{city}", days: "{days}"}
    save_as: forecast
  - tool: packing
    params: {forecast: "{forecast}", note: "asked: {message}"}
    save_as: bag
  - respond: "Forecast {forecast}; pack {bag}."
"#;
    let run = run_skill(skill, "off to Oslo", &host).await;
    assert_eq!(
        *host.calls.lock().unwrap(),
        [
            ("weather".to_owned(), json!({"city": "Oslo", "days": 2})),
            (
                "packing".to_owned(),
                json!({"forecast": "Oslo: rain, 14°C", "note": "asked: off to Oslo"})
            ),
        ]
    );
    assert_eq!(
        run.reply,
        "LLM: Forecast Oslo: rain, 14°C; pack umbrella (for Oslo: rain, 14°C)."
    );
    assert_eq!(run.text(), run.reply);
    assert!(run.failures().is_empty());
}

#[tokio::test]
async fn a_failed_step_reaches_the_reply_even_when_no_prompt_uses_it() {
    let host = Host::default();
    let skill =
        "name: s\nsteps:\n  - {tool: broken, save_as: status}\n  - respond: \"Say hello\"\n";
    let run = run_skill(skill, "hi", &host).await;
    assert_eq!(
        run.steps[0].output,
        StepOutput::Error("the service is down".into())
    );
    assert_eq!(
        run.failures(),
        ["step 1 (tool broken): the service is down"]
    );
    assert_eq!(
        run.text(),
        "LLM: Say hello\n\n[skill s failed at step 1 (tool broken): the service is down]"
    );

    // Used by the prompt, the error is what the LLM reads, and said once.
    let skill =
        "name: s\nsteps:\n  - {tool: broken, save_as: status}\n  - respond: \"Status: {status}\"\n";
    let run = run_skill(skill, "hi", &host).await;
    assert_eq!(run.text(), "LLM: Status: [tool error: the service is down]");
}

#[tokio::test]
async fn without_respond_the_results_are_the_reply_and_an_llm_failure_is_kept() {
    let host = Host::default();
    let skill = "name: s\nsteps:\n  - {tool: weather, params: {city: Rome}}\n  - {tool: nowhere, params: {x: \"{undefined}\"}}\n";
    let run = run_skill(skill, "", &host).await;
    assert_eq!(
        run.reply,
        "Rome: rain, 14°C\n[tool error: no tool \"nowhere\"]"
    );
    assert_eq!(run.text(), run.reply);
    assert_eq!(run.steps[1].missing_variables, ["undefined"]);
    assert_eq!(run.steps[1].input, json!({"x": "{undefined}"}));

    let host = Host {
        llm_down: true,
        ..Host::default()
    };
    let skill = "name: s\nsteps:\n  - {tool: weather, params: {city: Rome}}\n  - respond: \"Sum up {nothing}\"\n";
    let run = run_skill(skill, "", &host).await;
    assert_eq!(run.reply, "Rome: rain, 14°C");
    assert_eq!(
        run.text(),
        "Rome: rain, 14°C\n\n[skill s failed at step 2 (respond): the LLM can't be reached]"
    );
}
