//! What running tools show and ask in `riverse chat`, `ask` and `call`:
//! progress bars and log lines, questions, saved content, bounded logs.

use std::path::Path;

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use pretty_assertions::assert_eq;
use riverse_test_support::Project;
use riverse_test_support::openai::{OpenAiServer, ev_text, ev_tool_call};
use serde_json::{Value, json};

use super::ask::{project_for, riverse, text};
use super::terminal::Terminal;

/// Logs at three levels, reports 1 of 3, and waits for the file `go` to
/// appear before it finishes: the test looks at the screen meanwhile.
fn reporter(go: &Path) -> String {
    format!(
        r#"import os, time
from agent.tools import BaseTool, ToolManifest, ToolResult

class Reporter(BaseTool):
    def manifest(self):
        return ToolManifest(name="reporter", description="Writes the report", parameters={{}})

    def execute(self, params):
        self.log("fetching pages")
        self.log("disk almost full", "warning")
        self.log("raw bytes read", "debug")
        self.progress(1, 3, "page 1 of 3")
        while not os.path.exists({go:?}):
            time.sleep(0.02)
        self.progress(3, 3, "done")
        return ToolResult(True, "report written")
"#
    )
}

/// Asks `message` with one field, and returns what it was told.
const ASKER: &str = r#"from agent.tools import BaseTool, ToolManifest, ToolResult

class Asker(BaseTool):
    def manifest(self):
        return ToolManifest(name="asker", description="Asks the person",
                            parameters={"message": "what to ask", "field": "the field",
                                        "description": "the field's description"})

    def execute(self, params):
        answer = self.ask(params["message"], {params["field"]: params["description"]})
        return ToolResult(True, f"{answer.action}: {answer.content}")
"#;

/// The bytes `chart` draws, as Python writes them.
const CHART_BYTES_PY: &str = r#"b"\x89PNG\r\n\x1a\n" + bytes(range(256))"#;

fn chart_bytes() -> Vec<u8> {
    let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
    bytes.extend(0..=255_u8);
    bytes
}

fn chart() -> String {
    format!(
        r#"from agent.tools import BaseTool, ToolManifest, ToolResult, Image

class Chart(BaseTool):
    def manifest(self):
        return ToolManifest(name="chart", description="Draws a chart", parameters={{}})

    def execute(self, params):
        return ToolResult(True, "drew a chart", content=[Image({CHART_BYTES_PY}, "image/png")])
"#
    )
}

const FLOOD: &str = r#"from agent.tools import BaseTool, ToolManifest, ToolResult

class Flood(BaseTool):
    def manifest(self):
        return ToolManifest(name="flood", description="Logs a lot", parameters={})

    def execute(self, params):
        for n in range(100_000):
            self.log(f"line {n}")
        return ToolResult(True, "flooded")
"#;

fn ask_asker(
    id: &str,
    message: &str,
    field: &str,
    description: &str,
) -> riverse_test_support::openai::Reply {
    ev_tool_call(
        id,
        "asker",
        json!({"message": message, "field": field, "description": description}),
    )
}

/// `riverse chat` in `project` on a terminal, once it prompts, told `line`.
pub(super) fn chat_saying(project: &Project, line: &str) -> Terminal {
    let mut chat = Terminal::spawn({
        let mut command = riverse(project);
        command.arg("chat");
        command
    });
    chat.wait_for_prompt();
    chat.type_keys(&format!("{line}\r"));
    chat
}

/// Ends `chat` with Ctrl-D at its next prompt: it exits with success.
pub(super) fn end_chat(mut chat: Terminal) {
    chat.wait_for_prompt();
    chat.type_keys("\x04");
    assert!(chat.wait().success());
}

/// The lines of `screen` that hold any of `needles`, in order.
fn lines_with<'a>(screen: &'a str, needles: &[&str]) -> Vec<&'a str> {
    screen
        .lines()
        .filter(|line| needles.iter().any(|needle| line.contains(needle)))
        .collect()
}

/// `lines_with`, each call's duration (` (12 ms)`) left out.
fn timeless_lines_with(screen: &str, needles: &[&str]) -> Vec<String> {
    let duration = regex_lite::Regex::new(r" \(\d+ ms\)").unwrap();
    lines_with(screen, needles)
        .into_iter()
        .map(|line| duration.replace(line, "").into_owned())
        .collect()
}

#[test]
fn chat_shows_a_running_tools_bar_and_log_lines_and_clears_the_bar_at_its_end() {
    let server = OpenAiServer::start([
        ev_tool_call("c1", "reporter", json!({})),
        ev_text("The report is ready."),
    ]);
    let project = project_for(&server, "");
    let go = project.path().join("go");
    project.tool("reporter.py", &reporter(&go));
    let chat = chat_saying(&project, "write the report");

    let running = chat.wait_for_text("page 1 of 3");
    let bar = lines_with(&running, &["→ reporter"]);
    assert_eq!(bar.len(), 1, "{running}");
    assert!(
        bar[0].starts_with("  → reporter {} [")
            && bar[0].contains("] 1/3 page 1 of 3")
            && bar[0].contains("#"),
        "the call's line is its bar: {running}"
    );
    assert_eq!(
        lines_with(&running, &["reporter:"]),
        [
            "    reporter: fetching pages",
            "    reporter: warning: disk almost full"
        ],
        "log lines above the bar, debug left out: {running}"
    );

    std::fs::write(&go, "").unwrap();
    let ended = chat.wait_for("the answer and the next prompt", |screen| {
        screen.contains("The report is ready.") && screen.lines().last() == Some(">")
    });
    assert_eq!(
        timeless_lines_with(&ended, &["reporter", "The report is ready."]),
        [
            "    reporter: fetching pages",
            "    reporter: warning: disk almost full",
            "  ✓ reporter {}",
            "The report is ready."
        ],
        "the bar is gone, the ✓ line stays: {ended}"
    );
    end_chat(chat);
    assert_eq!(
        server.requests()[1].tool_results(),
        [("c1".to_owned(), "report written".to_owned())]
    );
}

/// Issue 49: once a call ends its line still shows what it was called
/// with, each long value cut, the line within the terminal's width.
#[test]
fn a_finished_calls_line_in_chat_keeps_its_parameters_cut_to_fit() {
    let long = "A".repeat(300);
    let server = OpenAiServer::start([
        ev_tool_call("c1", "weather", json!({"city": long})),
        ev_tool_call("c2", "weather", json!({"city": ""})),
        ev_text("Done."),
    ]);
    let project = project_for(&server, "");
    let chat = chat_saying(&project, "weather twice");
    let ended = chat.wait_for("the answer and the next prompt", |screen| {
        screen.contains("Done.") && screen.lines().last() == Some(">")
    });
    let cut = format!("{}…", "A".repeat(40));
    assert_eq!(
        timeless_lines_with(&ended, &["✓ weather", "✗ weather"]),
        [
            format!(r#"  ✓ weather {{"city":"{cut}"}}"#),
            r#"  ✗ weather {"city":""}: missing city"#.to_owned(),
        ],
        "{ended}"
    );
    end_chat(chat);
}

#[test]
fn a_question_in_chat_is_answered_at_the_terminal_and_no_declines_a_yes_or_no() {
    let server = OpenAiServer::start([
        ask_asker("c1", "Which city?", "city", "the city to look up"),
        ev_text("Paris it is."),
        ask_asker("c2", "Overwrite report.pdf?", "overwrite", "yes or no"),
        ev_text("Left as it was."),
    ]);
    let project = project_for(&server, "");
    project.tool("asker.py", ASKER);
    let mut chat = chat_saying(&project, "look something up");
    chat.wait_for_text("    the city to look up:");
    let asked = chat.screen();
    assert!(asked.contains("  ? asker asks: Which city?"), "{asked}");
    chat.type_keys("Paris\r");
    chat.wait_for_text("Paris it is.");
    chat.wait_for_prompt();
    chat.type_keys("write the report\r");
    chat.wait_for_text("    yes or no:");
    chat.type_keys("no\r");
    let screen = chat.wait_for_text("Left as it was.");
    assert!(
        screen.contains("    yes or no: no\n    (declined)"),
        "{screen}"
    );
    end_chat(chat);

    let requests = server.requests();
    assert_eq!(
        requests[1].tool_results(),
        [("c1".to_owned(), "accept: {'city': 'Paris'}".to_owned())]
    );
    assert_eq!(
        requests[3].tool_results().last().unwrap(),
        &("c2".to_owned(), "decline: {}".to_owned())
    );
}

#[test]
fn esc_at_a_question_cancels_it_and_the_chat_goes_on() {
    let server = OpenAiServer::start([
        ask_asker("c1", "Which city?", "city", "the city to look up"),
        ev_text("Nobody said."),
        ev_text("Still here."),
    ]);
    let project = project_for(&server, "");
    project.tool("asker.py", ASKER);
    let mut chat = chat_saying(&project, "look something up");
    chat.wait_for_text("    the city to look up:");
    chat.type_keys("Par\x1b");
    let screen = chat.wait_for_text("Nobody said.");
    assert!(screen.contains("    (cancelled)"), "{screen}");
    chat.wait_for_prompt();
    chat.type_keys("hello\r");
    chat.wait_for_text("Still here.");
    end_chat(chat);

    let requests = server.requests();
    assert_eq!(
        requests[1].tool_results(),
        [("c1".to_owned(), "cancel: {}".to_owned())]
    );
    assert_eq!(
        requests[2].roles_and_contents().last().unwrap().1,
        "hello",
        "what was typed at the question did not reach the chat"
    );
}

#[test]
fn ask_cancels_a_question_and_says_so_in_one_line() {
    let server = OpenAiServer::start([
        ask_asker("c1", "Which city?", "city", "the city to look up"),
        ev_text("Nobody answered."),
    ]);
    let project = project_for(&server, "");
    project.tool("asker.py", ASKER);
    let output = riverse(&project)
        .args(["ask", "look it up"])
        .output()
        .unwrap();
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(
        timeless_lines_with(&stderr, &["asker"]),
        [
            r#"  → asker {"message":"Which city?","field":"city","description":"the city to look up"}"#,
            r#"    asker asked "Which city?": no one to answer (cancelled)"#,
            "  ✓ asker",
        ],
        "{stderr}"
    );
    assert_eq!(
        server.requests()[1].tool_results(),
        [("c1".to_owned(), "cancel: {}".to_owned())]
    );
}

#[test]
fn call_shows_log_lines_on_a_piped_stderr_and_no_progress() {
    let project = Project::new();
    let go = project.path().join("go");
    std::fs::write(&go, "").unwrap();
    project.tool("reporter.py", &reporter(&go));
    let output = riverse(&project)
        .args(["call", "reporter"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), "report written\n");
    assert_eq!(
        text(&output.stderr),
        "    reporter: fetching pages\n    reporter: warning: disk almost full\n"
    );
}

#[test]
fn an_image_a_call_returns_is_saved_under_riverse_out_and_never_overwritten() {
    let project = Project::new();
    project.tool("chart.py", &chart());
    let out = project.path().join(".riverse/out");
    for number in [1, 2] {
        let output = riverse(&project).args(["call", "chart"]).output().unwrap();
        assert!(output.status.success(), "{}", text(&output.stderr));
        assert_eq!(text(&output.stdout), "drew a chart\n");
        let saved = out.join(format!("chart-{number}/image-1.png"));
        assert_eq!(
            text(&output.stderr),
            format!("    saved image image/png 264 B: {}\n", saved.display())
        );
        assert_eq!(std::fs::read(&saved).unwrap(), chart_bytes());
    }

    let output = riverse(&project)
        .args(["call", "chart", "--json"])
        .output()
        .unwrap();
    let printed: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        printed,
        json!({"success": true, "data": "drew a chart", "error": "", "saved": [
            {"type": "image", "mime_type": "image/png", "bytes": 264,
             "path": out.join("chart-3/image-1.png")}
        ]})
    );
}

#[test]
fn ask_json_names_where_content_was_saved_in_place_of_its_base64() {
    let server = OpenAiServer::start([
        ev_tool_call("c1", "chart", json!({})),
        ev_text("Here is your chart."),
    ]);
    let project = project_for(&server, "");
    project.tool("chart.py", &chart());
    let output = riverse(&project)
        .args(["ask", "draw it", "--json"])
        .output()
        .unwrap();
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let saved = project.path().join(".riverse/out/chart-1/image-1.png");
    assert_eq!(
        timeless_lines_with(&stderr, &["chart"]),
        [
            "  → chart {}".to_owned(),
            "  ✓ chart".to_owned(),
            format!("    saved image image/png 264 B: {}", saved.display())
        ]
    );
    let mut document: Value = serde_json::from_slice(&output.stdout).unwrap();
    let call = document["tool_calls"][0].as_object_mut().unwrap();
    call.remove("duration_ms");
    assert!(call.remove("call_id").is_some_and(|id| id.is_string()));
    assert_eq!(
        document,
        json!({"answer": "Here is your chart.", "tool_calls": [{
            "tool": "chart", "params": {}, "success": true, "data": "drew a chart", "error": "",
            "saved": [{"type": "image", "mime_type": "image/png", "bytes": 264, "path": saved}]
        }], "skills": []})
    );
    assert_eq!(std::fs::read(&saved).unwrap(), chart_bytes());
}

/// The bound of a call's log lines (riverse_tool::MAX_LOG_LINES), and the
/// line that counts the rest.
fn assert_flood_bounded(stderr: &str) {
    let logged = lines_with(stderr, &["    flood: "]);
    assert_eq!(logged.len(), 1000 + 1, "{}", logged.len());
    assert_eq!(logged[0], "    flood: line 0");
    assert_eq!(logged[999], "    flood: line 999");
    assert_eq!(
        logged[1000],
        "    flood: warning: 99000 more log lines were not shown (a call shows at most 1000)"
    );
}

#[test]
fn a_tool_logging_a_hundred_thousand_lines_shows_the_bound_and_a_count() {
    let project = Project::new();
    project.tool("flood.py", FLOOD);
    let output = riverse(&project).args(["call", "flood"]).output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), "flooded\n");
    assert_flood_bounded(&text(&output.stderr));

    let server = OpenAiServer::start([ev_tool_call("c1", "flood", json!({})), ev_text("Done.")]);
    let project = project_for(&server, "");
    project.tool("flood.py", FLOOD);
    let output = riverse(&project)
        .args(["ask", "flood it"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), "Done.\n");
    assert_flood_bounded(&text(&output.stderr));
}

#[test]
fn call_asks_at_the_terminal() {
    let project = Project::new();
    project.tool("asker.py", ASKER);
    let mut call = Terminal::spawn({
        let mut command = riverse(&project);
        command.args([
            "call",
            "asker",
            "message=Which city?",
            "field=city",
            "description=the city to look up",
        ]);
        command
    });
    call.wait_for_text("    the city to look up:");
    call.type_keys("Oslo\r");
    let screen = call.wait_for_text("accept: {'city': 'Oslo'}");
    assert_eq!(
        screen,
        "  ? asker asks: Which city?\n    the city to look up: Oslo\naccept: {'city': 'Oslo'}"
    );
    assert!(call.wait().success());
}

#[test]
fn a_direct_call_samples_riverses_own_llm() {
    let server = OpenAiServer::start([ev_text("The sky is blue.")]);
    let project = project_for(&server, "");
    project.tool(
        "summary.py",
        r#"from agent.tools import BaseTool, ToolManifest, ToolResult

class Summary(BaseTool):
    def manifest(self):
        return ToolManifest(name="summary", description="Summarises", parameters={})

    def execute(self, params):
        return ToolResult(True, self.sample("Summarise: the sky is blue", max_tokens=20))
"#,
    );
    let output = riverse(&project)
        .args(["call", "summary"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), "The sky is blue.\n");
    assert_eq!(
        server.single_request().roles_and_contents(),
        [("user".to_owned(), "Summarise: the sky is blue".to_owned())]
    );
}

/// A signal that cancels the turn (as Ctrl-C does when no question is
/// asked) withdraws its question: the prompt goes, and what was typed for
/// it with it.
#[test]
fn a_question_withdrawn_with_its_turn_gives_the_terminal_back() {
    let server = OpenAiServer::start([
        ask_asker("c1", "Which city?", "city", "the city to look up"),
        ev_text("Still here."),
    ]);
    let project = project_for(&server, "");
    project.tool("asker.py", ASKER);
    let mut chat = chat_saying(&project, "look something up");
    chat.wait_for_text("    the city to look up:");
    chat.type_keys("Ber");
    kill(Pid::from_raw(chat.pid()), Signal::SIGINT).unwrap();
    let screen = chat.wait_for_prompt();
    assert!(
        screen.contains("    the city to look up: Ber\n    (no longer asked: the call ended)\n"),
        "{screen}"
    );
    assert!(screen.contains("\n(cancelled)\n"), "{screen}");
    chat.type_keys("hello\r");
    chat.wait_for_text("Still here.");
    end_chat(chat);
    assert_eq!(
        server.requests()[1].roles_and_contents()[1..],
        [("user".to_owned(), "hello".to_owned())],
        "the cancelled turn left no history, and what was typed at the question did not reach the chat"
    );
}

/// Issue 49: a line logged while chat waits for input (a tool file saved and
/// reloaded, which prints as it is imported) is printed above the prompt,
/// and the prompt and what was being typed are drawn again beneath it.
#[test]
fn a_line_logged_at_the_prompt_is_printed_above_it_and_the_typing_is_kept() {
    let server = OpenAiServer::start([]);
    let project = project_for(&server, "");
    let mut chat = Terminal::spawn({
        let mut command = riverse(&project);
        command.arg("chat");
        command
    });
    chat.wait_for_prompt();
    chat.type_keys("half typed");
    chat.wait_for_text("> half typed");
    project.tool(
        "noisy.py",
        r#"import sys
from agent.tools import BaseTool, ToolManifest, ToolResult

print("noisy is loading", file=sys.stderr, flush=True)


class Noisy(BaseTool):
    def manifest(self):
        return ToolManifest(name="noisy", description="prints as it loads", parameters={})

    def execute(self, params):
        return ToolResult(True, "quiet now")
"#,
    );
    let screen = chat.wait_for("the log line above the prompt", |screen| {
        screen.contains("noisy is loading") && screen.lines().last() == Some("> half typed")
    });
    let lines: Vec<&str> = screen.lines().collect();
    let logged = lines
        .iter()
        .position(|line| line.contains("noisy is loading"))
        .unwrap();
    assert!(
        !lines[logged].contains("> half typed"),
        "the log line broke the line being typed:\n{screen}"
    );
    chat.type_keys("\x15\x04");
    assert!(chat.wait().success());
}
