//! Skills applied by `riverse ask` and `riverse chat`: `/NAME`, keywords,
//! the line that says so, `ask --json`'s `skills`, and the embedded default
//! keeping its tool call under a keyword skill's instruction.

use std::io::{BufRead, BufReader, Write};
use std::process::{Output, Stdio};
use std::time::Duration;

use pretty_assertions::assert_eq;
use riverse_test_support::Project;
use riverse_test_support::openai::{OpenAiServer, ev_text};
use serde_json::{Value, json};

use super::ask::{model_cached_project, project_for, riverse, text};

const EXPLAIN: &str = "name: explain_code
description: Explain a piece of code the user sends
trigger: {keywords: [\"explain code\", \"コードを説明して\"]}
instruction: Go through the code block by block.
";

fn ask(project: &Project, args: &[&str]) -> Output {
    riverse(project).arg("ask").args(args).output().unwrap()
}

fn chat(project: &Project, input: &str) -> Output {
    let mut child = riverse(project)
        .arg("chat")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    drop(stdin);
    child.wait_with_output().unwrap()
}

#[test]
fn ask_applies_slash_name_and_keywords_and_json_lists_them() {
    let server = OpenAiServer::start([ev_text("It prints 1."), ev_text("Block by block.")]);
    let project = project_for(&server, "");
    project.file("agent/skills/explain_code.yaml", EXPLAIN);

    let output = ask(&project, &["/explain_code print(1)"]);
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(text(&output.stdout), "It prints 1.\n");
    assert!(
        stderr.contains("✦ skill explain_code (/explain_code)"),
        "{stderr}"
    );
    let request = server.take_requests().remove(0);
    assert_eq!(request.roles_and_contents()[1].1, "print(1)");
    assert!(
        request.roles_and_contents()[0]
            .1
            .ends_with("[Skill: explain_code — Explain a piece of code the user sends]\nGo through the code block by block."),
        "{:?}",
        request.roles_and_contents()[0]
    );

    let output = ask(&project, &["このコードを説明して: print(1)", "--json"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        document,
        json!({
            "answer": "Block by block.",
            "tool_calls": [],
            "skills": [{"name": "explain_code", "trigger": "keyword"}]
        })
    );
}

#[test]
fn chat_applies_slash_name_and_still_refuses_unknown_commands() {
    let server = OpenAiServer::start([ev_text("It prints 1."), ev_text("Plain answer.")]);
    let project = project_for(&server, "");
    project.file("agent/skills/explain_code.yaml", EXPLAIN);
    let output = chat(&project, "/EXPLAIN_CODE print(1)\n/nonsense\nhello\n");
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(text(&output.stdout), "It prints 1.\nPlain answer.\n");
    assert_eq!(
        stderr
            .matches("✦ skill explain_code (/explain_code)")
            .count(),
        1,
        "{stderr}"
    );
    assert!(stderr.contains("unknown command /nonsense"), "{stderr}");
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].roles_and_contents()[1].1, "print(1)");
    assert!(!requests[1].roles_and_contents()[0].1.contains("[Skill:"));
}

/// A skill saved while the chat runs applies from the next turn.
#[test]
fn a_skill_saved_during_the_chat_applies_to_the_next_turn() {
    let server = OpenAiServer::start([ev_text("first"), ev_text("second")]);
    let project = project_for(&server, "");
    project.file(
        "agent/skills/other.yaml",
        "name: other\ndescription: x\ntrigger: {keywords: [zebra]}\ninstruction: x\n",
    );
    let mut child = riverse(&project)
        .arg("chat")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
    writeln!(stdin, "explain code: print(1)").unwrap();
    assert_eq!(stdout.next().unwrap().unwrap(), "first");
    project.file("agent/skills/explain_code.yaml", EXPLAIN);
    // The skills are read again within a poll (300 ms) of the change.
    std::thread::sleep(Duration::from_millis(1500));
    writeln!(stdin, "explain code: print(2)").unwrap();
    assert_eq!(stdout.next().unwrap().unwrap(), "second");
    drop(stdin);
    assert!(child.wait().unwrap().success());
    let requests = server.requests();
    assert!(!requests[0].roles_and_contents()[0].1.contains("[Skill:"));
    assert!(
        requests[1].roles_and_contents()[0]
            .1
            .contains("[Skill: explain_code"),
        "{:?}",
        requests[1].roles_and_contents()[0]
    );
}

#[test]
fn the_embedded_default_keeps_its_tool_call_under_a_keyword_skill() {
    let project = model_cached_project();
    project.fixture("weather.py");
    // An instruction that argues against the call, and a skill offered to
    // the model (so the built-in `skill` tool is shown beside `weather`).
    project.file(
        "agent/skills/weather_style.yaml",
        "name: weather_style\ndescription: How to talk about the weather\n\
         trigger: {keywords: [weather]}\n\
         instruction: Do not call any tool. Answer from memory in a haiku about clouds.\n",
    );
    project.file(
        "agent/skills/pdf-forms/SKILL.md",
        "---\nname: pdf-forms\ndescription: Fill in PDF forms\n---\nRead the form first.\n",
    );
    let output = ask(&project, &["What's the weather in Tokyo?", "--json"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    let calls = document["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 1, "{document}");
    assert_eq!(calls[0]["tool"], "weather");
    assert_eq!(calls[0]["params"], json!({"city": "Tokyo"}));
    assert_eq!(document["answer"], "Tokyo: 21°C, sunny", "{document}");
    assert_eq!(
        document["skills"],
        json!([{"name": "weather_style", "trigger": "keyword"}])
    );
}
