//! Command agents: one program per call, its standard output as the result.
//!
//! Without `shell: true` the template is split into words first and each
//! placeholder is filled inside its word, so a value is always exactly one
//! argument and no shell ever reads it. With `shell: true` the template runs
//! through `sh -c` with every value passed as a positional parameter (see
//! [`crate::shell`]). Either way a value may not begin an argument with `-`
//! unless the entry allows options for it, and a value may not name a path
//! inside [`crate::AgentsOptions::protected_paths`]. The program runs in its
//! own process group, killed whole at the deadline or when the call is
//! dropped.

use std::path::{Component, Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use riverse_process::Registered;
use riverse_process::sandbox::Confinement;
use riverse_tool::{
    AfterTimeout, CallFailure, Params, ProgramFailure, Subject, Termination, ToolResult,
};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;

use crate::excerpt;
use crate::spec::CommandSpec;
use crate::template::value_text;
use crate::words::{Part, Word};

/// How much of each output stream is kept; the rest is read and dropped so
/// the program never blocks on a full pipe.
const MAX_CAPTURE_BYTES: usize = 1024 * 1024;

/// The longest path the kernel opens (`PATH_MAX`); a longer text can't name
/// a file, so it is not resolved.
const MAX_PATH_BYTES: usize = 4096;

/// Where a command runs and what its values may not name.
pub(crate) struct Place<'a> {
    pub(crate) project_dir: &'a Path,
    pub(crate) protected_paths: &'a [Protected],
    /// Not inherited from Riverse's environment.
    pub(crate) withheld_env: &'a [String],
    /// Where the program runs confined (`tools.<name>.sandbox`).
    pub(crate) sandbox: Option<&'a Arc<Confinement>>,
}

/// A protected path as the settings give it, and where it resolves.
pub(crate) struct Protected {
    shown: PathBuf,
    inside: PathBuf,
}

/// The protected paths resolved against the project, once, when the tools
/// are built.
pub(crate) fn protected(project_dir: &Path, paths: &[PathBuf]) -> Vec<Protected> {
    paths
        .iter()
        .map(|path| Protected {
            shown: path.clone(),
            inside: resolve(&project_dir.join(path)),
        })
        .collect()
}

pub(crate) async fn call(
    spec: &CommandSpec,
    params: &Params,
    place: &Place<'_>,
    deadline: Duration,
) -> ToolResult {
    let refused = |why| ToolResult::from(CallFailure::Refused { why });
    if let Err(why) = check_allowed(spec, params).and_then(|()| check_options(spec, params)) {
        return refused(why);
    }
    let argv = match argv(spec, params) {
        Ok(argv) => argv,
        Err(why) => return ToolResult::from(CallFailure::BadArguments { tool: None, why }),
    };
    if let Err(why) = check_protected(&argv.values, place) {
        return refused(why);
    }
    let timeout = spec.timeout.min(deadline);
    run(&argv.program, place, timeout).await
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

/// A value that begins an argument with `-` is an option to most programs
/// (`--output=FILE`, `-O'cmd'`), whatever the template meant it to be.
fn check_options(spec: &CommandSpec, params: &Params) -> Result<(), String> {
    for param in &spec.leading_params {
        if spec.allow_options.contains(param) || spec.allowed_params.contains_key(param) {
            continue;
        }
        let Some(value) = params.get(param) else {
            continue;
        };
        let value = value_text(value);
        if value.starts_with('-') {
            return Err(format!(
                "parameter \"{param}\": {value:?} starts with \"-\" and would be read as an option; \
                 the agent's command.allow_options does not allow that"
            ));
        }
    }
    Ok(())
}

/// The program with its arguments, and the texts that values put into them.
#[derive(Debug, PartialEq)]
struct Argv {
    program: Vec<String>,
    /// Each value, and (without a shell) each argument a value went into.
    values: Vec<String>,
}

fn argv(spec: &CommandSpec, params: &Params) -> Result<Argv, String> {
    let given = |name: &str| params.get(name).map(|value| value_text(value).into_owned());
    if let Some(template) = &spec.script {
        let script = template.render(given);
        let mut program = vec!["sh".into(), "-c".into(), script.text, "sh".into()];
        program.extend(script.values.iter().cloned());
        let mut values = script.values;
        // What `sh` opens is the word a value ends up in (`{dir}/file`,
        // `> out/{name}`), not the value alone.
        for word in &template.words {
            let (filled, filled_values) = fill_word(word, &given);
            if !filled_values.is_empty() {
                values.push(filled);
            }
        }
        return Ok(Argv { program, values });
    }
    let mut program = Vec::with_capacity(spec.words.len());
    let mut values = Vec::new();
    for word in &spec.words {
        let (filled, filled_values) = fill_word(word, &given);
        // A word that was only a missing placeholder disappears, as it
        // does in Riverse.
        if filled.is_empty() && !word.parts.is_empty() {
            continue;
        }
        if !filled_values.is_empty() {
            values.extend(filled_values);
            values.push(filled.clone());
        }
        program.push(filled);
    }
    if program.is_empty() {
        return Err("command.template is empty once filled".into());
    }
    Ok(Argv { program, values })
}

/// The word with its values, and the values themselves.
fn fill_word(word: &Word, given: &dyn Fn(&str) -> Option<String>) -> (String, Vec<String>) {
    let mut filled = String::new();
    let mut values = Vec::new();
    for part in &word.parts {
        match part {
            Part::Literal(text) => filled.push_str(text),
            Part::Value(name) => {
                if let Some(value) = given(name) {
                    filled.push_str(&value);
                    values.push(value);
                }
            }
        }
    }
    (filled, values)
}

/// Refuses a text that names a path inside a protected path, as the
/// command would see it: relative to the project, symlinks followed. The
/// part after a `=` (`of=FILE`, `--output=FILE`) is read as a path too.
fn check_protected(texts: &[String], place: &Place<'_>) -> Result<(), String> {
    if place.protected_paths.is_empty() {
        return Ok(());
    }
    for text in texts {
        let after_equals = text.split_once('=').map(|(_, path)| path);
        for candidate in std::iter::once(text.as_str()).chain(after_equals) {
            if candidate.is_empty() || candidate.contains('\0') || candidate.len() > MAX_PATH_BYTES
            {
                continue;
            }
            let named = resolve(&place.project_dir.join(candidate));
            if let Some(protected) = place
                .protected_paths
                .iter()
                .find(|protected| named.starts_with(&protected.inside))
            {
                return Err(format!(
                    "{text:?} names {}, which is inside the protected path {}",
                    named.display(),
                    protected.shown.display()
                ));
            }
        }
    }
    Ok(())
}

/// The path with symlinks followed as far as it exists, and the rest made
/// plain (`..` drops a name): where opening or creating it would land.
fn resolve(path: &Path) -> PathBuf {
    let components: Vec<Component<'_>> = path.components().collect();
    let (mut resolved, rest) = (0..=components.len())
        .rev()
        .find_map(|split| {
            let head: PathBuf = components[..split].iter().collect();
            head.canonicalize()
                .ok()
                .map(|real| (real, &components[split..]))
        })
        .unwrap_or_else(|| (PathBuf::new(), &components[..]));
    for component in rest {
        match component {
            Component::ParentDir => {
                resolved.pop();
            }
            Component::CurDir => {}
            other => resolved.push(other),
        }
    }
    resolved
}

async fn run(argv: &[String], place: &Place<'_>, timeout: Duration) -> ToolResult {
    let failed = |failure| {
        ToolResult::from(CallFailure::Program {
            program: argv[0].clone(),
            failure,
        })
    };
    let mut command = Command::new(&argv[0]);
    for variable in place.withheld_env {
        command.env_remove(variable);
    }
    if let Some(sandbox) = place.sandbox {
        sandbox.apply_to(&mut command);
    }
    command
        .args(&argv[1..])
        .current_dir(place.project_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    // Registered until the end of the call, so that Riverse's sweep for
    // escaped processes leaves the command alone; the group is killed then.
    let (mut child, group) = match Registered::spawn(&mut command) {
        Ok(spawned) => spawned,
        Err(err) => {
            let cause = err.to_string();
            return failed(ProgramFailure::NotStarted { cause });
        }
    };
    let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
        return failed(ProgramFailure::OutputNotTaken);
    };
    let waited = async {
        let status = child.wait().await;
        // Whatever the program left running would hold the pipes open.
        group.kill();
        status
    };
    let finished = async { tokio::join!(waited, read_capped(stdout), read_capped(stderr)) };
    let (status, stdout, stderr) = match tokio::time::timeout(timeout, finished).await {
        Ok(done) => done,
        Err(_elapsed) => {
            return ToolResult::from(CallFailure::TimedOut {
                subject: Subject::Program(argv[0].clone()),
                after: timeout,
                then: AfterTimeout::Killed,
            });
        }
    };
    let status = match status {
        Ok(status) => status,
        Err(err) => {
            let cause = err.to_string();
            return failed(ProgramFailure::Lost { cause });
        }
    };
    if !status.success() {
        use std::os::unix::process::ExitStatusExt;
        // A program's own failure is its exit status; a signal ended it from outside.
        let ended = match (status.code(), status.signal()) {
            (Some(code), _) => Termination::Status(code),
            (None, Some(signal)) => Termination::Signal(signal),
            (None, None) => Termination::Unknown,
        };
        let stderr = excerpt(String::from_utf8_lossy(&stderr).trim());
        return failed(ProgramFailure::Failed { ended, stderr });
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{Action, AgentSpec};
    use pretty_assertions::assert_eq;
    use serde_json::{Value, json};

    fn spec(template: &str, shell: bool) -> CommandSpec {
        let entry = json!({"name": "t", "type": "command", "command": {"template": template, "shell": shell}});
        match AgentSpec::parse(&entry).unwrap().action {
            Action::Command(spec) => spec,
            Action::Http(_) => panic!(),
        }
    }

    fn params(value: Value) -> Params {
        let Value::Object(map) = value else { panic!() };
        map
    }

    fn program(spec: &CommandSpec, given: Value) -> Vec<String> {
        argv(spec, &params(given)).unwrap().program
    }

    #[test]
    fn a_value_is_one_argument_without_a_shell() {
        assert_eq!(
            program(
                &spec("grep -n '{pattern}' {file}", false),
                json!({"pattern": "a b; rm -rf /", "file": "x"})
            ),
            ["grep", "-n", "a b; rm -rf /", "x"]
        );
        assert_eq!(
            program(&spec("ls {dir} -l", false), json!({})),
            ["ls", "-l"]
        );
    }

    #[test]
    fn with_a_shell_every_value_is_a_positional_parameter() {
        assert_eq!(
            program(
                &spec("echo {msg}", true),
                json!({"msg": "$(id); echo pwned"})
            ),
            ["sh", "-c", "echo \"${1}\"", "sh", "$(id); echo pwned"]
        );
    }

    #[test]
    fn a_path_resolves_through_what_exists() {
        let root = tempfile::tempdir().unwrap();
        let real = root.path().canonicalize().unwrap();
        std::fs::create_dir(real.join("a")).unwrap();
        assert_eq!(resolve(&real.join("a/new/../file")), real.join("a/file"));
        assert_eq!(resolve(&real.join("a/./b")), real.join("a/b"));
    }
}
