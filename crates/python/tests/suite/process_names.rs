//! What `ps` shows of a worker (issue 49): its name, and a command line that
//! says whose it is, where it used to show only the start of its code.

use pretty_assertions::assert_eq;
use riverse_process::sandbox::{Network, Sandbox, Unsupported};
use serde_json::json;

use super::support::{call, options, project, registry};

/// `/proc/<pid>/comm`, and what `/proc/<pid>/cmdline` holds after `python -c
/// CODE`, up to the script directory a cached worker script adds.
fn shown(pid: &str) -> (String, Vec<String>) {
    let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap();
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap();
    let args: Vec<String> = String::from_utf8(cmdline)
        .unwrap()
        .split_terminator('\0')
        .map(str::to_owned)
        .collect();
    assert_eq!(args[1], "-c", "{args:?}");
    (comm.trim_end().to_owned(), args[3..].to_vec())
}

#[tokio::test]
async fn a_worker_is_named_riverse_worker_with_its_project_whether_forked_or_fresh() {
    let project = project(&["worker_pid.py", "server_pid.py"]);
    let path = project.path().display().to_string();
    for fork in [true, false] {
        let mut options = options(&project);
        options.fork = fork;
        let registry = registry(options).await;
        let worker = call(&registry, "worker_pid", json!({})).await.data;
        let (comm, args) = shown(&worker);
        assert_eq!(comm, "riverse-worker", "fork: {fork}");
        assert_eq!(args[..2], ["riverse-worker", path.as_str()], "fork: {fork}");
        if fork {
            // A forked worker's command line is its fork server's; the name tells them apart.
            let server = call(&registry, "server_pid", json!({})).await.data;
            let (comm, server_args) = shown(&server);
            assert_eq!(comm, "riverse-forksrv");
            assert_eq!(server_args, args);
        }
    }
}

#[tokio::test]
async fn a_sandboxed_pools_workers_show_its_sandbox() {
    let project = project(&["worker_pid.py"]);
    let mut options = options(&project);
    options.sandbox = Some(Sandbox {
        label: "tools.worker_pid.sandbox".into(),
        read: vec![],
        write: vec![],
        network: Network::Off,
        memory_mb: None,
        cpu_seconds: None,
        processes: None,
        file_size_mb: None,
        unsupported: Unsupported::Run,
        calls: vec![],
        sample: None,
    });
    let registry = registry(options).await;
    let worker = call(&registry, "worker_pid", json!({})).await.data;
    let (_, args) = shown(&worker);
    let path = project.path().display().to_string();
    assert_eq!(
        args[..3],
        ["riverse-worker", "tools.worker_pid.sandbox", path.as_str()]
    );
}
