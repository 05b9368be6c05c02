//! `riverse eval` scores skill choice beside tool routing.

use pretty_assertions::assert_eq;
use riverse_test_support::Project;
use riverse_test_support::openai::{OpenAiServer, ev_text, ev_tool_call};
use serde_json::{Value, json};

use super::ask::{project_for, riverse, text};

/// A keyword skill in three scripts, a keyword skill with a miss, a SKILL.md
/// skill the model chooses through the `skill` tool, and a case file.
fn skills_project(server: &OpenAiServer) -> Project {
    let project = project_for(server, "");
    project.file(
        "agent/skills/explain_code.yaml",
        "name: explain_code\n\
         description: Explain a piece of code\n\
         trigger: {type: keyword, keywords: [explain code, コードを説明して, 解释代码]}\n\
         instruction: Explain it part by part.\n\
         examples:\n\
           - Please explain code in this file\n\
           - この関数のコードを説明してください\n\
           - /explain_code fn main() {}\n",
    );
    project.file(
        "agent/skills/travel.yaml",
        "name: travel\n\
         description: Plan a trip\n\
         trigger: {type: keyword, keywords: [trip]}\n\
         instruction: Plan it day by day.\n\
         examples: [Plan my trip to Oslo, What should I pack?]\n",
    );
    project.file(
        "agent/skills/pdf-forms/SKILL.md",
        "---\nname: pdf-forms\ndescription: Fill in PDF forms\n\
         examples: [Fill in this PDF form]\n---\nRead the form, then fill each field.\n",
    );
    project.file(
        "agent/skills/cases.eval.yaml",
        "- {message: Hello there, skill: none}\n\
         - {message: explain code for this trip, skill: explain_code}\n",
    );
    project
}

/// The scripted model: the two weather examples, then the three skill cases
/// that neither `/NAME` nor a keyword decides.
fn scripted() -> OpenAiServer {
    OpenAiServer::start([
        ev_tool_call("c1", "weather", json!({"city": "Tokyo"})),
        ev_tool_call("c2", "weather", json!({"city": "London"})),
        // "What should I pack?": the model loads the wrong skill.
        ev_tool_call("c3", "skill", json!({"name": "pdf-forms"})),
        // "Fill in this PDF form"
        ev_tool_call("c4", "skill", json!({"name": "PDF-forms"})),
        // "Hello there"
        ev_text("Hi!"),
    ])
}

#[test]
fn eval_reports_skill_precision_recall_and_confusions_beside_tools() {
    let server = scripted();
    let project = skills_project(&server);
    let output = riverse(&project)
        .args(["eval", "--jobs", "1"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout),
        "TOOL     CASES  TOOL    PARAMS  MISSES\n\
         weather      2  2/2     -\n\
         \n\
         tool right 2/2 (100.0 %), whole call right 2/2 (100.0 %)\n\
         \n\
         SKILL         CASES  CHOSEN  PRECISION  RECALL\n\
         explain_code      4       4      100 %   100 %\n\
         none              1       1      100 %   100 %\n\
         pdf-forms         1       2       50 %   100 %\n\
         travel            2       2       50 %    50 %\n\
         \n\
         miss: \"What should I pack?\" expected travel, got pdf-forms\n\
         \n\
         skill right 7/8 (87.5 %)\n\
         confused: 1 of explain_code's cases chose travel\n\
         confused: 1 of travel's cases chose pdf-forms\n"
    );
    let asked: Vec<String> = server
        .requests()
        .iter()
        .map(|request| request.roles_and_contents()[1].1.clone())
        .collect();
    assert_eq!(
        asked,
        [
            "What's the weather in Tokyo?",
            "Is it raining in London?",
            "What should I pack?",
            "Fill in this PDF form",
            "Hello there"
        ],
        "keywords and /NAME choose without the model"
    );
}

#[test]
fn skill_choice_counts_in_the_exit_code_and_the_json() {
    let server = scripted();
    let project = skills_project(&server);
    let output = riverse(&project)
        .args(["eval", "--json", "--jobs", "1", "--min-accuracy", "0.9"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stderr),
        "riverse: skill accuracy 87.5 % is under --min-accuracy 90.0 %\n"
    );
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        (report["cases"].clone(), report["accuracy"].clone()),
        (json!(2), json!(1.0))
    );
    let skills = &report["skills"];
    assert_eq!(
        (skills["cases"].clone(), skills["right"].clone()),
        (json!(8), json!(7))
    );
    assert_eq!(
        skills["skills"][2],
        json!({"skill": "pdf-forms", "cases": 1, "chosen": 2, "right": 1,
               "precision": 0.5, "recall": 1.0})
    );
    assert_eq!(
        skills["confusions"],
        json!([{"expected": "explain_code", "chosen": "travel", "count": 1},
               {"expected": "travel", "chosen": "pdf-forms", "count": 1}])
    );
    assert_eq!(
        skills["outcomes"][2]["chosen"],
        json!(["explain_code"]),
        "/explain_code chooses it by name"
    );
}

/// Skills alone are scored without tools; a skill no case expects is named.
#[test]
fn eval_scores_skills_in_a_project_without_tool_cases() {
    let server = OpenAiServer::start(Vec::new());
    let project = Project::new();
    project.settings(&format!(
        "llm_provider: openai\nopenai: {{api_base: \"{}\", api_key: sk-file, max_retries: 0}}\n",
        server.url()
    ));
    project.file(
        "agent/skills/skills.yaml",
        "skills:\n\
           - {name: greet, description: d, instruction: i,\n\
              trigger: {keywords: [hello]}, examples: [hello you]}\n\
           - {name: unused, description: d, instruction: i, trigger: {keywords: [zzz]}}\n",
    );
    let output = riverse(&project)
        .args(["eval", "--min-accuracy", "1"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout),
        "SKILL  CASES  CHOSEN  PRECISION  RECALL\n\
         greet      1       1      100 %   100 %\n\
         \n\
         skill right 1/1 (100.0 %)\n\
         skills without cases (add examples): unused\n"
    );
    assert!(server.requests().is_empty(), "no model call for keywords");
}
