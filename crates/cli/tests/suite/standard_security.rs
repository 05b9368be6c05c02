//! Issue 21, "Close the doors": the standard tools against the security
//! review's findings (C2, H1, H2, M1, M6, L3, L6, L9), each with variants the
//! review did not try, through the real binary.

use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use riverse_test_support::{McpProcess, Project, eventually, is_gone};
use serde_json::{Value, json};

use super::command::{riverse, riverse_in};

/// `PROJECT/demo` made by `riverse init --tools standard` with every tool
/// allowed everywhere (`allowed_dirs: ["/"]`), so that only protection
/// stands between a tool and Riverse's own files; a git repository; and
/// `cache/` as the model cache's home (XDG_CACHE_HOME).
struct Wide {
    project: Project,
}

const WIDE_SETTINGS: &str = "tools:\n  file_read: {allowed_dirs: [\"/\"]}\n  file_write: {allowed_dirs: [\"/\"]}\n  \
    file_list: {allowed_dirs: [\"/\"]}\n  grep: {allowed_dirs: [\"/\"]}\n  \
    shell_exec: {enabled: true, allowed_dirs: [\"/\"], timeout: 20}\n  \
    openai: {api_key: sk-SETTINGS-SECRET}\n";

impl Wide {
    fn new() -> Self {
        let project = Project::new();
        riverse(&project, &["init", "demo", "--tools", "standard"]).exits(0);
        let wide = Wide { project };
        wide.write("demo/settings.yaml", WIDE_SETTINGS);
        wide.write("demo/notes/a.txt", "alpha\nbeta\n");
        wide.write("demo/.env", "TOKEN=sk-DOTENV-SECRET\n");
        wide.write("demo/agent/config/agents_en.yaml", "# sk-AGENTS-SECRET\n");
        wide.write("demo/.riverse/riverse.db", "sk-DB-SECRET\n");
        wide.write("cache/riverse/models/model.gguf", "sk-MODEL-SECRET\n");
        wide.write("outside/other.txt", "outside\n");
        git(&wide.path("demo"), &["init", "-q", "."]);
        git(&wide.path("demo"), &["config", "user.email", "a@b"]);
        git(&wide.path("demo"), &["config", "user.name", "a"]);
        git(
            &wide.path("demo"),
            &["config", "riverse.marker", "sk-GIT-SECRET"],
        );
        wide
    }

    fn path(&self, relative: &str) -> std::path::PathBuf {
        self.project.path().join(relative)
    }

    fn write(&self, relative: &str, contents: &str) {
        self.project.file(relative, contents);
    }

    fn session(&self) -> McpProcess {
        mcp_in(self.project.path(), &["--dir", "demo"], &self.path("cache"))
    }
}

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

/// `riverse GLOBAL mcp` in `dir` on stdio, `cache` its XDG_CACHE_HOME: one
/// process, many calls.
fn mcp_in(dir: &Path, global: &[&str], cache: &Path) -> McpProcess {
    let mut args = global.to_vec();
    args.push("mcp");
    let mut command = riverse_in(dir, &args);
    command.env("XDG_CACHE_HOME", cache);
    McpProcess::start(command)
}

/// `McpProcess::refused`: a call the standard tools refuse.
trait Refuses {
    /// `tool` with `arguments` is refused as `not allowed`, for `why`,
    /// without showing a secret.
    fn refused(&mut self, tool: &str, arguments: Value, why: &str);
}

impl Refuses for McpProcess {
    fn refused(&mut self, tool: &str, arguments: Value, why: &str) {
        let (succeeded, text) = self.call(tool, arguments.clone());
        assert!(
            !succeeded && text.contains("not allowed") && text.contains(why),
            "{tool} {arguments}: {text}"
        );
        assert!(!text.contains("SECRET"), "{tool} {arguments}: {text}");
    }
}

/// Ways to name each protected path: plain, `./x//y`, other case, a
/// trailing slash, through `..`, absolute, through /proc, through a symlink.
fn spellings(wide: &Wide) -> Vec<String> {
    let demo = wide.path("demo").canonicalize().unwrap();
    symlink(demo.join("settings.yaml"), demo.join("notes/cfg")).unwrap();
    symlink(demo.join(".git"), demo.join("notes/repo")).unwrap();
    symlink(demo.join("agent"), demo.join("notes/agentdir")).unwrap();
    let cache = wide.path("cache").canonicalize().unwrap();
    [
        "settings.yaml",
        "./settings.yaml",
        "SETTINGS.YAML",
        "notes/../settings.yaml",
        "notes/cfg",
        "./.git//config",
        ".GIT/config",
        ".git/",
        "notes/repo/config",
        "notes/repo/../.git/HEAD",
        "agent/tools/clock.py",
        "agent/tools/",
        "agent/Tools/new.py",
        "notes/agentdir/tools/clock.py",
        "agent/config/agents_en.yaml",
        ".riverse/riverse.db",
        "uv.toml",
        "./pyproject.toml",
        "agent/uv.toml",
        "notes/agentdir/pyproject.toml",
        ".env",
        "notes/.env.local",
    ]
    .iter()
    .map(|path| (*path).to_owned())
    .chain([
        demo.join("settings.yaml").display().to_string(),
        format!("/proc/self/root{}", demo.join(".git/config").display()),
        cache
            .join("riverse/models/model.gguf")
            .display()
            .to_string(),
    ])
    .collect()
}

#[test]
fn c2_protected_paths_are_refused_to_every_file_tool_even_with_allowed_dirs_root() {
    let wide = Wide::new();
    let paths = spellings(&wide);
    let mut session = wide.session();
    for path in &paths {
        session.refused("file_read", json!({"path": path}), "protected");
        session.refused("file_list", json!({"path": path}), "protected");
        session.refused(
            "grep",
            json!({"pattern": "SECRET", "path": path}),
            "protected",
        );
        session.refused(
            "file_write",
            json!({"path": path, "content": "overwritten"}),
            "protected",
        );
        session.refused(
            "shell_exec",
            json!({"command": format!("cat {path}")}),
            "protected",
        );
        session.refused(
            "shell_exec",
            json!({"command": format!("head -n1 -- {path}")}),
            "protected",
        );
    }
    // Nothing was written, and the tools still work outside what is protected.
    let settings = std::fs::read_to_string(wide.path("demo/settings.yaml")).unwrap();
    assert_eq!(settings, WIDE_SETTINGS);
    assert!(!wide.path("demo/agent/tools/new.py").exists());
    let outside = wide.path("outside/other.txt").display().to_string();
    let (read, text) = session.call("file_read", json!({"path": outside}));
    assert!(
        read && text.starts_with(&format!("=== {outside} ===\noutside")),
        "{text}"
    );
}

#[test]
fn c2_the_settings_file_in_use_is_protected_wherever_it_is() {
    let wide = Wide::new();
    let elsewhere = wide.path("outside/riverse.yaml");
    std::fs::write(&elsewhere, WIDE_SETTINGS).unwrap();
    let shown = elsewhere.display().to_string();
    let config_flag = ["--dir", "demo", "--config", shown.as_str()];
    let mut session = mcp_in(wide.project.path(), &config_flag, &wide.path("cache"));
    session.refused("file_read", json!({"path": shown}), "settings file in use");
    session.refused(
        "file_write",
        json!({"path": shown, "content": "tools: {}"}),
        "settings file in use",
    );
    drop(session);
    // The same through RIVERSE_CONFIG.
    let ran = super::command::run({
        let mut command = riverse_in(
            wide.project.path(),
            &[
                "--dir",
                "demo",
                "call",
                "file_read",
                &format!("path={shown}"),
            ],
        );
        command.env("RIVERSE_CONFIG", &elsewhere);
        command
    });
    ran.exits(1);
    assert!(ran.stderr.contains("protected"), "{ran:?}");
    assert!(!ran.stdout.contains("SECRET"), "{ran:?}");
}

#[test]
fn c2_listings_and_grep_leave_protected_entries_out() {
    let wide = Wide::new();
    let mut session = wide.session();
    let (listed, root) = session.call("file_list", json!({"path": "."}));
    assert!(listed, "{root}");
    for hidden in ["settings.yaml", ".git", ".env", ".riverse"] {
        assert!(!root.contains(&format!("  {hidden}")), "{hidden} in {root}");
    }
    assert!(
        root.contains("  notes/") && root.contains("  agent/"),
        "{root}"
    );
    let (_, agent) = session.call("file_list", json!({"path": "agent"}));
    assert!(
        !agent.contains("tools") && !agent.contains("config"),
        "{agent}"
    );
    let (found, matches) = session.call("grep", json!({"pattern": "SECRET|beta"}));
    assert_eq!((found, matches.as_str()), (true, "notes/a.txt:2: beta"));
    // Widened to the project's parent, the model cache is still left out.
    let (searched, parent) = session.call("grep", json!({"pattern": "SECRET", "path": ".."}));
    // No secret's text (each starts `sk-`); the reply names the pattern.
    assert!(!parent.contains("sk-"), "{parent}");
    // The search ran, over a path that ends in `..`, and found nothing.
    assert_eq!(
        (searched, parent.as_str()),
        (true, "No matches found for pattern 'SECRET'")
    );
    let (listed, up) = session.call("file_list", json!({"path": "notes/.."}));
    assert!(listed && up.contains("  notes/"), "{up}");
}

#[test]
fn c2_secret_files_are_refused_unless_the_list_is_changed() {
    let wide = Wide::new();
    wide.write("demo/keys/server.PEM", "sk-PEM-SECRET\n");
    let mut session = wide.session();
    session.refused("file_read", json!({"path": "keys/server.PEM"}), "secrets");
    session.refused("file_read", json!({"path": ".env"}), "secret_files");
    drop(session);
    wide.write(
        "demo/settings.yaml",
        "tools:\n  file_read: {secret_files: []}\n",
    );
    let mut session = wide.session();
    let (read, text) = session.call("file_read", json!({"path": ".env"}));
    assert!(
        read && text.starts_with("=== .env ===\nTOKEN=sk-DOTENV-SECRET"),
        "{text}"
    );
}

/// H1 and M1: the program's option list decides, whatever the spelling.
#[test]
fn shell_exec_takes_only_the_options_each_program_allows() {
    let wide = Wide::new();
    git(&wide.path("demo"), &["add", "notes"]);
    git(&wide.path("demo"), &["commit", "-qm", "init"]);
    git(&wide.path("demo"), &["branch", "feature"]);
    let settings = WIDE_SETTINGS.replace("allowed_dirs: [\"/\"], timeout", "timeout");
    wide.write("demo/settings.yaml", &settings);
    wide.write("demo/list0", "/etc/passwd\0");
    let mut session = wide.session();
    for (command, why) in [
        ("date -uf/etc/shadow", "date: option -f is not allowed"),
        // git reads these values only when attached: what follows is git's
        // own option, and is checked as one.
        (
            "git log --tags --output=agent/tools/p.py --all",
            "git log: option --output is not allowed",
        ),
        (
            "git log --abbrev --output=x",
            "git log: option --output is not allowed",
        ),
        (
            "git diff -U --output=x",
            "git diff: option --output is not allowed",
        ),
        (
            "git diff --unified --output=x",
            "git diff: option --output is not allowed",
        ),
        // A separate value that looks like an option is refused whatever
        // the program would make of it.
        ("git log --grep --output=x", "looks like an option"),
        ("date -Ruf /etc/passwd", "date: option -f is not allowed"),
        (
            "date --file=/etc/passwd",
            "date: option --file is not allowed",
        ),
        ("date -s 2000-01-01", "date: option -s is not allowed"),
        ("date --set=2000-01-01", "date: option --set is not allowed"),
        ("date 01010000", "only +FORMAT"),
        ("date -r/etc/passwd", "outside the allowed directories"),
        (
            "date --reference=/etc/passwd",
            "outside the allowed directories",
        ),
        ("grep -rf/etc/passwd .", "grep: option -r is not allowed"),
        (
            "grep -hf/etc/passwd notes/a.txt",
            "outside the allowed directories",
        ),
        (
            "grep --file /etc/passwd notes/a.txt",
            "outside the allowed directories",
        ),
        ("grep -R root: .", "grep: option -R is not allowed"),
        (
            "grep --dereference-recursive root: .",
            "option --dereference-recursive",
        ),
        (
            "wc --files0-from=list0",
            "wc: option --files0-from is not allowed",
        ),
        ("wc --files0=list0", "wc: option --files0 is not allowed"),
        (
            "head --lines=1 /etc/passwd",
            "outside the allowed directories",
        ),
        ("tail -n1 -- /etc/passwd", "outside the allowed directories"),
        ("ls -d /etc", "outside the allowed directories"),
        (
            "ls --directory=/etc",
            "ls: option --directory takes no value",
        ),
        (
            "git branch -D feature",
            "git branch: option -D is not allowed",
        ),
        (
            "git branch --delete feature",
            "option --delete is not allowed",
        ),
        (
            "git branch -m master renamed",
            "git branch: option -m is not allowed",
        ),
        ("git branch newbranch", "only lists branches"),
        (
            "git log --output=/tmp/x",
            "git log: option --output is not allowed",
        ),
        (
            "git diff --ext-diff",
            "git diff: option --ext-diff is not allowed",
        ),
        ("git diff HEAD:settings.yaml", "revision:path"),
    ] {
        let (succeeded, text) = session.call("shell_exec", json!({"command": command}));
        assert!(
            !succeeded && text.contains("refused") && text.contains(why),
            "{command}: {text}"
        );
        assert!(!text.contains("root:"), "{command}: {text}");
    }
    for (command, expected) in [
        ("wc -l notes/a.txt", "2 notes/a.txt"),
        ("git branch", "feature"),
        ("git branch --list feat*", "feature"),
        ("head -1 notes/a.txt", "alpha"),
        ("grep -n -e beta notes/a.txt", "2:beta"),
        ("date -u +%Y", ""),
    ] {
        let (succeeded, text) = session.call("shell_exec", json!({"command": command}));
        assert!(succeeded && text.contains(expected), "{command}: {text}");
    }
    assert!(
        Command::new("git")
            .args(["rev-parse", "--verify", "-q", "feature"])
            .current_dir(wide.path("demo"))
            .stdout(Stdio::null())
            .status()
            .unwrap()
            .success()
    );
}

#[test]
fn shell_exec_gives_a_whitelisted_program_without_an_option_list_no_options() {
    let wide = Wide::new();
    wide.write(
        "demo/settings.yaml",
        "tools:\n  shell_exec: {enabled: true, whitelist: [\"sort -r\", \"tar -tf\", \"git\"]}\n",
    );
    let mut session = wide.session();
    for (command, why) in [
        (
            "sort -r -o notes/sorted notes/a.txt",
            "sort -r: option -o is not allowed",
        ),
        (
            "sort -r --output=notes/sorted notes/a.txt",
            "option --output=notes/sorted is not allowed",
        ),
        (
            "tar -tf a.tar --checkpoint=1 --checkpoint-action=exec=id",
            "option --checkpoint=1 is not allowed",
        ),
        ("sort -r settings.yaml", "protected"),
        ("git push", "git push: shell_exec has no option list"),
        (
            "git -c core.pager=id log",
            "git -c: shell_exec has no option list",
        ),
    ] {
        let (succeeded, text) = session.call("shell_exec", json!({"command": command}));
        assert!(!succeeded && text.contains(why), "{command}: {text}");
    }
    assert!(!wide.path("demo/notes/sorted").exists());
    let (succeeded, text) = session.call("shell_exec", json!({"command": "sort -r notes/a.txt"}));
    assert_eq!((succeeded, text.as_str()), (true, "beta\nalpha"));
}

#[test]
fn shell_exec_git_never_shows_protected_files() {
    let wide = Wide::new();
    git(&wide.path("demo"), &["add", "-A", "-f"]);
    git(&wide.path("demo"), &["commit", "-qm", "everything"]);
    wide.write(
        "demo/settings.yaml",
        &format!("{WIDE_SETTINGS}# changed sk-NEW-SECRET\n"),
    );
    wide.write("demo/.env", "TOKEN=sk-CHANGED-SECRET\n");
    wide.write("demo/notes/a.txt", "alpha\nbeta\ngamma\n");
    let mut session = wide.session();
    for command in [
        "git diff",
        "git diff HEAD",
        "git log -p",
        "git log --stat",
        "git status -s",
    ] {
        let (succeeded, text) = session.call("shell_exec", json!({"command": command}));
        assert!(succeeded, "{command}: {text}");
        assert!(
            !text.contains("SECRET") && !text.contains("settings.yaml") && !text.contains(".env"),
            "{command}: {text}"
        );
        assert!(text.contains("notes/a.txt"), "{command}: {text}");
    }
    // A file given after `--` stays a path, even once it is deleted.
    std::fs::remove_file(wide.path("demo/notes/a.txt")).unwrap();
    let (succeeded, text) = session.call(
        "shell_exec",
        json!({"command": "git log --oneline -- notes/a.txt"}),
    );
    assert_eq!(
        (succeeded, text.contains("everything")),
        (true, true),
        "{text}"
    );
}

/// H2: a swapper exchanges a file or directory inside the project with a
/// symlink to the secret, atomically (renameat2 RENAME_EXCHANGE), while the
/// tools are called; no call may reach the secret.
#[test]
fn h2_symlink_swaps_during_calls_never_leak_or_write_outside() {
    let project = Project::new();
    riverse(&project, &["init", "demo", "--tools", "standard"]).exits(0);
    let secret = project.path().join("secret");
    project.file("secret/secret.txt", "TOP SECRET\n");
    project.file("demo/race/target", "inside\n");
    std::fs::create_dir_all(project.path().join("demo/race/dir")).unwrap();
    project.file("demo/race/dir/inside.txt", "inside\n");
    symlink(
        secret.join("secret.txt"),
        project.path().join("demo/race/target_swap"),
    )
    .unwrap();
    symlink(&secret, project.path().join("demo/race/dir_swap")).unwrap();
    let _swapper = Swapper::start(project.path(), &["demo/race/target", "demo/race/dir"]);
    let mut session = mcp_in(
        project.path(),
        &["--dir", "demo"],
        &project.path().join("cache"),
    );
    let mut answered = 0;
    for round in 0..150 {
        let calls = [
            ("file_read", json!({"path": "race/target"})),
            ("file_read", json!({"path": "race/dir/secret.txt"})),
            ("file_list", json!({"path": "race/dir"})),
            ("grep", json!({"pattern": "SECRET", "path": "race"})),
            (
                "file_write",
                json!({"path": format!("race/dir/escaped{round}.txt"), "content": "x"}),
            ),
        ];
        for (tool, arguments) in calls {
            let (succeeded, text) = session.call(tool, arguments.clone());
            let listed_the_secret = succeeded && text.contains("secret.txt");
            assert!(
                !text.contains("TOP SECRET") && !listed_the_secret,
                "{tool} {arguments}: {text}"
            );
            answered += usize::from(succeeded);
        }
    }
    let escaped: Vec<_> = std::fs::read_dir(&secret)
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .filter(|name| name != "secret.txt")
        .collect();
    assert_eq!(escaped, Vec::<std::ffi::OsString>::new());
    assert!(answered > 0, "no call got through while swapping");
}

/// A Python process that swaps each `NAME` with `NAME_swap` until killed.
struct Swapper(Child);

impl Swapper {
    fn start(dir: &Path, names: &[&str]) -> Self {
        let script = r#"
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE = -100, 2
pairs = [(n.encode(), (n + "_swap").encode()) for n in sys.argv[1:]]
open("swapping", "w").close()
while True:
    for a, b in pairs:
        if libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) != 0:
            sys.exit("renameat2: " + os.strerror(ctypes.get_errno()))
"#;
        let child = Command::new("python3")
            .arg("-c")
            .arg(script)
            .args(names)
            .current_dir(dir)
            .spawn()
            .unwrap();
        eventually(Duration::from_secs(20), "the swapper to start", || {
            dir.join("swapping").exists()
        });
        Swapper(child)
    }
}

impl Drop for Swapper {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn l3_hard_links_are_not_read_or_written_unless_reading_them_is_allowed() {
    let wide = Wide::new();
    std::fs::hard_link(
        wide.path("outside/other.txt"),
        wide.path("demo/notes/hl.txt"),
    )
    .unwrap();
    let mut session = wide.session();
    session.refused("file_read", json!({"path": "notes/hl.txt"}), "hard links");
    session.refused(
        "file_write",
        json!({"path": "notes/hl.txt", "content": "x"}),
        "hard links",
    );
    let (_, found) = session.call("grep", json!({"pattern": "outside", "path": "notes"}));
    assert!(!found.contains("hl.txt"), "{found}");
    // shell_exec's programs open the file themselves: refused beforehand.
    session.refused(
        "shell_exec",
        json!({"command": "cat notes/hl.txt"}),
        "hard links",
    );
    assert_eq!(
        std::fs::read_to_string(wide.path("outside/other.txt")).unwrap(),
        "outside\n"
    );
    drop(session);
    wide.write(
        "demo/settings.yaml",
        "tools:\n  file_read: {read_hard_links: true}\n  file_write: {read_hard_links: true}\n",
    );
    let mut session = wide.session();
    let (read, _) = session.call("file_read", json!({"path": "notes/hl.txt"}));
    assert!(read);
    session.refused(
        "file_write",
        json!({"path": "notes/hl.txt", "content": "x"}),
        "hard links",
    );
}

#[test]
fn l6_grep_skips_fifos_and_stops_a_runaway_pattern_at_its_budget() {
    let wide = Wide::new();
    wide.write(
        "demo/settings.yaml",
        "tools:\n  grep: {search_timeout: 1, timeout: 25}\n",
    );
    wide.write("demo/notes/redos.txt", &format!("{}!\n", "a".repeat(40)));
    for name in ["demo/notes/fifo", "demo/a_fifo"] {
        let status = Command::new("mkfifo")
            .arg(wide.path(name))
            .status()
            .unwrap();
        assert!(status.success());
    }
    let mut session = wide.session();
    let (found, text) = session.call("grep", json!({"pattern": "beta"}));
    assert_eq!((found, text.as_str()), (true, "notes/a.txt:2: beta"));
    for pattern in ["(a+)+$", "(a|a)+$"] {
        let (succeeded, text) = session.call("grep", json!({"pattern": pattern, "path": "notes"}));
        assert!(
            !succeeded && text.contains("longer than 1s"),
            "{pattern}: {text}"
        );
    }
    let (read, text) = session.call("file_read", json!({"path": "notes/fifo"}));
    assert_eq!(
        (read, text.as_str()),
        (false, "not a regular file: notes/fifo")
    );
    // The worker is free again.
    let (found, _) = session.call("grep", json!({"pattern": "alpha", "path": "notes/a.txt"}));
    assert!(found);
}

/// M6: after `kill -9` of riverse, the program shell_exec started is gone.
#[test]
fn m6_a_shell_exec_child_dies_with_a_killed_riverse() {
    let wide = Wide::new();
    wide.write(
        "demo/settings.yaml",
        "tools:\n  shell_exec: {enabled: true, timeout: 120}\n",
    );
    let mut riverse = riverse_in(
        wide.project.path(),
        &[
            "--dir",
            "demo",
            "call",
            "shell_exec",
            "command=tail -f notes/a.txt",
        ],
    )
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    let demo = wide.path("demo").canonicalize().unwrap();
    let tail = eventually(Duration::from_secs(20), "shell_exec to start tail", || {
        find_process("tail\0-f\0notes/a.txt\0", &demo)
    });
    kill(Pid::from_raw(riverse.id() as i32), Signal::SIGKILL).unwrap();
    riverse.wait().unwrap();
    eventually(
        Duration::from_secs(20),
        "tail -f to end with riverse",
        || is_gone(tail),
    );
}

/// The pid of a process with this command line running in `cwd`.
fn find_process(cmdline: &str, cwd: &Path) -> Option<i32> {
    std::fs::read_dir("/proc").ok()?.find_map(|entry| {
        let pid: i32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
        let line = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
        let dir = std::fs::read_link(format!("/proc/{pid}/cwd")).ok()?;
        (line == cmdline.as_bytes() && dir == cwd).then_some(pid)
    })
}

/// L9: the city is one path segment of the weather service's URL.
#[test]
fn l9_weather_puts_the_city_into_the_url_encoded() {
    let project = Project::new();
    riverse(&project, &["init", "demo"]).exits(0);
    project.file(
        "demo/fake/requests.py",
        "class RequestException(Exception):\n    pass\n\n\
         class Timeout(RequestException):\n    pass\n\n\
         class Reply:\n    status_code = 200\n    ok = True\n\n    \
         def __init__(self, url):\n        self.text = url\n\n    \
         def raise_for_status(self):\n        pass\n\n\
         def get(url, params=None, timeout=None):\n    return Reply(url)\n",
    );
    let ran = super::command::run({
        let mut command = riverse_in(
            project.path(),
            &[
                "--dir",
                "demo",
                "call",
                "weather",
                "city=../x?format=j1#y z/",
            ],
        );
        command.env("PYTHONPATH", project.path().join("demo/fake"));
        command
    });
    assert_eq!(
        ran.exits(0).stdout,
        "https://wttr.in/..%2Fx%3Fformat%3Dj1%23y%20z%2F\n"
    );
    // `.` and `..` stay as they are when encoded, and would name another page.
    for city in [".", ".."] {
        let ran = super::command::run({
            let mut command = riverse_in(
                project.path(),
                &["--dir", "demo", "call", "weather", &format!("city={city}")],
            );
            command.env("PYTHONPATH", project.path().join("demo/fake"));
            command
        });
        assert!(ran.exits(1).stderr.contains("not a city"), "{ran:?}");
    }
}

#[test]
fn the_settings_template_warns_that_writing_the_project_runs_code() {
    let project = Project::new();
    riverse(&project, &["init", "demo"]).exits(0);
    let settings = std::fs::read_to_string(project.path().join("demo/settings.yaml")).unwrap();
    assert!(settings.contains("write access to a project is code execution"));
}
