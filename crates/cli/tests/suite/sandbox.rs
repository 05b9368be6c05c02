//! `python.sandbox` and `tools.<name>.sandbox` against hostile tools, through
//! the real binary: each way out is refused, the call's error begins with the
//! rule it broke, the forbidden effect does not happen (the file outside is
//! unchanged, the secret is not in the output, no process is left), and the
//! project's other tools still answer.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use riverse_test_support::{Project, is_gone, wait_gone};
use serde_json::{Value, json};

use super::command::{McpSession, Ran, riverse_in, run};

/// What a hostile tool file begins with: one class per tool, made by
/// `tool(name, act)`, and what the tools do.
const HOSTILE_HEADER: &str = r#""""Hostile tools: each tries one way out of its sandbox."""

import os
import signal
import socket
import subprocess
import time

from agent.tools import BaseTool, ToolManifest, ToolResult

PARAMETERS = {
    "path": "a file",
    "target": "a file outside",
    "port": "a TCP port",
    "command": "a shell command",
    "pid": "a process id",
    "mode": "read or write",
}
# A bomb stops by itself past this many processes: a sandbox that did not
# hold it fails the test, not the machine.
MOST = 200


def tool(name, act):
    class Hostile(BaseTool):
        def manifest(self):
            return ToolManifest(name=name, description=f"hostile: {name}", parameters=PARAMETERS)

        def execute(self, params):
            return ToolResult(success=True, data=str(act(params)))

    Hostile.__name__ = Hostile.__qualname__ = "Tool_" + name
    return Hostile


def read(path):
    with open(path) as file:
        return file.read()


def write(path):
    with open(path, "a") as file:
        file.write("pwned\n")
    return "written"


def access(params):
    return read(params["path"]) if params.get("mode") == "read" else write(params["path"])


def link_in_notes(target, name):
    link = os.path.join("notes", name)
    if os.path.lexists(link):
        os.unlink(link)
    os.symlink(target, link)
    return link


def hard_link(params):
    if os.path.lexists("notes/hard"):
        os.unlink("notes/hard")
    os.link(params["target"], "notes/hard")
    return write("notes/hard")


def connect(params):
    with socket.create_connection(("127.0.0.1", int(params["port"])), timeout=10):
        return "connected"


def listen_after_connect(params):
    connect(params)
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        return "listening"


def shell(params):
    ran = subprocess.run(["sh", "-c", params["command"]], capture_output=True, text=True, timeout=30)
    return f"status {ran.returncode}\n{ran.stdout}{ran.stderr}"


def kill(params):
    pid = int(params["pid"]) if params.get("pid") else os.getppid()
    os.kill(pid, signal.SIGTERM)
    return f"signalled {pid}"


def bomb(start):
    started = []
    try:
        while len(started) < MOST:
            started.append(start())
        return f"started {len(started)} processes"
    finally:
        with open("notes/pids", "a") as file:
            file.write("".join(f"{pid}\n" for pid in started))


def fork_sleeper():
    pid = os.fork()
    if pid == 0:
        try:
            time.sleep(600)
        finally:
            os._exit(0)
    return pid


def hog(params):
    return len(bytearray(4 * 1024**3))


def big_file(params):
    with open("notes/big", "wb") as file:
        for _ in range(4):
            file.write(b"x" * 1024 * 1024)
    return "written"


def burn(params):
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        pass
    return "still running after a minute"
"#;

/// The hostile tools of `agent/tools/hostile.py`.
const HOSTILE_TOOLS: &str = r#"
Read = tool("read", lambda params: read(params["path"]))
Write = tool("write", lambda params: write(params["path"]))
ReadThroughSymlink = tool("read_through_symlink", lambda params: read(link_in_notes(params["target"], "secret")))
WriteThroughSymlink = tool("write_through_symlink", lambda params: write(link_in_notes(params["target"], "link")))
HardLink = tool("hard_link", hard_link)
Rename = tool("rename", lambda params: os.rename(params["target"], "notes/moved"))
Connect = tool("connect", connect)
ListenAfterConnect = tool("listen_after_connect", listen_after_connect)
Shell = tool("shell", shell)
Kill = tool("kill", kill)
ForkBomb = tool("fork_bomb", lambda params: bomb(fork_sleeper))
SpawnBomb = tool("spawn_bomb", lambda params: bomb(lambda: subprocess.Popen(["sleep", "600"]).pid))
Hog = tool("hog", hog)
BigFile = tool("big_file", big_file)
Burn = tool("burn", burn)
"#;

const SECRET: &str = "-----BEGIN OPENSSH PRIVATE KEY----- sk-SANDBOX-SECRET\n";
const OTHER_SECRET: &str = "sk-OTHER-PROJECT-SECRET\n";
const ORIGINAL: &str = "original\n";

/// A project with the hostile tools and the echo tool, and, outside it,
/// what the tools are after: a fake home with `.ssh/id_rsa` (the `HOME` of
/// every riverse run), a file of the test's (`target.txt`), and another
/// project with a file of its own.
struct Scene {
    project: Project,
    other: Project,
    outside: tempfile::TempDir,
}

impl Scene {
    fn new(settings: &str) -> Self {
        let project = Project::new();
        project
            .fixture("echo.py")
            .tool("hostile.py", &format!("{HOSTILE_HEADER}{HOSTILE_TOOLS}"))
            .settings(settings);
        let other = Project::new();
        other.file("notes/private.txt", OTHER_SECRET);
        let outside = tempfile::Builder::new()
            .prefix("riverse-sandbox-outside-")
            .tempdir()
            .unwrap();
        let scene = Scene {
            project,
            other,
            outside,
        };
        std::fs::create_dir_all(scene.home().join(".ssh")).unwrap();
        std::fs::write(scene.secret(), SECRET).unwrap();
        std::fs::write(scene.target(), ORIGINAL).unwrap();
        scene
    }

    fn settings(&self, yaml: &str) {
        self.project.settings(yaml);
    }

    /// The project's directory, as the kernel names it.
    fn dir(&self) -> PathBuf {
        self.project.path().canonicalize().unwrap()
    }

    fn home(&self) -> PathBuf {
        self.outside.path().canonicalize().unwrap().join("home")
    }

    fn secret(&self) -> PathBuf {
        self.home().join(".ssh/id_rsa")
    }

    fn target(&self) -> PathBuf {
        self.outside
            .path()
            .canonicalize()
            .unwrap()
            .join("target.txt")
    }

    fn other_file(&self) -> PathBuf {
        self.other
            .path()
            .canonicalize()
            .unwrap()
            .join("notes/private.txt")
    }

    /// `riverse ARGS` in the project, with the fake home, and `env`.
    fn riverse(&self, args: &[&str], env: &[(&str, &str)]) -> Ran {
        let mut command = riverse_in(self.project.path(), args);
        command.env("HOME", self.home());
        for (key, value) in env {
            command.env(key, value);
        }
        run(command)
    }

    /// `riverse mcp` on stdio in the project, with the fake home: several
    /// calls served by one riverse, so that its pool (and a worker it
    /// replaced) lives between them.
    fn mcp(&self) -> McpSession {
        let mut command = riverse_in(self.project.path(), &["mcp"]);
        command.env("HOME", self.home());
        McpSession::start(command)
    }

    /// `riverse call TOOL ARGS --json`: the exit status and the result.
    fn call(&self, tool: &str, args: &[&str]) -> (i32, Value) {
        self.call_with(&[], tool, args)
    }

    /// [`Scene::call`] with `env`.
    fn call_with(&self, env: &[(&str, &str)], tool: &str, args: &[&str]) -> (i32, Value) {
        let mut all = vec!["call", tool];
        all.extend_from_slice(args);
        all.push("--json");
        let ran = self.riverse(&all, env);
        let result = serde_json::from_str(&ran.stdout)
            .unwrap_or_else(|err| panic!("{tool} {args:?}: no JSON result ({err}): {ran:#?}"));
        (ran.code, result)
    }

    /// The data of a call that succeeded.
    fn succeeds(&self, tool: &str, args: &[&str]) -> String {
        let (code, result) = self.call(tool, args);
        assert_eq!(
            (code, &result["success"]),
            (0, &json!(true)),
            "{tool} {args:?}: {result}"
        );
        result["data"].as_str().unwrap().to_owned()
    }

    /// The error of a call that failed as a tool's error does.
    fn refused(&self, tool: &str, args: &[&str]) -> String {
        let (code, result) = self.call(tool, args);
        assert_eq!(
            (code, &result["success"], &result["failure"]),
            (1, &json!(false), &json!("tool_error")),
            "{tool} {args:?}: {result}"
        );
        let error = result["error"].as_str().unwrap().to_owned();
        for secret in [SECRET, OTHER_SECRET] {
            assert!(
                !result.to_string().contains(secret.trim()),
                "{tool} {args:?}: {result}"
            );
        }
        error
    }

    /// The echo tool of the same project still answers.
    fn answers(&self) {
        assert_eq!(self.succeeds("echo", &["text=still here"]), "still here");
    }

    fn target_is_untouched(&self, case: &str) {
        assert_eq!(
            std::fs::read_to_string(self.target()).unwrap(),
            ORIGINAL,
            "{case}: the file outside changed"
        );
    }
}

/// The errors that did not begin as expected: gathered, so that one wrong
/// message does not hide the cases after it, and reported together at the
/// end of the test. What a rule forbids is asserted at once, case by case.
#[derive(Default)]
struct Wrong(Vec<String>);

impl Wrong {
    fn begins(&mut self, case: &str, error: &str, start: &str) {
        if !error.starts_with(start) {
            self.0.push(format!(
                "{case}:\n  expected the error to begin {start:?}\n  it is                       {error:?}"
            ));
        }
    }

    fn none(self) {
        assert!(
            self.0.is_empty(),
            "{} error(s) began wrong:\n{}",
            self.0.len(),
            self.0.join("\n")
        );
    }
}

fn sandbox_settings(fork: bool, sandbox: &str) -> String {
    format!("python:\n  fork: {fork}\n  sandbox: {sandbox}\n")
}

/// Secrets beside the project (`~/.ssh`, another project's files) can't be
/// read, directly, through a symlink the tool made in its write directory, or
/// by a program the tool runs; with workers forked and fresh.
#[test]
fn reading_outside_the_read_list_is_refused_and_shows_nothing() {
    let scene = Scene::new("");
    let mut wrong = Wrong::default();
    let secret = scene.secret().display().to_string();
    let other = scene.other_file().display().to_string();
    let target = scene.target().display().to_string();
    for fork in [true, false] {
        scene.settings(&sandbox_settings(
            fork,
            r#"{read: ["."], write: [notes], network: false}"#,
        ));
        let reading = |shown: &str| {
            format!(
                "sandbox: reading {shown} is outside python.sandbox.read (execute() raised PermissionError: "
            )
        };
        let cases = [
            ("read", format!("path={secret}"), reading(&secret)),
            ("read", format!("path={other}"), reading(&other)),
            (
                "read_through_symlink",
                format!("target={secret}"),
                reading(&format!("{secret} (notes/secret)")),
            ),
        ];
        for (tool, arg, start) in cases {
            let case = format!("fork: {fork}, {tool} {arg}");
            let error = scene.refused(tool, &[&arg]);
            wrong.begins(&case, &error, &start);
            scene.answers();
        }
        // What the sandbox allows still works: the project's own files.
        assert_eq!(
            scene.succeeds(
                "read",
                &[&format!("path={}/settings.yaml", scene.dir().display())]
            ),
            std::fs::read_to_string(scene.project.path().join("settings.yaml")).unwrap()
        );

        // A program the tool runs is held by the same rules.
        let command = format!("command=cat $HOME/.ssh/id_rsa {secret} {other}; echo x >> {target}");
        let output = scene.succeeds("shell", &[&command]);
        assert!(!output.contains(SECRET.trim()), "fork: {fork}: {output}");
        assert!(
            !output.contains(OTHER_SECRET.trim()),
            "fork: {fork}: {output}"
        );
        for denied in [&secret, &other, &target] {
            assert!(
                output.contains(&format!("{denied}: Permission denied")),
                "fork: {fork}: {output}"
            );
        }
        scene.target_is_untouched(&format!("fork: {fork}, shell"));
        scene.answers();
    }
    wrong.none();
}

/// A file outside the write list can't be written, however the tool names it:
/// plainly, through `..`, through a symlink in its write directory, through a
/// hard link it makes there, by moving it there, through `/proc/self/root`;
/// nor can the project's own settings, which it may read.
#[test]
fn writing_outside_the_write_list_is_refused_however_the_path_is_spelled() {
    let scene = Scene::new("");
    let mut wrong = Wrong::default();
    let target = scene.target().display().to_string();
    let outside_name = scene
        .target()
        .parent()
        .unwrap()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let dotted = format!("notes/../../{outside_name}/target.txt");
    let settings_file = format!("{}/settings.yaml", scene.dir().display());
    let through_proc = format!("/proc/self/root{target}");
    let writing = |shown: &str| {
        format!(
            "sandbox: writing {shown} is outside python.sandbox.write (execute() raised PermissionError: "
        )
    };
    let linking = format!(
        "sandbox: linking or moving {target} is outside python.sandbox.write (execute() raised "
    );
    for fork in [true, false] {
        let settings = sandbox_settings(fork, r#"{read: ["."], write: [notes], network: false}"#);
        scene.settings(&settings);
        let cases = [
            ("write", format!("path={target}"), writing(&target)),
            (
                "write",
                format!("path={dotted}"),
                writing(&format!("{target} ({dotted})")),
            ),
            (
                "write_through_symlink",
                format!("target={target}"),
                writing(&format!("{target} (notes/link)")),
            ),
            ("hard_link", format!("target={target}"), linking.clone()),
            ("rename", format!("target={target}"), linking.clone()),
            (
                "write",
                format!("path={through_proc}"),
                writing(&format!("{target} ({through_proc})")),
            ),
            (
                "write",
                format!("path={settings_file}"),
                writing(&settings_file),
            ),
        ];
        for (tool, arg, start) in cases {
            let case = format!("fork: {fork}, {tool} {arg}");
            let error = scene.refused(tool, &[&arg]);
            wrong.begins(&case, &error, &start);
            scene.target_is_untouched(&case);
            assert_eq!(
                std::fs::read_to_string(scene.project.path().join("settings.yaml")).unwrap(),
                settings,
                "{case}"
            );
            for made in ["notes/hard", "notes/moved"] {
                assert!(
                    !scene.project.path().join(made).exists(),
                    "{case}: {made} exists"
                );
            }
            scene.answers();
        }
        // Inside the write list, writing works.
        assert_eq!(scene.succeeds("write", &["path=notes/mine.txt"]), "written");
    }
    assert_eq!(
        std::fs::read_to_string(scene.project.path().join("notes/mine.txt")).unwrap(),
        "pwned\npwned\n"
    );
    wrong.none();
}

fn listener() -> (TcpListener, u16) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    (listener, port)
}

fn was_reached(listener: &TcpListener) -> bool {
    match listener.accept() {
        Ok(_) => true,
        Err(err) if err.kind() == std::io::ErrorKind::WouldBlock => false,
        Err(err) => panic!("accept: {err}"),
    }
}

/// `network: false` allows no TCP connection, a list of ports only those; a
/// port on the list connects.
#[test]
fn connecting_to_a_port_outside_the_network_rule_is_refused() {
    let (closed, closed_port) = listener();
    let (open, open_port) = listener();
    let scene = Scene::new(&sandbox_settings(true, "{network: false}"));
    let mut wrong = Wrong::default();
    let refused = |allowed: &str| {
        format!(
            "sandbox: connecting to port {closed_port} is outside python.sandbox.network ({allowed}) (execute() raised PermissionError: "
        )
    };
    let port = format!("port={closed_port}");

    let error = scene.refused("connect", &[&port]);
    wrong.begins("network: false", &error, &refused("no port"));
    assert!(
        !was_reached(&closed),
        "network: false: the port was reached"
    );
    scene.answers();

    scene.settings(&sandbox_settings(
        true,
        &format!("{{network: [{open_port}]}}"),
    ));
    let error = scene.refused("connect", &[&port]);
    wrong.begins(
        &format!("network: [{open_port}]"),
        &error,
        &refused(&format!("ports {open_port}")),
    );
    assert!(
        !was_reached(&closed),
        "network: [{open_port}]: the port was reached"
    );
    scene.answers();

    assert_eq!(
        scene.succeeds("connect", &[&format!("port={open_port}")]),
        "connected"
    );
    assert!(was_reached(&open), "the allowed port was not reached");
    wrong.none();
}

/// A listening socket is refused under a list of ports (they are for
/// connecting), and the refusal is not blamed on the connection the tool
/// made before to a port on the list.
#[test]
fn a_refused_listen_after_an_allowed_connect_is_not_called_a_connect() {
    let (_open, open_port) = listener();
    let scene = Scene::new(&sandbox_settings(
        true,
        &format!("{{network: [{open_port}]}}"),
    ));
    let error = scene.refused("listen_after_connect", &[&format!("port={open_port}")]);
    assert!(
        !error.contains(&format!("connecting to port {open_port} is outside")),
        "the allowed connection is named as the broken rule: {error}"
    );
    scene.answers();
}

/// The processes, other than this test's, that run in `dir` or name it.
fn processes_of(dir: &Path) -> Vec<String> {
    let me = std::process::id().to_string();
    let needle = dir.display().to_string();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid = entry.file_name().into_string().ok()?;
            if pid == me || !pid.bytes().all(|byte| byte.is_ascii_digit()) {
                return None;
            }
            if is_gone(pid.parse().ok()?) {
                return None;
            }
            let cwd = std::fs::read_link(entry.path().join("cwd")).ok();
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            (cwd.as_deref() == Some(dir) || cmdline.contains(&needle))
                .then(|| format!("{pid}: {cmdline}"))
        })
        .collect()
}

fn no_process_left_in(dir: &Path, case: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let left = processes_of(dir);
        if left.is_empty() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{case}: processes left behind: {left:#?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A fork bomb, of `fork()` or of programs, stops at `processes`, and when
/// the call is over none of its processes is left.
#[test]
fn a_fork_bomb_stops_at_the_process_limit_and_leaves_nothing() {
    let scene = Scene::new("");
    let mut wrong = Wrong::default();
    let pids_file = scene.project.path().join("notes/pids");
    for fork in [true, false] {
        scene.settings(&sandbox_settings(fork, "{write: [notes], processes: 16}"));
        for tool in ["fork_bomb", "spawn_bomb"] {
            let case = format!("fork: {fork}, {tool}");
            let _ = std::fs::remove_file(&pids_file);
            let error = scene.refused(tool, &[]);
            wrong.begins(
                &case,
                &error,
                "sandbox: a new process past python.sandbox.processes (16) (execute() raised BlockingIOError: ",
            );
            let pids: Vec<i32> = std::fs::read_to_string(&pids_file)
                .unwrap_or_default()
                .lines()
                .map(|line| line.parse().unwrap())
                .collect();
            assert!(
                !pids.is_empty() && pids.len() < 16,
                "{case}: it started {} processes",
                pids.len()
            );
            for pid in pids {
                assert!(wait_gone(pid), "{case}: process {pid} is left");
            }
            no_process_left_in(&scene.dir(), &case);
            scene.answers();
            let status = Command::new("true").status().unwrap();
            assert!(
                status.success(),
                "{case}: the machine can't start a process"
            );
        }
    }
    wrong.none();
}

/// The pids cgroup that holds a root's sandbox is Riverse's own, and goes
/// with the riverse process that made it.
#[test]
fn the_pids_cgroup_of_a_sandbox_goes_with_its_riverse() {
    let scene = Scene::new(&sandbox_settings(true, "{processes: 16}"));
    let mut riverse = riverse_in(scene.project.path(), &["call", "echo", "text=hi"]);
    let child = riverse
        .env("HOME", scene.home())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    let prefix = format!("riverse-{pid}-");
    let left = || -> Vec<String> {
        std::fs::read_dir("/sys/fs/cgroup/pids")
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|entry| entry.file_name().into_string().ok())
            .filter(|name| name.starts_with(&prefix))
            .collect()
    };
    let deadline = Instant::now() + Duration::from_secs(5);
    while !left().is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        left(),
        Vec::<String>::new(),
        "cgroups of riverse {pid}, which has exited"
    );
}

/// Memory, file size and CPU time past their limits, each named; the worker
/// CPU time ended is replaced, and the calls after it are served.
#[test]
fn memory_file_size_and_cpu_time_stop_at_their_limits() {
    let scene = Scene::new(&sandbox_settings(
        true,
        "{write: [notes], memory_mb: 256, file_size_mb: 1, cpu_seconds: 1}",
    ));
    let mut wrong = Wrong::default();

    let error = scene.refused("hog", &[]);
    wrong.begins(
        "hog",
        &error,
        "sandbox: memory past python.sandbox.memory_mb (256 MB) (execute() raised MemoryError",
    );
    scene.answers();

    let error = scene.refused("big_file", &[]);
    wrong.begins(
        "big_file",
        &error,
        "sandbox: a file written past python.sandbox.file_size_mb (1 MB) (execute() raised OSError: [Errno 27] ",
    );
    let written = std::fs::metadata(scene.project.path().join("notes/big"))
        .unwrap()
        .len();
    assert!(written <= 1024 * 1024, "{written} bytes were written");
    scene.answers();

    let cpu = "sandbox: CPU time past python.sandbox.cpu_seconds (1 s, a worker's in all): \
               tool \"burn\" crashed: the worker was killed by signal 24 (SIGXCPU); \
               a fresh worker will serve later calls";
    let (code, result) = scene.call("burn", &[]);
    assert_eq!(
        (code, &result["success"], &result["failure"]),
        (1, &json!(false), &json!("crashed")),
        "{result}"
    );
    wrong.begins("burn", result["error"].as_str().unwrap(), cpu);
    scene.answers();

    // In one riverse: the fresh worker serves the next call, and has a CPU
    // budget of its own.
    let mut session = scene.mcp();
    for round in 1..=2 {
        let (succeeded, text) = session.call("burn", json!({}));
        assert!(!succeeded, "round {round}: {text}");
        wrong.begins(&format!("burn over MCP, round {round}"), &text, cpu);
        assert_eq!(
            session.call("echo", json!({"text": "still here"})),
            (true, "still here".to_owned()),
            "round {round}"
        );
    }
    wrong.none();
}

/// The code a tool file runs at import is confined too, in the fork server
/// and in a fresh worker.
#[test]
fn import_time_code_is_confined() {
    let scene = Scene::new("");
    let leak = scene.project.path().join("notes/leak.txt");
    scene.project.tool(
        "at_import.py",
        &format!(
            r#"{HOSTILE_HEADER}
for attempt in (
    lambda: write({target:?}),
    lambda: open("notes/leak.txt", "w").write(read({secret:?})),
):
    try:
        attempt()
    except OSError:
        pass

AtImport = tool("at_import", lambda params: "imported")
"#,
            target = scene.target().display().to_string(),
            secret = scene.secret().display().to_string(),
        ),
    );
    for fork in [true, false] {
        scene.settings(&sandbox_settings(fork, r#"{read: ["."], write: [notes]}"#));
        let ran = scene.riverse(&["tools"], &[]);
        ran.exits(0);
        assert!(ran.stdout.contains("echo "), "{ran:#?}");
        scene.target_is_untouched(&format!("fork: {fork}, at import"));
        let leaked = std::fs::read_to_string(&leak).unwrap_or_default();
        assert!(!leaked.contains(SECRET.trim()), "fork: {fork}: {leaked}");
        scene.answers();
    }
}

/// A tool's own sandbox beside `python.sandbox`: each tool writes where its
/// own sandbox says and nowhere else, and each error names the sandbox the
/// tool is under.
#[test]
fn a_tools_own_sandbox_holds_it_and_not_the_others() {
    let scene = Scene::new(
        "python:\n  sandbox: {write: [other]}\ntools:\n  notes:\n    sandbox: {write: [notes]}\n",
    );
    scene
        .project
        .tool(
            "notes_tool.py",
            &format!("{HOSTILE_HEADER}\nNotes = tool(\"notes\", access)\n"),
        )
        .tool(
            "other_tool.py",
            &format!("{HOSTILE_HEADER}\nOther = tool(\"other\", access)\n"),
        );
    let dir = scene.dir().display().to_string();
    let mut wrong = Wrong::default();

    assert_eq!(scene.succeeds("notes", &["path=notes/a.txt"]), "written");
    assert_eq!(scene.succeeds("other", &["path=other/b.txt"]), "written");
    let cases = [
        (
            "notes",
            "path=other/a.txt",
            "mode=write",
            "writing",
            "other/a.txt",
            "tools.notes.sandbox.write",
        ),
        (
            "other",
            "path=notes/b.txt",
            "mode=write",
            "writing",
            "notes/b.txt",
            "python.sandbox.write",
        ),
        (
            "notes",
            "path=settings.yaml",
            "mode=read",
            "reading",
            "settings.yaml",
            "tools.notes.sandbox.read",
        ),
        (
            "other",
            "path=settings.yaml",
            "mode=read",
            "reading",
            "settings.yaml",
            "python.sandbox.read",
        ),
    ];
    for (tool, path, mode, doing, shown, rule) in cases {
        let case = format!("{tool} {path} {mode}");
        let error = scene.refused(tool, &[path, mode]);
        wrong.begins(
            &case,
            &error,
            &format!(
                "sandbox: {doing} {dir}/{shown} ({shown}) is outside {rule} (execute() raised PermissionError: "
            ),
        );
        scene.answers();
    }
    for (file, exists) in [
        ("notes/a.txt", true),
        ("other/b.txt", true),
        ("other/a.txt", false),
        ("notes/b.txt", false),
    ] {
        assert_eq!(scene.project.path().join(file).exists(), exists, "{file}");
    }
    wrong.none();
}

/// Where the kernel has no Landlock (or no TCP rules for a network rule), a
/// sandboxed tool does not run, and says how to run it anyway; with
/// `if_unsupported: run` it runs under what the kernel can enforce, with a
/// warning.
#[test]
fn a_kernel_without_landlock_refuses_sandboxed_tools_unless_told_to_run() {
    let (_closed, closed_port) = listener();
    let scene = Scene::new(&sandbox_settings(true, r#"{read: ["."], write: [notes]}"#));
    let abi = |abi: &'static str| [("RIVERSE_LANDLOCK_ABI", abi)];
    let no_landlock = "python.sandbox: this kernel has no Landlock (or it is off), so the sandbox can't be enforced";
    let refused = format!(
        "{no_landlock}; set python.sandbox.if_unsupported: run to run the tool without what can't be enforced"
    );
    let ran = scene.riverse(&["call", "echo", "text=hi", "--json"], &abi("0"));
    assert_eq!(ran.exits(2).stdout, "");
    assert_eq!(
        ran.stderr,
        format!("riverse: unknown tool \"echo\"\n  python (python3) failed: {refused}\n")
    );
    let ran = scene.riverse(&["tools"], &abi("0"));
    assert!(ran.stdout.contains(&refused), "{ran:#?}");

    // Told to run: it runs, unsandboxed, with a warning.
    scene.settings(&sandbox_settings(
        true,
        r#"{read: ["."], write: [notes], if_unsupported: run}"#,
    ));
    let ran = scene.riverse(&["call", "echo", "text=hi"], &abi("0"));
    assert_eq!(ran.exits(0).stdout, "hi\n");
    assert!(
        ran.stderr.contains(&format!(
            "{no_landlock}; running without it (python.sandbox.if_unsupported: run)"
        )),
        "{ran:#?}"
    );

    // ABI 3 has file rules but no TCP rules: a network rule can't be held,
    scene.settings(&sandbox_settings(
        true,
        r#"{read: ["."], write: [notes], network: false}"#,
    ));
    let ran = scene.riverse(&["call", "echo", "text=hi"], &abi("3"));
    assert_eq!(
        ran.exits(2).stderr,
        "riverse: unknown tool \"echo\"\n  python (python3) failed: python.sandbox: this kernel's Landlock (ABI 3) \
         has no TCP rules (ABI 4, Linux 6.7), so python.sandbox.network can't be enforced; \
         set python.sandbox.if_unsupported: run to run the tool without what can't be enforced\n"
    );
    // and told to run, the tool runs with what can be: the file rules but
    // not the network rule.
    scene.settings(&sandbox_settings(
        true,
        r#"{read: ["."], write: [notes], network: false, if_unsupported: run}"#,
    ));
    let settings_file = format!("{}/settings.yaml", scene.dir().display());
    let (code, result) = scene.call_with(&abi("3"), "write", &[&format!("path={settings_file}")]);
    assert_eq!(code, 1, "{result}");
    assert!(
        result["error"].as_str().unwrap().starts_with(&format!(
            "sandbox: writing {settings_file} is outside python.sandbox.write (execute() raised PermissionError: "
        )),
        "{result}"
    );
    let (code, result) = scene.call_with(&abi("3"), "connect", &[&format!("port={closed_port}")]);
    assert_eq!(
        (code, &result["data"]),
        (0, &json!("connected")),
        "{result}"
    );

    // A tool's own sandbox: that tool is not available; the others are.
    scene.settings("tools:\n  write:\n    sandbox: {write: [notes]}\n");
    let ran = scene.riverse(&["call", "write", "path=notes/x"], &abi("0"));
    assert_eq!(
        ran.exits(2).stderr,
        "riverse: tool \"write\" is not available: tools.write.sandbox: this kernel has no Landlock (or it is off), \
         so the sandbox can't be enforced; \
         set tools.write.sandbox.if_unsupported: run to run the tool without what can't be enforced\n"
    );
    assert!(!scene.project.path().join("notes/x").exists());
    let ran = scene.riverse(&["call", "echo", "text=hi"], &abi("0"));
    assert_eq!(ran.exits(0).stdout, "hi\n");
}

/// Landlock's signal scope: a sandboxed tool can't signal a process outside
/// its sandbox, Riverse itself included.
#[test]
fn a_tool_cannot_signal_processes_outside_its_sandbox() {
    let scene = Scene::new("");
    let mut bystander = Command::new("sleep").arg("120").spawn().unwrap();
    let pid = format!("pid={}", bystander.id());
    for fork in [true, false] {
        scene.settings(&sandbox_settings(fork, "{write: [notes]}"));
        let error = scene.refused("kill", &[&pid]);
        assert!(error.contains("PermissionError"), "fork: {fork}: {error}");
        assert!(
            bystander.try_wait().unwrap().is_none(),
            "fork: {fork}: the tool killed a process outside its sandbox"
        );
        scene.answers();
    }
    // A fresh worker's parent is riverse: it answers, not killed.
    let error = scene.refused("kill", &[]);
    assert!(error.contains("PermissionError"), "{error}");
    let _ = bystander.kill();
    let _ = bystander.wait();
}

/// Issue 41: each worker has a signal domain of its own, inside its sandbox,
/// which bounds the `kill(-1)` it ends its tools' processes with when Riverse
/// is killed outright. A forked worker's parent, the fork server, shares the
/// sandbox but not that domain: the tool can't signal it.
#[test]
fn a_tool_in_a_forked_worker_cannot_signal_its_fork_server() {
    let scene = Scene::new(&sandbox_settings(true, "{write: [notes]}"));
    let error = scene.refused("kill", &[]);
    assert!(error.contains("PermissionError"), "{error}");
    scene.answers();
}
