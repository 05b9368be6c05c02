//! Command agents: one program per call, its standard output as the result.
//!
//! Without `shell: true` the template is split into words first and each
//! placeholder is filled inside its word, so a value is always exactly one
//! argument and no shell ever reads it. With `shell: true` the filled
//! template runs through `sh -c` with every value quoted. The program runs in
//! its own process group, killed whole at the deadline or when the call is
//! dropped.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use riverse_tool::{Params, ToolResult, seconds};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;

use crate::excerpt;
use crate::spec::CommandSpec;
use crate::template::{fill, value_text, verbatim};

/// How much of each output stream is kept; the rest is read and dropped so
/// the program never blocks on a full pipe.
const MAX_CAPTURE_BYTES: usize = 1024 * 1024;

pub(crate) async fn call(
    spec: &CommandSpec,
    params: &Params,
    project_dir: &Path,
    deadline: Duration,
) -> ToolResult {
    if let Err(error) = check_allowed(spec, params) {
        return ToolResult::failure(error);
    }
    let argv = match argv(spec, params) {
        Ok(argv) => argv,
        Err(error) => return ToolResult::failure(error),
    };
    let timeout = spec.timeout.min(deadline);
    run(&argv, project_dir, timeout).await
}

/// `allowed_params`: a listed parameter's value must be one of its values.
fn check_allowed(spec: &CommandSpec, params: &Params) -> Result<(), String> {
    for (param, allowed) in &spec.allowed_params {
        let Some(value) = params.get(param) else {
            continue;
        };
        let value = value_text(value);
        if !allowed.iter().any(|permitted| *permitted == value) {
            return Err(format!(
                "parameter \"{param}\": {value:?} is not allowed; allowed: {}",
                allowed.join(", ")
            ));
        }
    }
    Ok(())
}

/// The program and its arguments.
fn argv(spec: &CommandSpec, params: &Params) -> Result<Vec<String>, String> {
    if spec.shell {
        let quoted = |text: &str| {
            shlex::try_quote(text)
                .map(|quoted| quoted.into_owned())
                .map_err(|err| format!("a value can't be quoted for the shell: {err}"))
        };
        return Ok(vec![
            "sh".into(),
            "-c".into(),
            fill(&spec.template, params, quoted)?,
        ]);
    }
    let words = shlex::split(&spec.template)
        .ok_or_else(|| "command.template has unbalanced quotes".to_owned())?;
    let mut argv = Vec::with_capacity(words.len());
    for word in words {
        let filled = fill(&word, params, verbatim)?;
        // A word that was only a missing placeholder disappears, as it
        // does in Riverse.
        if !filled.is_empty() || word.is_empty() {
            argv.push(filled);
        }
    }
    if argv.is_empty() {
        return Err("command.template is empty once filled".into());
    }
    Ok(argv)
}

async fn run(argv: &[String], project_dir: &Path, timeout: Duration) -> ToolResult {
    let mut command = Command::new(&argv[0]);
    command
        .args(&argv[1..])
        .current_dir(project_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(err) => return ToolResult::failure(format!("can't run {:?}: {err}", argv[0])),
    };
    let group = child.id().map(|pid| ProcessGroup(pid as i32));
    let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
        return ToolResult::failure(format!("can't read the output of {:?}", argv[0]));
    };
    let waited = async {
        let status = child.wait().await;
        // Whatever the program left running would hold the pipes open.
        if let Some(group) = &group {
            group.kill();
        }
        status
    };
    let finished = async { tokio::join!(waited, read_capped(stdout), read_capped(stderr)) };
    let (status, stdout, stderr) = match tokio::time::timeout(timeout, finished).await {
        Ok(done) => done,
        Err(_elapsed) => {
            drop(group);
            return ToolResult::failure(format!(
                "{:?} timed out after {}; it was killed",
                argv[0],
                seconds(timeout)
            ));
        }
    };
    drop(group);
    let status = match status {
        Ok(status) => status,
        Err(err) => return ToolResult::failure(format!("{:?}: {err}", argv[0])),
    };
    if !status.success() {
        use std::os::unix::process::ExitStatusExt;
        let how = match (status.code(), status.signal()) {
            (Some(code), _) => format!("exited with status {code}"),
            (None, Some(signal)) => format!("was killed by signal {signal}"),
            (None, None) => "failed".to_owned(),
        };
        let stderr = String::from_utf8_lossy(&stderr);
        return ToolResult::failure(match stderr.trim() {
            "" => format!("{:?} {how}", argv[0]),
            text => format!("{:?} {how}: {}", argv[0], excerpt(text)),
        });
    }
    ToolResult::ok(String::from_utf8_lossy(&stdout).trim().to_owned())
}

/// Reads a stream to its end, keeping its first [`MAX_CAPTURE_BYTES`].
async fn read_capped(mut stream: impl AsyncRead + Unpin) -> Vec<u8> {
    let mut kept = Vec::new();
    let mut buffer = [0u8; 8192];
    loop {
        match stream.read(&mut buffer).await {
            Ok(0) | Err(_) => return kept,
            Ok(read) => {
                let room = MAX_CAPTURE_BYTES.saturating_sub(kept.len());
                kept.extend_from_slice(&buffer[..read.min(room)]);
            }
        }
    }
}

/// The program's process group, killed whole when dropped: what it started
/// in the background goes with it.
struct ProcessGroup(i32);

impl ProcessGroup {
    fn kill(&self) {
        // ESRCH means the group is already gone.
        let _ = killpg(Pid::from_raw(self.0), Signal::SIGKILL);
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        self.kill();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use indexmap::IndexMap;
    use pretty_assertions::assert_eq;
    use serde_json::{Value, json};

    fn spec(template: &str, shell: bool) -> CommandSpec {
        CommandSpec {
            template: template.into(),
            timeout: Duration::from_secs(5),
            shell,
            allowed_params: IndexMap::new(),
        }
    }

    fn params(value: Value) -> Params {
        let Value::Object(map) = value else { panic!() };
        map
    }

    #[test]
    fn a_value_is_one_argument_without_a_shell() {
        assert_eq!(
            argv(
                &spec("grep -n '{pattern}' {file}", false),
                &params(json!({"pattern": "a b; rm -rf /", "file": "x"}))
            ),
            Ok(vec![
                "grep".into(),
                "-n".into(),
                "a b; rm -rf /".into(),
                "x".into()
            ])
        );
        assert_eq!(
            argv(&spec("ls {dir} -l", false), &params(json!({}))),
            Ok(vec!["ls".into(), "-l".into()])
        );
    }

    #[test]
    fn with_a_shell_every_value_is_quoted() {
        assert_eq!(
            argv(
                &spec("echo {msg}", true),
                &params(json!({"msg": "$(id); echo pwned"}))
            ),
            Ok(vec![
                "sh".into(),
                "-c".into(),
                "echo '$(id); echo pwned'".into()
            ])
        );
    }
}
