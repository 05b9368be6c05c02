//! `riverse eval` and `riverse new`: the tool author's loop.

use pretty_assertions::assert_eq;
use riverse_test_support::openai::{OpenAiServer, ev_text, ev_tool_call};
use serde_json::{Value, json};

use super::ask::{model_cached_project, project_for, riverse, text};

/// Two tools, their three examples, and a case file beside them; the scripted
/// model routes one example to the wrong tool, gets one parameter wrong and
/// calls a tool for small talk.
#[test]
fn eval_reports_each_tool_its_misses_and_the_accuracy() {
    let server = OpenAiServer::start([
        // echo's example "Say hello"
        ev_tool_call("c1", "echo", json!({"text": "hello"})),
        // weather's examples
        ev_tool_call("c2", "weather", json!({"city": "Tokyo"})),
        ev_tool_call("c3", "echo", json!({"text": "London"})),
        // weather.eval.yaml
        ev_tool_call("c4", "weather", json!({"city": "Osaka"})),
        ev_tool_call("c5", "weather", json!({"city": "Kyoto"})),
        ev_tool_call("c6", "echo", json!({"text": "hi"})),
    ]);
    let project = project_for(&server, "");
    project.fixture("echo.py");
    project.file(
        "agent/tools/weather.eval.yaml",
        "- {message: Rain in Oslo?, tool: weather, params: {city: Oslo}}\n\
         - {message: Kyoto weather, tool: weather, params: {city: kyoto}}\n\
         - {message: Hello there, tool: none}\n",
    );
    let output = riverse(&project)
        .args(["eval", "--jobs", "1"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout),
        "TOOL     CASES  TOOL    PARAMS  MISSES\n\
         echo         1  1/1     -\n\
         none         1  0/1     -       1 → echo\n\
         weather      4  3/4     1/2     1 → echo\n\
         \n\
         tool right 4/6 (66.7 %), whole call right 3/6 (50.0 %)\n"
    );
    let asked: Vec<String> = server
        .requests()
        .iter()
        .map(|request| request.roles_and_contents()[1].1.clone())
        .collect();
    assert_eq!(
        asked,
        [
            "Say hello",
            "What's the weather in Tokyo?",
            "Is it raining in London?",
            "Rain in Oslo?",
            "Kyoto weather",
            "Hello there"
        ]
    );
    assert!(
        server
            .requests()
            .iter()
            .all(|r| r.tool_names() == ["echo", "weather"]),
        "every case is offered every tool"
    );
}

#[test]
fn eval_fails_under_the_minimum_and_prints_json() {
    let server = OpenAiServer::start([
        ev_text("no tool for this"),
        ev_tool_call("c1", "weather", json!({"city": "London"})),
    ]);
    let project = project_for(&server, "");
    let output = riverse(&project)
        .args(["eval", "--json", "--jobs", "1", "--min-accuracy", "0.9"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert!(
        text(&output.stderr).contains("accuracy 50.0 % is under --min-accuracy 90.0 %"),
        "{}",
        text(&output.stderr)
    );
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["cases"], 2);
    assert_eq!(report["call_right"], 1);
    assert_eq!(
        report["tools"],
        json!([{"tool": "weather", "cases": 2, "tool_right": 1, "params_checked": 0,
                "params_right": 0, "misses": {"none": 1}}])
    );
    assert_eq!(
        report["outcomes"][1]["calls"],
        json!([{"tool": "weather", "params": {"city": "London"}}])
    );
}

#[test]
fn eval_of_one_tool_reads_only_its_cases() {
    let server = OpenAiServer::start([ev_tool_call("c1", "echo", json!({"text": "hello"}))]);
    let project = project_for(&server, "");
    project.fixture("echo.py");
    let output = riverse(&project)
        .args(["eval", "--tool", "echo", "--json"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        (report["cases"].clone(), report["accuracy"].clone()),
        (json!(1), json!(1.0))
    );
    let unknown = riverse(&project)
        .args(["eval", "--tool", "nothing"])
        .output()
        .unwrap();
    assert_eq!(unknown.status.code(), Some(2));
    assert_eq!(
        text(&unknown.stderr),
        "riverse: no available tool \"nothing\" (see riverse tools)\n"
    );
}

#[test]
fn new_writes_a_tool_that_runs_and_cases_that_eval_reads() {
    let server = OpenAiServer::start([
        ev_tool_call("c1", "shout", json!({"text": "hello", "times": "3"})),
        ev_tool_call("c2", "shout", json!({"text": "hip hip", "times": 2})),
        ev_tool_call("c3", "shout", json!({"text": "hello", "times": 3})),
        ev_tool_call("c4", "shout", json!({"text": "hip hip", "times": 3})),
    ]);
    let project = project_for(&server, "");
    let created = riverse(&project).args(["new", "shout"]).output().unwrap();
    assert!(created.status.success(), "{}", text(&created.stderr));
    assert!(text(&created.stdout).contains("eval --tool shout"));
    let called = riverse(&project)
        .args(["call", "shout", "text=hey", "times=2"])
        .output()
        .unwrap();
    assert!(called.status.success(), "{}", text(&called.stderr));
    assert_eq!(text(&called.stdout), "hey hey\n");
    let again = riverse(&project).args(["new", "shout"]).output().unwrap();
    assert_eq!(again.status.code(), Some(2));
    assert!(text(&again.stderr).contains("shout.py already exists"));
    let invalid = riverse(&project).args(["new", "no way"]).output().unwrap();
    assert_eq!(invalid.status.code(), Some(2));

    let output = riverse(&project)
        .args(["eval", "--tool", "shout", "--json", "--jobs", "1"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    // Two examples, then the three cases of shout.eval.yaml, minus the one
    // that expects no tool (not shout's).
    assert_eq!(report["tools"][0]["cases"], 4);
    assert_eq!(report["tools"][0]["params_checked"], 2);
    assert_eq!(report["tools"][0]["params_right"], 1, "{report}");
}

/// The embedded default routes the template tools' own examples.
#[test]
fn eval_runs_on_the_embedded_model_with_the_template_tools() {
    let project = model_cached_project();
    let init = riverse(&project)
        .args(["init", "--force"])
        .arg(project.path())
        .output()
        .unwrap();
    assert!(init.status.success(), "{}", text(&init.stderr));
    let output = riverse(&project).args(["eval", "--json"]).output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let tools: Vec<&str> = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["tool"].as_str().unwrap())
        .collect();
    assert_eq!(tools, ["clock", "convert_units", "weather"]);
    assert_eq!(report["cases"], 8, "{report}");
    assert!(report["tool_right"].as_u64().unwrap() >= 7, "{report}");
}
