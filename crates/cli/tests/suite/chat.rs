//! `riverse chat` with piped input: one message per line.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use pretty_assertions::assert_eq;
use riverse_test_support::openai::{OpenAiServer, ev_status, ev_text, ev_tool_call};
use riverse_test_support::{Project, simple_tool};
use serde_json::json;

use super::ask::{project_for, riverse, text};

/// The lines a child writes on one of its streams, as they come.
struct Lines {
    lines: mpsc::Receiver<String>,
}

impl Lines {
    fn of(stream: impl Read + Send + 'static) -> Self {
        let (sender, lines) = mpsc::channel::<String>();
        std::thread::spawn(move || {
            for line in BufReader::new(stream).lines() {
                let _ = sender.send(line.unwrap_or_default());
            }
        });
        Lines { lines }
    }

    /// Every line still to come, until the stream ends.
    fn rest(self) -> Vec<String> {
        self.lines.iter().collect()
    }

    /// The lines up to the first that contains `needle`; fails after a
    /// minute without one.
    fn wait_for(&self, needle: &str) -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            match self.lines.recv_timeout(Duration::from_secs(60)) {
                Ok(line) => {
                    let found = line.contains(needle);
                    seen.push(line);
                    if found {
                        return seen;
                    }
                }
                Err(_) => panic!("no {needle:?} yet; saw {seen:?}"),
            }
        }
    }
}

fn chat(project: &Project, input: &str) -> Output {
    chat_bytes(project, input.as_bytes())
}

fn chat_bytes(project: &Project, input: &[u8]) -> Output {
    let mut child = spawn_chat(project);
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

/// `riverse chat` in `project`, every stream piped.
fn spawn_chat(project: &Project) -> std::process::Child {
    riverse(project)
        .arg("chat")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Issue 13: a line that is not UTF-8 is reported and skipped; the session
/// goes on.
#[test]
fn a_line_that_is_not_utf8_is_reported_and_skipped() {
    let server = OpenAiServer::start([ev_text("Hello."), ev_text("Still here.")]);
    let project = project_for(&server, "");
    let output = chat_bytes(&project, b"hi\n\xff\nagain\n");
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(text(&output.stdout), "Hello.\nStill here.\n");
    assert!(
        stderr.contains("riverse: line 2 of standard input is not UTF-8; skipped"),
        "{stderr}"
    );
    assert_eq!(server.requests().len(), 2);
}

/// Issue 49: a chat says at its start how many tool files failed to load,
/// and where to see why.
#[test]
fn chat_says_how_many_tool_files_failed_to_load() {
    let server = OpenAiServer::start([ev_text("Hello.")]);
    let project = project_for(&server, "");
    project
        .fixture("syntax_error.py")
        .fixture("missing_module.py");
    let output = chat(&project, "hi\n");
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(text(&output.stdout), "Hello.\n");
    assert!(
        stderr.contains("2 tool files failed to load: riverse tools shows why\n"),
        "{stderr}"
    );
}

#[test]
fn each_line_is_a_message_and_the_history_carries_over() {
    let server = OpenAiServer::start([
        ev_tool_call("c1", "weather", json!({"city": "Tokyo"})),
        ev_text("Sunny in Tokyo."),
        ev_text("You asked about Tokyo."),
    ]);
    let project = project_for(&server, "");
    let output = chat(&project, "Weather in Tokyo?\n\nWhich city was it?\n");
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(
        text(&output.stdout),
        "Sunny in Tokyo.\nYou asked about Tokyo.\n"
    );
    assert!(
        stderr.contains("→ weather") && stderr.contains("✓ weather ("),
        "{stderr}"
    );

    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    let contents: Vec<String> = requests[2]
        .roles_and_contents()
        .into_iter()
        .skip(1)
        .map(|(_, c)| c)
        .collect();
    assert_eq!(
        contents,
        [
            "Weather in Tokyo?",
            "",
            "Tokyo: 21°C, sunny",
            "Sunny in Tokyo.",
            "Which city was it?"
        ]
        .map(String::from)
    );
}

#[test]
fn slash_commands_list_tools_reset_the_conversation_and_exit() {
    let server = OpenAiServer::start([ev_text("first"), ev_text("second")]);
    let project = project_for(&server, "");
    let output = chat(
        &project,
        "hello\n/reset\nagain\n/tools\n/nonsense\n/exit\nnever sent\n",
    );
    let stdout = text(&output.stdout);
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(
        stdout,
        "first\nsecond\nweather: Get the current weather of a city\n"
    );
    assert!(stderr.contains("(conversation cleared)"), "{stderr}");
    assert!(stderr.contains("unknown command /nonsense"), "{stderr}");
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "nothing after /exit is sent");
    let after_reset: Vec<String> = requests[1]
        .roles_and_contents()
        .into_iter()
        .map(|(r, _)| r)
        .collect();
    assert_eq!(after_reset, ["system", "user"]);
}

#[test]
fn an_llm_error_ends_the_turn_but_not_the_chat() {
    let server = OpenAiServer::start([ev_status(401, "bad key"), ev_text("fine now")]);
    let project = project_for(&server, "");
    let output = chat(&project, "one\ntwo\n");
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("401 Unauthorized: bad key"), "{stderr}");
    assert_eq!(text(&output.stdout), "fine now\n");
    let roles: Vec<String> = server.requests()[1]
        .roles_and_contents()
        .into_iter()
        .map(|(r, _)| r)
        .collect();
    assert_eq!(roles, ["system", "user"], "a failed turn leaves no history");
}

#[test]
fn ctrl_c_cancels_the_running_turn_and_the_chat_goes_on() {
    let server = OpenAiServer::start([
        ev_tool_call("c1", "sleeper", json!({})),
        ev_text("next answer"),
    ]);
    let project = project_for(&server, "");
    project.tool(
        "sleeper.py",
        &simple_tool(
            "sleeper",
            "import time\ntime.sleep(60)\nreturn ToolResult(True, 'late')",
        ),
    );
    let Session {
        mut child,
        mut stdin,
        stdout,
        stderr,
    } = Session::start(&project);
    writeln!(stdin, "sleep please").unwrap();
    stderr.wait_for("→ sleeper");
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
    stderr.wait_for("(cancelled)");
    writeln!(stdin, "still there?").unwrap();
    drop(stdin);
    assert_eq!(child.wait().unwrap().code(), Some(0));
    assert_eq!(stdout.rest(), ["next answer"]);
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let last: Vec<String> = requests[1]
        .roles_and_contents()
        .into_iter()
        .map(|(_, c)| c)
        .collect();
    assert_eq!(
        last[1..],
        ["still there?".to_owned()],
        "the cancelled turn left no history"
    );
}

/// A `riverse chat` running with piped streams.
struct Session {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: Lines,
    stderr: Lines,
}

impl Session {
    fn start(project: &Project) -> Self {
        let mut child = spawn_chat(project);
        Session {
            stdin: child.stdin.take().unwrap(),
            stdout: Lines::of(child.stdout.take().unwrap()),
            stderr: Lines::of(child.stderr.take().unwrap()),
            child,
        }
    }

    /// Starts the chat and says "hi"; the model's first scripted answer must
    /// be "Hello.". An answer means the chat is up, and so is its watch on
    /// the tools.
    fn greeted(project: &Project) -> Self {
        let mut session = Session::start(project);
        writeln!(session.stdin, "hi").unwrap();
        session.stdout.wait_for("Hello.");
        session
    }
}

/// Issue 12: a tool file saved while the chat runs is in the next turn, and
/// the chat says so.
#[test]
fn a_tool_added_during_the_chat_is_in_the_next_turn() {
    let server = OpenAiServer::start([
        ev_text("Hello."),
        ev_tool_call("c1", "added", json!({})),
        ev_text("The new tool said: fresh."),
    ]);
    let project = project_for(&server, "");
    let Session {
        mut child,
        mut stdin,
        stdout,
        stderr,
    } = Session::greeted(&project);
    project.tool(
        "added.py",
        &simple_tool("added", "return ToolResult(True, 'fresh')"),
    );
    stderr.wait_for("tools changed: +added");
    writeln!(stdin, "try the new tool").unwrap();
    stdout.wait_for("The new tool said: fresh.");
    drop(stdin);
    assert!(child.wait().unwrap().success());
    let requests = server.requests();
    assert!(
        !requests[0].tool_names().contains(&"added".to_owned()),
        "{:?}",
        requests[0].tool_names()
    );
    assert!(
        requests[1].tool_names().contains(&"added".to_owned()),
        "{:?}",
        requests[1].tool_names()
    );
    assert_eq!(
        requests[2].tool_results(),
        [("c1".to_owned(), "fresh".to_owned())]
    );
}

/// Issue 12: a settings change reaches the tools; a malformed one is
/// reported and the running settings stay.
#[test]
fn settings_saved_during_the_chat_apply_unless_malformed() {
    let server = OpenAiServer::start([ev_text("Hello."), ev_text("Still here.")]);
    let project = project_for(&server, "");
    let Session {
        mut child,
        mut stdin,
        stdout,
        stderr,
    } = Session::greeted(&project);
    let settings = project.path().join("settings.yaml");
    let running = std::fs::read_to_string(&settings).unwrap();
    std::fs::write(
        &settings,
        format!("{running}tools:\n  weather:\n    enabled: false\n"),
    )
    .unwrap();
    stderr.wait_for("tools changed: -weather");
    std::fs::write(&settings, "openai: [\n").unwrap();
    let seen = stderr.wait_for("settings not applied, the running ones stay:");
    assert!(
        seen.last().unwrap().contains("settings.yaml"),
        "names the file: {seen:?}"
    );
    writeln!(stdin, "still there?").unwrap();
    stdout.wait_for("Still here.");
    drop(stdin);
    assert!(child.wait().unwrap().success());
    let requests = server.requests();
    assert!(requests[0].tool_names().contains(&"weather".to_owned()));
    assert!(
        !requests[1].tool_names().contains(&"weather".to_owned()),
        "the running settings (weather disabled) stayed: {:?}",
        requests[1].tool_names()
    );
}
