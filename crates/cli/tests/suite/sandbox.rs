//! `python.sandbox` and `tools.<name>.sandbox` against hostile tools, through
//! the real binary: each way out is refused, the call's error begins with the
//! rule it broke, the forbidden effect does not happen (the file outside is
//! unchanged, the secret is not in the output, no process is left), and the
//! project's other tools still answer. This file holds the scene (the hostile
//! tools, the project and what lies outside it) and reading and writing files;
//! `sandbox_network.rs` the network rules and the kernels that can't enforce
//! them; `sandbox_limits.rs` processes, resource limits and signals.

use std::path::PathBuf;

use pretty_assertions::assert_eq;
use riverse_test_support::{McpProcess, Project};
use serde_json::{Value, json};

use super::command::{Ran, riverse_in, run};

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
pub(super) struct Scene {
    pub(super) project: Project,
    other: Project,
    outside: tempfile::TempDir,
}

impl Scene {
    pub(super) fn new(settings: &str) -> Self {
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

    pub(super) fn settings(&self, yaml: &str) {
        self.project.settings(yaml);
    }

    /// The project's directory, as the kernel names it.
    pub(super) fn dir(&self) -> PathBuf {
        self.project.path().canonicalize().unwrap()
    }

    pub(super) fn home(&self) -> PathBuf {
        self.outside.path().canonicalize().unwrap().join("home")
    }

    pub(super) fn secret(&self) -> PathBuf {
        self.home().join(".ssh/id_rsa")
    }

    pub(super) fn target(&self) -> PathBuf {
        self.outside
            .path()
            .canonicalize()
            .unwrap()
            .join("target.txt")
    }

    pub(super) fn other_file(&self) -> PathBuf {
        self.other
            .path()
            .canonicalize()
            .unwrap()
            .join("notes/private.txt")
    }

    /// `riverse ARGS` in the project, with the fake home, and `env`.
    pub(super) fn riverse(&self, args: &[&str], env: &[(&str, &str)]) -> Ran {
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
    pub(super) fn mcp(&self) -> McpProcess {
        let mut command = riverse_in(self.project.path(), &["mcp"]);
        command.env("HOME", self.home());
        McpProcess::start(command)
    }

    /// `riverse call TOOL ARGS --json`: the exit status and the result.
    pub(super) fn call(&self, tool: &str, args: &[&str]) -> (i32, Value) {
        self.call_with(&[], tool, args)
    }

    /// [`Scene::call`] with `env`.
    pub(super) fn call_with(
        &self,
        env: &[(&str, &str)],
        tool: &str,
        args: &[&str],
    ) -> (i32, Value) {
        let mut all = vec!["call", tool];
        all.extend_from_slice(args);
        all.push("--json");
        let ran = self.riverse(&all, env);
        let result = serde_json::from_str(&ran.stdout)
            .unwrap_or_else(|err| panic!("{tool} {args:?}: no JSON result ({err}): {ran:#?}"));
        (ran.code, result)
    }

    /// The data of a call that succeeded.
    pub(super) fn succeeds(&self, tool: &str, args: &[&str]) -> String {
        let (code, result) = self.call(tool, args);
        assert_eq!(
            (code, &result["success"]),
            (0, &json!(true)),
            "{tool} {args:?}: {result}"
        );
        result["data"].as_str().unwrap().to_owned()
    }

    /// The error of a call that failed as a tool's error does.
    pub(super) fn refused(&self, tool: &str, args: &[&str]) -> String {
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
    pub(super) fn answers(&self) {
        assert_eq!(self.succeeds("echo", &["text=still here"]), "still here");
    }

    pub(super) fn target_is_untouched(&self, case: &str) {
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
pub(super) struct Wrong(Vec<String>);

impl Wrong {
    pub(super) fn begins(&mut self, case: &str, error: &str, start: &str) {
        if !error.starts_with(start) {
            self.0.push(format!(
                "{case}:\n  expected the error to begin {start:?}\n  it is                       {error:?}"
            ));
        }
    }

    pub(super) fn none(self) {
        assert!(
            self.0.is_empty(),
            "{} error(s) began wrong:\n{}",
            self.0.len(),
            self.0.join("\n")
        );
    }
}

pub(super) fn sandbox_settings(fork: bool, sandbox: &str) -> String {
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
