//! A real child started under a [`Sandbox`], as the Python host and the
//! YAML command tools start theirs ([`Sandbox::confinement`], then
//! [`Confinement::apply_to`] before [`Child::spawn`]): a shell whose
//! commands try to leave it. What the sandbox forbids fails in the child and
//! does not happen; what it allows still works. The end-to-end tests, with
//! Riverse's messages naming each rule, are the `riverse` binary's
//! (`crates/cli/tests/suite/sandbox*.rs`).
//!
//! [`Confinement::apply_to`]: riverse_process::sandbox::Confinement::apply_to

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::time::Duration;

use pretty_assertions::assert_eq;
use riverse_process::sandbox::{Network, Sandbox, Unsupported, landlock_abi};
use riverse_process::{Child, Exit, Relay, Spawned, Target};
use riverse_test_support::skip;
use tokio::io::AsyncReadExt;

/// The longest a confined command may take.
const PATIENCE: Duration = Duration::from_secs(60);

/// SIGXFSZ and SIGXCPU: what the kernel ends a process with past its file
/// size and CPU time limits.
const SIGXFSZ: i32 = 25;
const SIGXCPU: i32 = 24;

/// A sandbox that allows nothing of its own: no path beside the system's,
/// TCP anywhere, no limit.
fn sandbox() -> Sandbox {
    Sandbox {
        label: "test.sandbox".to_owned(),
        read: Vec::new(),
        write: Vec::new(),
        network: Network::Any,
        memory_mb: None,
        cpu_seconds: None,
        processes: None,
        file_size_mb: None,
        unsupported: Unsupported::Refuse,
        calls: Vec::new(),
        sample: None,
    }
}

/// Whether this kernel's Landlock offers `abi` (4 for TCP rules); when it
/// does not, the running test is skipped.
fn landlock_or_skip(abi: u32) -> bool {
    let offered = landlock_abi();
    if offered >= abi {
        return true;
    }
    skip(&format!(
        "the kernel's Landlock ABI is {offered} (0: none, or off); this test needs {abi}"
    ));
    false
}

/// How a confined command ended, and what it wrote.
#[derive(Debug)]
struct Ran {
    exit: Exit,
    stdout: String,
    /// Its last lines.
    stderr: Vec<String>,
}

impl Ran {
    /// Whether a line of its stderr says `denied` for `path`.
    fn denied(&self, path: &Path) -> bool {
        let path = path.display().to_string();
        self.stderr
            .iter()
            .any(|line| line.contains(&path) && line.contains("Permission denied"))
    }
}

/// Runs `script` with `bash -c` in a child that entered `sandbox`, to its
/// end.
async fn confined(sandbox: &Sandbox, script: &str) -> Ran {
    let confinement = sandbox
        .confinement(&[])
        .unwrap_or_else(|err| panic!("the sandbox can't be applied: {err}"))
        .expect("this kernel enforces the sandbox");
    let mut command = tokio::process::Command::new("/bin/bash");
    command.arg("-c").arg(script);
    confinement.apply_to(&mut command);
    let relay = Relay {
        target: Target::Tool,
        label: "confined".to_owned(),
        marker: None,
    };
    let Spawned {
        child,
        stdin,
        mut stdout,
    } = Child::spawn(command, relay).unwrap();
    drop(stdin);
    let mut written = String::new();
    let ran = async {
        stdout.read_to_string(&mut written).await.unwrap();
        child.wait().await
    };
    let exit = tokio::time::timeout(PATIENCE, ran)
        .await
        .unwrap_or_else(|_| panic!("{script:?} ran past {PATIENCE:?}"));
    child.stderr_ended(Duration::from_secs(5)).await;
    Ran {
        exit,
        stdout: written,
        stderr: child.stderr_tail(),
    }
}

/// A directory for one test, and its path as the kernel names it.
fn directory() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix("riverse-process-sandbox-")
        .tempdir()
        .unwrap();
    let path = dir.path().canonicalize().unwrap();
    (dir, path)
}

#[tokio::test]
async fn a_write_outside_the_write_list_is_refused_and_changes_nothing() {
    if !landlock_or_skip(1) {
        return;
    }
    let (_allowed_dir, allowed) = directory();
    let (_outside_dir, outside) = directory();
    let target = outside.join("target.txt");
    std::fs::write(&target, "original\n").unwrap();
    let mut sandbox = sandbox();
    sandbox.write = vec![allowed.clone()];

    let script = format!(
        "echo mine > {inside}; echo pwned >> {target}; echo new > {new}; \
         mv {target} {moved}",
        inside = allowed.join("mine.txt").display(),
        target = target.display(),
        new = outside.join("new.txt").display(),
        moved = allowed.join("moved.txt").display(),
    );
    let ran = confined(&sandbox, &script).await;

    assert_eq!(
        std::fs::read_to_string(allowed.join("mine.txt")).unwrap(),
        "mine\n",
        "{ran:#?}"
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "original\n");
    assert!(!outside.join("new.txt").exists(), "{ran:#?}");
    assert!(!allowed.join("moved.txt").exists(), "{ran:#?}");
    assert!(ran.denied(&target), "{ran:#?}");
    assert_ne!(ran.exit, Exit::Status(0), "{ran:#?}");
}

#[tokio::test]
async fn a_read_outside_the_read_list_is_refused_and_shows_nothing() {
    if !landlock_or_skip(1) {
        return;
    }
    let (_readable_dir, readable) = directory();
    let (_outside_dir, outside) = directory();
    std::fs::write(readable.join("notes.txt"), "the notes\n").unwrap();
    let secret = outside.join("secret.txt");
    std::fs::write(&secret, "the secret\n").unwrap();
    let mut sandbox = sandbox();
    sandbox.read = vec![readable.clone()];

    let script = format!(
        "cat {notes}; cat {secret}; ls {outside}",
        notes = readable.join("notes.txt").display(),
        secret = secret.display(),
        outside = outside.display(),
    );
    let ran = confined(&sandbox, &script).await;

    assert_eq!(ran.stdout, "the notes\n", "{ran:#?}");
    assert!(ran.denied(&secret), "{ran:#?}");
    assert!(ran.denied(&outside), "{ran:#?}");
    assert_ne!(ran.exit, Exit::Status(0), "{ran:#?}");
}

/// A listener on a free port of the loopback, not blocking on accept.
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

/// Connects to each port in turn, printing `PORT connected` for those it
/// reached.
fn connecting(ports: &[u16]) -> String {
    ports
        .iter()
        .map(|port| format!("(exec 3<>/dev/tcp/127.0.0.1/{port}) && echo {port} connected; "))
        .collect()
}

#[tokio::test]
async fn a_connect_to_a_port_outside_the_network_rule_is_refused() {
    if !landlock_or_skip(4) {
        return;
    }
    let (closed, closed_port) = listener();
    let (open, open_port) = listener();

    let mut off = sandbox();
    off.network = Network::Off;
    let ran = confined(&off, &connecting(&[open_port, closed_port])).await;
    assert_eq!(ran.stdout, "", "network off: {ran:#?}");
    assert!(
        !was_reached(&open),
        "network off: port {open_port} was reached"
    );
    assert!(
        !was_reached(&closed),
        "network off: port {closed_port} was reached"
    );

    let mut ports = sandbox();
    ports.network = Network::Ports(vec![open_port]);
    let ran = confined(&ports, &connecting(&[closed_port, open_port])).await;
    assert_eq!(ran.stdout, format!("{open_port} connected\n"), "{ran:#?}");
    assert!(
        ran.stderr
            .iter()
            .any(|line| line.contains("Permission denied")),
        "{ran:#?}"
    );
    assert!(!was_reached(&closed), "port {closed_port} was reached");
    assert!(
        was_reached(&open),
        "the allowed port {open_port} was not reached"
    );
}

#[tokio::test]
async fn a_file_written_past_the_size_limit_stops_at_it() {
    if !landlock_or_skip(1) {
        return;
    }
    let (_allowed_dir, allowed) = directory();
    let big = allowed.join("big");
    let mut sandbox = sandbox();
    sandbox.write = vec![allowed.clone()];
    sandbox.file_size_mb = Some(1);

    let script = format!("exec head -c 4194304 /dev/zero > {}", big.display());
    let ran = confined(&sandbox, &script).await;

    assert_eq!(ran.exit, Exit::Signal(SIGXFSZ), "{ran:#?}");
    let written = std::fs::metadata(&big).unwrap().len();
    assert!(written <= 1024 * 1024, "{written} bytes were written");
}

#[tokio::test]
async fn cpu_time_past_the_limit_ends_the_process() {
    if !landlock_or_skip(1) {
        return;
    }
    let mut sandbox = sandbox();
    sandbox.cpu_seconds = Some(1);

    let ran = confined(&sandbox, "while :; do :; done").await;

    assert_eq!(ran.exit, Exit::Signal(SIGXCPU), "{ran:#?}");
}
