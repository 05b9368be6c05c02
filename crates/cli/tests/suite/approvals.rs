//! `tools.<name>.approval`: calls that run, ask first, or are refused, in
//! `riverse ask`, `call` and `chat`, what `init` writes and `tools` lists,
//! and a bad policy in the settings.

use std::time::Duration;

use pretty_assertions::assert_eq;
use riverse_test_support::openai::{OpenAiServer, ev_text, ev_tool_call, ev_tool_calls};
use riverse_test_support::{Project, wait_gone};
use serde_json::{Value, json};

use super::ask::{project_for, riverse, text};
use super::command;
use super::live::{chat_saying, end_chat};
use super::terminal::Terminal;

/// Leaves the file `stamps/NAME` (in the project, the worker's directory)
/// holding the worker's pid: a test can tell from outside whether a call
/// ran, and which process ran it.
const STAMP: &str = r#"import os
from agent.tools import BaseTool, ToolManifest, ToolResult

class Stamp(BaseTool):
    def manifest(self):
        return ToolManifest(name="stamp", description="Leaves a stamp with the given name",
                            parameters={"name": "the stamp's name"})

    def execute(self, params):
        name = params["name"]
        os.makedirs("stamps", exist_ok=True)
        with open(os.path.join("stamps", name), "w") as stamp:
            stamp.write(str(os.getpid()))
        return ToolResult(True, f"stamped {name}")
"#;

/// The rule form: names under `safe-` run, names with `danger` are refused,
/// the rest ask.
const STAMP_RULES: &str = r#"tools:
  stamp:
    approval:
      default: ask
      auto: [{name: {prefix: "safe-"}}]
      deny: [{name: {regex: ".*danger.*"}}]
"#;

/// Why `riverse ask` refuses a call of `stamp` that asks.
const ASK_REFUSAL: &str = "stamp was not run: it needs approval (tools.stamp.approval is ask) \
     and `riverse ask` asks nobody: give --yes to approve the calls that ask";

/// Why a command without a terminal refuses a call of `stamp` that asks.
const NO_TERMINAL_REFUSAL: &str = "stamp was not run: it needs approval (tools.stamp.approval is ask) \
     and there is no terminal to ask on: give --yes to approve the calls that ask";

/// A project with the weather and stamp tools, its LLM `server`, and
/// `tools` (YAML: a `tools:` section) in its settings.
fn stamping_project(server: &OpenAiServer, tools: &str) -> Project {
    let project = project_for(server, tools);
    project.tool("stamp.py", STAMP);
    project
}

/// A project with only the stamp tool and `tools` in its settings: no LLM.
fn offline_stamping_project(tools: &str) -> Project {
    let project = Project::new();
    project.tool("stamp.py", STAMP).settings(tools);
    project
}

/// The names of the stamps left so far, sorted.
fn stamps(project: &Project) -> Vec<String> {
    project.file_names("stamps")
}

/// The pids of the workers that left the stamps.
fn stamp_pids(project: &Project) -> Vec<i32> {
    stamps(project)
        .iter()
        .map(|name| {
            let path = project.path().join("stamps").join(name);
            std::fs::read_to_string(&path)
                .unwrap()
                .trim()
                .parse()
                .unwrap()
        })
        .collect()
}

/// `riverse ask ARGS --json`, which must succeed: its document, each call's
/// `duration_ms` and `call_id` left out, and its stderr.
fn ask_json(project: &Project, args: &[&str]) -> (Value, String) {
    let output = riverse(project)
        .arg("ask")
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let mut document: Value = serde_json::from_slice(&output.stdout).unwrap();
    for call in document["tool_calls"].as_array_mut().unwrap() {
        let duration = call.as_object_mut().unwrap().remove("duration_ms");
        assert!(duration.is_some_and(|d| d.is_u64()), "{call}");
        let call_id = call.as_object_mut().unwrap().remove("call_id");
        assert!(call_id.is_some_and(|id| id.is_string()), "{call}");
    }
    (document, stderr)
}

/// One call of `stamp` with `name`, as `ask --json` shows it: run, or
/// refused with `error`; with its approval, when there is one.
fn stamp_call(name: &str, outcome: Result<(), &str>, approval: Option<(&str, &str)>) -> Value {
    let mut call = match outcome {
        Ok(()) => json!({"tool": "stamp", "params": {"name": name}, "success": true,
                         "data": format!("stamped {name}"), "error": ""}),
        Err(error) => json!({"tool": "stamp", "params": {"name": name}, "success": false,
                             "data": "", "error": error, "failure": "denied"}),
    };
    if let Some((decision, rule)) = approval {
        call["approval"] = json!({"decision": decision, "rule": rule});
    }
    call
}

/// What the LLM reads of a refused call of `stamp`.
fn told_failed(error: &str) -> String {
    format!("tool stamp failed: {error}")
}

/// Whether `shown` has the line of a refused call of `stamp`:
/// `  ✗ stamp (N ms): ERROR`, or on a terminal `  ✗ stamp {PARAMS} (N ms): ERROR`.
fn shows_refusal(shown: &str, error: &str) -> bool {
    shown
        .lines()
        .any(|line| line.starts_with("  ✗ stamp ") && line.ends_with(&format!(" ms): {error}")))
}

/// The content of the tool message that answered `call_id` in `request`.
fn tool_result_for(request: &riverse_test_support::openai::Request, call_id: &str) -> String {
    request
        .tool_results()
        .into_iter()
        .find(|(id, _)| id == call_id)
        .unwrap_or_else(|| panic!("no tool result for {call_id}: {request:#?}"))
        .1
}

#[test]
fn ask_without_yes_refuses_a_call_that_asks_and_the_llm_reads_why() {
    let server = OpenAiServer::start([
        ev_tool_call("c1", "stamp", json!({"name": "one"})),
        ev_text("I was not allowed to stamp it."),
    ]);
    let project = stamping_project(&server, "tools:\n  stamp: {approval: ask}\n");
    let (document, stderr) = ask_json(&project, &["stamp one"]);
    assert_eq!(
        document,
        json!({
            "answer": "I was not allowed to stamp it.",
            "tool_calls": [stamp_call("one", Err(ASK_REFUSAL),
                                      Some(("unanswered", "tools.stamp.approval")))],
            "skills": []
        })
    );
    assert_eq!(stamps(&project), Vec::<String>::new(), "the tool never ran");
    assert!(
        shows_refusal(&stderr, ASK_REFUSAL),
        "the refused call is shown: {stderr}"
    );
    assert_eq!(
        tool_result_for(&server.requests()[1], "c1"),
        told_failed(ASK_REFUSAL)
    );
}

#[test]
fn ask_with_yes_approves_a_call_that_asks_and_it_runs() {
    let server = OpenAiServer::start([
        ev_tool_call("c1", "stamp", json!({"name": "one"})),
        ev_text("Stamped one."),
        ev_tool_call("c2", "stamp", json!({"name": "two"})),
        ev_text("Stamped two."),
    ]);
    let project = stamping_project(&server, "tools:\n  stamp: {approval: ask}\n");
    for (flag, name, answer) in [
        ("--yes", "one", "Stamped one."),
        ("-y", "two", "Stamped two."),
    ] {
        let (document, stderr) = ask_json(&project, &[&format!("stamp {name}"), flag]);
        assert_eq!(
            document,
            json!({
                "answer": answer,
                "tool_calls": [stamp_call(name, Ok(()), Some(("approved", "tools.stamp.approval")))],
                "skills": []
            }),
            "{flag}"
        );
        assert!(
            stderr
                .lines()
                .any(|line| line == "    stamp approved (--yes)"),
            "{flag}: {stderr}"
        );
    }
    assert_eq!(stamps(&project), ["one", "two"]);
    let requests = server.requests();
    assert_eq!(tool_result_for(&requests[1], "c1"), "stamped one");
    assert_eq!(tool_result_for(&requests[3], "c2"), "stamped two");
}

#[test]
fn approval_deny_refuses_every_call_even_with_yes_and_leaves_other_tools_alone() {
    let server = OpenAiServer::start([
        ev_tool_calls(&[
            ("c1", "stamp", json!({"name": "one"})),
            ("c2", "weather", json!({"city": "Oslo"})),
        ]),
        ev_text("Only the weather."),
    ]);
    let project = stamping_project(&server, "tools:\n  stamp: {approval: deny}\n");
    let (document, _) = ask_json(&project, &["stamp one and the weather in Oslo", "--yes"]);
    let denied = "stamp was not run: tools.stamp.approval is deny";
    assert_eq!(
        document,
        json!({
            "answer": "Only the weather.",
            "tool_calls": [
                stamp_call("one", Err(denied), Some(("denied", "tools.stamp.approval"))),
                // A tool with no policy has no approval.
                {"tool": "weather", "params": {"city": "Oslo"}, "success": true,
                 "data": "Oslo: 21°C, sunny", "error": ""}
            ],
            "skills": []
        })
    );
    assert_eq!(stamps(&project), Vec::<String>::new());
    assert_eq!(
        tool_result_for(&server.requests()[1], "c1"),
        told_failed(denied)
    );
}

#[test]
fn approval_rules_allow_deny_or_ask_by_the_arguments_and_the_strictest_wins() {
    let server = OpenAiServer::start([
        ev_tool_calls(&[
            ("c1", "stamp", json!({"name": "safe-one"})),
            ("c2", "stamp", json!({"name": "danger-two"})),
            ("c3", "stamp", json!({"name": "safe-danger"})),
            ("c4", "stamp", json!({"name": "other"})),
        ]),
        ev_text("One of four."),
    ]);
    let project = stamping_project(&server, STAMP_RULES);
    let (document, _) = ask_json(&project, &["stamp them"]);
    let by_deny_rule = "stamp was not run: tools.stamp.approval.deny[0] matched (deny)";
    let deny_rule = Some(("denied", "tools.stamp.approval.deny[0]"));
    assert_eq!(
        document,
        json!({
            "answer": "One of four.",
            "tool_calls": [
                stamp_call("safe-one", Ok(()), Some(("allowed", "tools.stamp.approval.auto[0]"))),
                stamp_call("danger-two", Err(by_deny_rule), deny_rule),
                // Both rules match: deny is the stricter.
                stamp_call("safe-danger", Err(by_deny_rule), deny_rule),
                // No rule matches: the default asks, and `ask` has nobody to.
                stamp_call("other", Err(ASK_REFUSAL), Some(("unanswered", "tools.stamp.approval"))),
            ],
            "skills": []
        })
    );
    assert_eq!(stamps(&project), ["safe-one"]);
    let request = &server.requests()[1];
    assert_eq!(tool_result_for(request, "c1"), "stamped safe-one");
    for id in ["c2", "c3"] {
        assert_eq!(
            tool_result_for(request, id),
            told_failed(by_deny_rule),
            "{id}"
        );
    }
    assert_eq!(tool_result_for(request, "c4"), told_failed(ASK_REFUSAL));
}

#[test]
fn call_without_a_terminal_refuses_a_call_that_asks_and_yes_approves_it() {
    let project = offline_stamping_project("tools:\n  stamp: {approval: ask}\n");
    let ran = command::riverse(&project, &["call", "stamp", "name=one"]);
    assert_eq!(ran.code, 1, "{ran:#?}");
    assert_eq!(ran.stdout, "");
    assert_eq!(ran.stderr, format!("riverse: {NO_TERMINAL_REFUSAL}\n"));

    let ran = command::riverse(&project, &["call", "stamp", "name=one", "--json"]);
    assert_eq!(ran.code, 1, "{ran:#?}");
    let printed: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(
        printed,
        json!({"success": false, "data": "", "error": NO_TERMINAL_REFUSAL, "failure": "denied",
               "approval": {"decision": "unanswered", "rule": "tools.stamp.approval"}})
    );
    assert_eq!(stamps(&project), Vec::<String>::new(), "the tool never ran");

    let ran = command::riverse(&project, &["call", "stamp", "name=two", "--yes", "--json"]);
    let printed: Value = serde_json::from_str(&ran.exits(0).stdout).unwrap();
    assert_eq!(
        printed,
        json!({"success": true, "data": "stamped two", "error": "",
               "approval": {"decision": "approved", "rule": "tools.stamp.approval"}})
    );
    assert!(
        ran.stderr
            .lines()
            .any(|line| line == "    stamp approved (--yes)"),
        "{ran:#?}"
    );
    assert_eq!(stamps(&project), ["two"]);
}

#[test]
fn call_on_a_terminal_asks_and_runs_on_yes() {
    let project = offline_stamping_project("tools:\n  stamp: {approval: ask}\n");
    let mut call = Terminal::spawn({
        let mut command = riverse(&project);
        command.args(["call", "stamp", "name=asked"]);
        command
    });
    call.wait_for_text("allow it? [y]es, [n]o, [a]lways this session:");
    assert_eq!(stamps(&project), Vec::<String>::new(), "nothing ran yet");
    call.type_keys("y\r");
    let screen = call.wait_for_text("stamped asked");
    assert_eq!(
        screen,
        "  ? stamp wants to run (tools.stamp.approval is ask)\n      name: \"asked\"\n    \
         allow it? [y]es, [n]o, [a]lways this session: y\nstamped asked"
    );
    assert!(call.wait().success());
    assert_eq!(stamps(&project), ["asked"]);
}

/// The chat's prompt for a call of `stamp` with `name`.
fn stamp_prompt(name: &str) -> String {
    format!(
        "  ? stamp wants to run (tools.stamp.approval is ask)\n      name: \"{name}\"\n    \
         allow it? [y]es, [n]o, [a]lways this session:"
    )
}

#[test]
fn chat_asks_at_the_terminal_yes_runs_no_declines_and_always_lasts_the_session() {
    let server = OpenAiServer::start([
        ev_tool_call("c1", "stamp", json!({"name": "one"})),
        ev_text("Stamped one."),
        ev_tool_call("c2", "stamp", json!({"name": "two"})),
        ev_text("Left two alone."),
        ev_tool_call("c3", "stamp", json!({"name": "three"})),
        ev_text("Stamped three."),
        ev_tool_call("c4", "stamp", json!({"name": "four"})),
        ev_text("Stamped four."),
    ]);
    let project = stamping_project(&server, "tools:\n  stamp: {approval: ask}\n");

    // y: this call runs.
    let mut chat = chat_saying(&project, "stamp one");
    let asked = chat.wait_for_text(&stamp_prompt("one"));
    assert_eq!(stamps(&project), Vec::<String>::new(), "{asked}");
    chat.type_keys("y\r");
    chat.wait_for_text("Stamped one.");
    assert_eq!(stamps(&project), ["one"]);

    // n: declined, and the LLM is told.
    chat.wait_for_prompt();
    chat.type_keys("stamp two\r");
    chat.wait_for_text(&stamp_prompt("two"));
    // Issue 49: the time the person took is not the call's.
    std::thread::sleep(Duration::from_millis(1500));
    chat.type_keys("n\r");
    let screen = chat.wait_for_text("Left two alone.");
    let refused = screen
        .lines()
        .find(|line| line.starts_with(r#"  ✗ stamp {"name":"two"} ("#))
        .unwrap_or_else(|| panic!("{screen}"));
    let took: u64 = refused[r#"  ✗ stamp {"name":"two"} ("#.len()..]
        .split(' ')
        .next()
        .and_then(|ms| ms.parse().ok())
        .unwrap_or_else(|| panic!("{refused}"));
    assert!(took < 1000, "the wait is not the call's time: {refused}");
    assert!(
        screen.contains(&format!(
            "{} n\n    (declined: not run)",
            stamp_prompt("two")
        )),
        "{screen}"
    );
    let declined = "stamp was not run: the user declined it";
    assert!(shows_refusal(&screen, declined), "{screen}");
    assert_eq!(stamps(&project), ["one"]);

    // a: runs, and so does every later call of the tool this session.
    chat.wait_for_prompt();
    chat.type_keys("stamp three\r");
    chat.wait_for_text(&stamp_prompt("three"));
    chat.type_keys("a\r");
    chat.wait_for_text("Stamped three.");
    chat.wait_for_prompt();
    chat.type_keys("stamp four\r");
    let screen = chat.wait_for_text("Stamped four.");
    assert!(
        screen
            .lines()
            .any(|line| line == "    stamp approved for this session"),
        "{screen}"
    );
    assert!(
        !screen.contains("name: \"four\""),
        "no prompt for the fourth call: {screen}"
    );
    assert_eq!(
        screen.matches("wants to run").count(),
        3,
        "asked three times, not four: {screen}"
    );
    end_chat(chat);
    assert_eq!(stamps(&project), ["four", "one", "three"]);

    let requests = server.requests();
    assert_eq!(requests.len(), 8);
    assert_eq!(tool_result_for(&requests[1], "c1"), "stamped one");
    assert_eq!(tool_result_for(&requests[3], "c2"), told_failed(declined));
    assert_eq!(tool_result_for(&requests[5], "c3"), "stamped three");
    assert_eq!(tool_result_for(&requests[7], "c4"), "stamped four");

    // No worker that ran a call outlives the chat.
    for pid in stamp_pids(&project) {
        assert!(wait_gone(pid), "worker {pid} outlived riverse chat");
    }
}

#[test]
fn esc_at_an_approval_prompt_leaves_the_call_unanswered_and_the_chat_goes_on() {
    let server = OpenAiServer::start([
        ev_tool_call("c1", "stamp", json!({"name": "one"})),
        ev_text("Nobody said."),
        ev_text("Still here."),
    ]);
    let project = stamping_project(&server, "tools:\n  stamp: {approval: ask}\n");
    let mut chat = chat_saying(&project, "stamp one");
    chat.wait_for_text(&stamp_prompt("one"));
    chat.type_keys("\x1b");
    let screen = chat.wait_for_text("Nobody said.");
    assert!(screen.contains("    (cancelled: not run)"), "{screen}");
    chat.wait_for_prompt();
    chat.type_keys("hello\r");
    chat.wait_for_text("Still here.");
    end_chat(chat);
    assert_eq!(stamps(&project), Vec::<String>::new());

    let requests = server.requests();
    let told = tool_result_for(&requests[1], "c1");
    assert!(
        told.starts_with(&told_failed(
            "stamp was not run: it needs approval (tools.stamp.approval is ask) and "
        )),
        "{told}"
    );
    assert_eq!(requests[2].roles_and_contents().last().unwrap().1, "hello");
}

/// `(tool, approval)` of every entry `tools --json` lists.
fn listed_approvals(stdout: &str) -> Vec<(String, String)> {
    let listed: Value = serde_json::from_str(stdout).unwrap();
    listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| {
            (
                tool["name"].as_str().unwrap().to_owned(),
                tool["approval"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// `(tool, line)` for every approval line of the `tools` table, under the
/// row of the tool it is about.
fn table_approval_lines(table: &str) -> Vec<(String, String)> {
    let mut tool = String::new();
    let mut found = Vec::new();
    for line in table.lines() {
        if !line.starts_with(' ') {
            tool = line
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .to_owned();
        } else if line.trim_start().starts_with("approval:") {
            found.push((tool.clone(), line.trim_start().to_owned()));
        }
    }
    found
}

#[test]
fn init_with_the_standard_tools_makes_file_write_and_shell_exec_ask() {
    let project = Project::new();
    command::riverse(&project, &["init", "demo", "--tools", "standard"]).exits(0);
    let ran = command::riverse(&project, &["--dir", "demo", "tools", "--json"]);
    let pairs = |rows: &[(&str, &str)]| -> Vec<(String, String)> {
        rows.iter()
            .map(|(name, approval)| ((*name).to_owned(), (*approval).to_owned()))
            .collect()
    };
    assert_eq!(
        listed_approvals(&ran.exits(0).stdout),
        pairs(&[
            ("clock", "auto"),
            ("file_list", "auto"),
            ("file_read", "auto"),
            ("file_write", "ask"),
            ("grep", "auto"),
            ("shell_exec", "ask"),
            ("convert_units", "auto"),
            ("weather", "auto"),
        ])
    );
    let ran = command::riverse(&project, &["--dir", "demo", "tools"]);
    let table = &ran.exits(0).stdout;
    assert!(
        table
            .lines()
            .any(|line| line.ends_with("    approval: ask (tools.file_write.approval)")),
        "{table}"
    );
    assert_eq!(
        table_approval_lines(table),
        pairs(&[
            ("file_write", "approval: ask (tools.file_write.approval)"),
            ("shell_exec", "approval: ask (tools.shell_exec.approval)"),
        ]),
        "{table}"
    );
}

#[test]
fn tools_lists_a_rule_policy_as_its_default_and_its_rule_count() {
    let project = offline_stamping_project(STAMP_RULES);
    project.fixture("weather.py");
    let ran = command::riverse(&project, &["tools", "--json"]);
    assert_eq!(
        listed_approvals(&ran.exits(0).stdout),
        [
            ("stamp".to_owned(), "ask, 2 rules".to_owned()),
            ("weather".to_owned(), "auto".to_owned())
        ]
    );
    let ran = command::riverse(&project, &["tools"]);
    assert_eq!(
        table_approval_lines(&ran.exits(0).stdout),
        [(
            "stamp".to_owned(),
            "approval: ask, 2 rules (tools.stamp.approval)".to_owned()
        )],
        "{}",
        ran.stdout
    );
}

#[test]
fn a_bad_approval_setting_is_an_error_naming_its_key_from_any_command() {
    let project = offline_stamping_project("tools:\n  stamp: {approval: sometimes}\n");
    let file = project.path().join("settings.yaml");
    let expected = format!(
        "riverse: {}: tools.stamp.approval: expected auto, ask or deny, got \"sometimes\"\n",
        file.display()
    );
    for args in [
        &["tools"][..],
        &["call", "stamp", "name=one", "--yes"][..],
        &["ask", "stamp one", "--yes"][..],
    ] {
        let ran = command::riverse(&project, args);
        assert_eq!(ran.code, 1, "{args:?}: {ran:#?}");
        assert_eq!(ran.stderr, expected, "{args:?}");
        assert_eq!(ran.stdout, "", "{args:?}");
    }

    project.settings("tools:\n  stamp:\n    approval: {deny: [{name: {regex: \"(\"}}]}\n");
    let ran = command::riverse(&project, &["tools"]);
    assert_eq!(ran.code, 1, "{ran:#?}");
    let prefix = format!(
        "riverse: {}: tools.stamp.approval.deny[0].name.regex: ",
        file.display()
    );
    assert!(ran.stderr.starts_with(&prefix), "{ran:#?}");

    project.settings("tools:\n  stamp:\n    approval: {default: ask, allow: [{name: x}]}\n");
    let ran = command::riverse(&project, &["call", "stamp", "name=one", "--yes"]);
    assert_eq!(ran.code, 1, "{ran:#?}");
    assert_eq!(
        ran.stderr,
        format!(
            "riverse: {}: tools.stamp.approval.allow: unknown key; an approval takes default, auto, ask and deny\n",
            file.display()
        )
    );
    assert_eq!(stamps(&project), Vec::<String>::new(), "no call ran");
}

/// The file_write policy of docs/security.md, "Approvals", as `riverse init
/// --tools standard` writes file_write's section otherwise.
const DOCS_FILE_WRITE: &str = "  file_write: {approval: {default: ask, auto: [{path: {prefix: \"notes/\"}}], \
     deny: [{path: {regex: \".*\\\\.(sh|py)\"}}]}, sandbox: {write: [\".\"]}}\n";

/// `riverse --dir demo call --json file_write path=PATH` in `project`, its
/// home the project's parent (`~/demo` is the project), approving what asks
/// when `yes`: the decision recorded, and whether it ran.
fn write_as(project: &Project, path: &str, yes: bool) -> (String, bool) {
    let path_arg = format!("path={path}");
    let mut args = vec!["--dir", "demo", "call", "--json", "file_write", &path_arg];
    args.push("content=#!/bin/sh\necho pwned\n");
    if yes {
        args.push("--yes");
    }
    let mut command = command::riverse_in(project.path(), &args);
    command.env("HOME", project.path());
    let ran = command::run(command);
    let printed: Value =
        serde_json::from_str(&ran.stdout).unwrap_or_else(|err| panic!("{path:?}: {err}: {ran:#?}"));
    let decision = printed["approval"]["decision"].as_str().unwrap_or("none");
    (decision.to_owned(), printed["success"] == json!(true))
}

/// Every file under `dir`, relative to it, sorted.
fn files_under(dir: &std::path::Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(at) = pending.pop() {
        for entry in std::fs::read_dir(&at).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() && !path.is_symlink() {
                pending.push(path);
            } else {
                let relative = path.strip_prefix(dir).unwrap();
                found.push(relative.display().to_string());
            }
        }
    }
    found.sort();
    found
}

// Issue 41, finding 2: with the docs' policy, `notes/b.sh/` was allowed by
// the auto rule, missed by the deny rule, and written as `notes/b.sh`.
#[test]
fn no_spelling_of_a_denied_path_is_written_even_with_yes_and_a_plain_one_under_auto_is() {
    let project = Project::new();
    command::riverse(&project, &["init", "demo", "--tools", "standard"]).exits(0);
    let settings = project.path().join("demo/settings.yaml");
    let text = std::fs::read_to_string(&settings).unwrap();
    let standard = "  file_write: {approval: ask, sandbox: {write: [\".\"]}}\n";
    assert!(text.contains(standard), "{text}");
    let text = text.replacen(standard, DOCS_FILE_WRITE, 1).replacen(
        "dependencies: auto",
        "dependencies: off",
        1,
    );
    std::fs::write(&settings, text).unwrap();
    project.file("demo/scripts/run.sh", "echo hi\n");
    std::fs::create_dir(project.path().join("demo/notes")).unwrap();
    std::os::unix::fs::symlink("../scripts", project.path().join("demo/notes/link")).unwrap();
    std::os::unix::fs::symlink(
        "../scripts/run.sh",
        project.path().join("demo/notes/innocent.md"),
    )
    .unwrap();

    let demo = project.path().join("demo").display().to_string();
    let mut denied = Vec::new();
    for name in ["b.sh", "d.py"] {
        denied.extend([
            format!("notes/{name}"),
            format!("notes/{name}/"),
            format!("notes/{name}/."),
            format!("notes//{name}//"),
            format!("notes/./{name}"),
            format!("./notes/{name}/"),
            format!("notes/new/../{name}/"),
            format!(" notes/{name}\n"),
            format!("{demo}/notes/{name}/"),
            format!("{demo}//notes/./{name}"),
            format!("~/demo/notes/{name}/."),
            format!("../demo/notes/{name}/"),
            format!("notes/link/../notes/{name}/"),
        ]);
    }
    denied.extend(["notes/e.PY/", "notes/innocent.md"].map(str::to_owned));
    for path in &denied {
        assert_eq!(
            write_as(&project, path, /*yes*/ true),
            ("denied".to_owned(), false),
            "{path:?}"
        );
    }
    // These fall to the default, ask, which nobody answers here.
    for path in [
        "notes/link/planted.txt",
        "notes/a\u{200B}.md",
        "notes/cafe\u{301}.md",
    ] {
        assert_eq!(
            write_as(&project, path, /*yes*/ false),
            ("unanswered".to_owned(), false),
            "{path:?}"
        );
    }
    for path in ["notes/a.md", "notes//b.md/"] {
        assert_eq!(
            write_as(&project, path, /*yes*/ false),
            ("allowed".to_owned(), true),
            "{path:?}"
        );
    }

    let demo = project.path().join("demo");
    assert_eq!(
        files_under(&demo.join("notes")),
        ["a.md", "b.md", "innocent.md", "link"]
    );
    assert_eq!(files_under(&demo.join("scripts")), ["run.sh"]);
    assert_eq!(
        std::fs::read_to_string(demo.join("scripts/run.sh")).unwrap(),
        "echo hi\n"
    );
}
