//! `riverse init --tools standard`: the standard tools, and every way out of
//! the project they refuse.

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use riverse_test_support::Project;
use serde_json::Value;

use super::command::{Ran, riverse};

/// `PROJECT/demo` made by `riverse init --tools standard`, with a secret in
/// the sibling directory `demo_secret` (which a string prefix test would let
/// through) and a symlink out of the project, `demo/link`.
struct Standard {
    project: Project,
}

impl Standard {
    fn new() -> Self {
        let project = Project::new();
        riverse(&project, &["init", "demo", "--tools", "standard"]).exits(0);
        // The weather tool's `requests`, installed once: no test then reads
        // the installer's lines among its own.
        riverse(&project, &["--dir", "demo", "sync"]).exits(0);
        let standard = Standard { project };
        standard.write("demo/notes/a.txt", "alpha\nbeta\n");
        standard.write("demo_secret/secret.txt", "TOP SECRET\n");
        symlink(standard.path("demo_secret"), standard.path("demo/link")).unwrap();
        symlink(
            standard.path("demo_secret/secret.txt"),
            standard.path("demo/notes/leak.txt"),
        )
        .unwrap();
        standard
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.project.path().join(relative)
    }

    fn write(&self, relative: &str, contents: &str) {
        self.project.file(relative, contents);
    }

    /// Calls `tool`, approving it (`riverse init --tools standard` makes
    /// `file_write` ask).
    fn call(&self, tool: &str, params: &[&str]) -> Ran {
        let mut args = vec!["--dir", "demo", "call", "--yes", tool];
        args.extend_from_slice(params);
        riverse(&self.project, &args)
    }

    /// Asserts that the call is refused as leaving the project.
    fn refused(&self, tool: &str, params: &[&str]) {
        let ran = self.call(tool, params);
        ran.exits(1);
        let allowed = self.path("demo").canonicalize().unwrap();
        assert!(
            ran.stderr.contains("not allowed")
                && ran.stderr.contains(&format!("({})", allowed.display())),
            "{tool} {params:?}: {ran:?}"
        );
        assert!(!ran.stdout.contains("TOP SECRET"), "{ran:?}");
    }
}

fn absolute(path: &Path) -> String {
    path.display().to_string()
}

#[test]
fn the_standard_set_is_written_and_shell_exec_starts_off() {
    let standard = Standard::new();
    let ran = riverse(&standard.project, &["--dir", "demo", "tools", "--json"]);
    let listed: Value = serde_json::from_str(&ran.exits(0).stdout).unwrap();
    let rows: Vec<(&str, &str)> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| {
            (
                tool["name"].as_str().unwrap(),
                tool["status"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("clock", "available"),
            ("file_list", "available"),
            ("file_read", "available"),
            ("file_write", "available"),
            ("grep", "available"),
            ("shell_exec", "unavailable"),
            ("convert_units", "available"),
            ("weather", "available"),
        ]
    );
}

#[test]
fn file_read_reads_inside_and_refuses_every_escape() {
    let standard = Standard::new();
    let ran = standard.call("file_read", &["path=notes/a.txt"]);
    assert_eq!(ran.exits(0).stdout, "=== notes/a.txt ===\nalpha\nbeta\n");
    let sibling = format!(
        "path={}",
        absolute(&standard.path("demo_secret/secret.txt"))
    );
    for path in [
        "path=../demo_secret/secret.txt",          // `..`
        "path=notes/../../demo_secret/secret.txt", // `..` inside
        sibling.as_str(),                          // a prefix sibling, absolute
        "path=link/secret.txt",                    // a symlinked directory
        "path=notes/leak.txt",                     // a symlinked file
        "path=/etc/passwd",                        // absolute
    ] {
        standard.refused("file_read", &[path]);
    }
}

#[test]
fn file_list_grep_and_file_write_refuse_the_same_escapes() {
    let standard = Standard::new();
    standard.refused("file_list", &["path=link"]);
    standard.refused("file_list", &["path=.."]);
    standard.refused("grep", &["pattern=SECRET", "path=link"]);
    standard.refused("grep", &["pattern=SECRET", "path=../demo_secret"]);
    // Searching the project skips the symlink that leads out of it.
    let ran = standard.call("grep", &["pattern=SECRET|beta", "path=."]);
    assert_eq!(ran.exits(0).stdout, "notes/a.txt:2: beta\n");

    standard.refused("file_write", &["path=link/planted.txt", "content=x"]);
    symlink(
        standard.path("demo_secret/planted.txt"),
        standard.path("demo/notes/out.txt"),
    )
    .unwrap();
    standard.refused("file_write", &["path=notes/out.txt", "content=x"]);
    assert!(!standard.path("demo_secret/planted.txt").exists());
    let ran = standard.call("file_write", &["path=notes/new/b.txt", "content=written"]);
    assert_eq!(
        ran.exits(0).stdout,
        "Written 7 characters to notes/new/b.txt\n"
    );
    assert_eq!(
        std::fs::read_to_string(standard.path("demo/notes/new/b.txt")).unwrap(),
        "written"
    );
}

#[test]
fn a_symlinked_tools_directory_does_not_move_the_project() {
    let standard = Standard::new();
    // The tools live outside the project, beside the secret.
    let tools = standard.path("demo_secret/tools");
    std::fs::rename(standard.path("demo/agent/tools"), &tools).unwrap();
    symlink(&tools, standard.path("demo/agent/tools")).unwrap();
    let ran = standard.call("file_read", &["path=notes/a.txt"]);
    assert!(
        ran.exits(0).stdout.starts_with("=== notes/a.txt ==="),
        "{ran:?}"
    );
    standard.refused("file_read", &["path=agent/tools/../secret.txt"]);
}

#[test]
fn shell_exec_runs_allowlisted_programs_on_files_inside_only() {
    let standard = Standard::new();
    standard.refused_while_off();
    standard.write(
        "demo/settings.yaml",
        "tools:\n  shell_exec: {enabled: true, timeout: 1, max_output_chars: 20, whitelist: [cat, find, ls, sleep]}\n",
    );
    standard.write("demo/notes/long.txt", &"x".repeat(100));
    let ran = standard.call("shell_exec", &["command=cat notes/a.txt"]);
    assert_eq!(ran.exits(0).stdout, "alpha\nbeta\n");
    for command in [
        "command=cat ../demo_secret/secret.txt",
        "command=cat /etc/passwd",
        "command=cat link/secret.txt",
        "command=cat notes/leak.txt",
        "command=ls -d /etc",
    ] {
        standard.refused("shell_exec", &[command]);
    }
    for (command, refusal) in [
        (
            "command=find . -delete",
            "refused: find: option -delete is not allowed",
        ),
        (
            "command=ls; cat /etc/passwd",
            "refused: ';' — commands run without a shell, one program at a time",
        ),
        (
            "command=ls | cat",
            "refused: '|' — commands run without a shell, one program at a time",
        ),
        (
            "command=echo $(id)",
            "refused: '$' — commands run without a shell, one program at a time",
        ),
        (
            "command=rm -rf notes",
            "refused: 'rm' is not allowed; allowed: cat, find, ls, sleep",
        ),
    ] {
        let ran = standard.call("shell_exec", &[command]);
        assert_eq!(
            ran.exits(1).stderr,
            format!("riverse: {refusal}\n"),
            "{command}"
        );
    }
    assert!(standard.path("demo/notes/a.txt").exists());
    let ran = standard.call("shell_exec", &["command=cat notes/long.txt"]);
    assert_eq!(
        ran.exits(0).stdout,
        format!("{}\n[output truncated at 20 characters]\n", "x".repeat(20))
    );
    let ran = standard.call("shell_exec", &["command=sleep 30"]);
    assert_eq!(
        ran.exits(1).stderr,
        "riverse: sleep timed out after 0.9s; it was killed\n"
    );
}

impl Standard {
    fn refused_while_off(&self) {
        let ran = self.call("shell_exec", &["command=ls"]);
        assert_eq!(
            ran.exits(2).stderr,
            "riverse: tool \"shell_exec\" is not available: is_available() returned False\n"
        );
    }
}
