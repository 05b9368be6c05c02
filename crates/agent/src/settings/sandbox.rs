//! `python.sandbox` and `tools.<name>.sandbox`: what a tool's processes may
//! read, write and connect to, and their limits.
//!
//! ```yaml
//! sandbox:
//!   read: ["."]          # relative to the project; ~/ is the home directory
//!   write: ["notes"]     # made when missing
//!   network: false       # true | false | [443, 8080]
//!   memory_mb: 512
//!   cpu_seconds: 30
//!   processes: 32
//!   file_size_mb: 64
//!   if_unsupported: refuse   # refuse | run: where the kernel can't enforce it
//!   calls: [file_write]  # tools it may call through Riverse beyond it
//!   sample: false        # self.sample; unset, allowed unless network is off
//! ```
//!
//! Every key is optional: an empty map (`sandbox: {}`) allows reading what
//! the tool itself needs and nothing else, no writes, and any network.

use std::path::{Path, PathBuf};

use riverse_process::sandbox::{Network, Sandbox, Unsupported};
use serde_json::Value;

/// The keys a sandbox takes, as its error lists them.
const KEYS: &str = "read, write, network, memory_mb, cpu_seconds, processes, file_size_mb, if_unsupported, calls, sample";

/// The sandbox at `key` (`value`, from the settings document), its paths
/// resolved against `project_dir`, each key it leaves out taken from
/// `base` (a tool's own sandbox from `python.sandbox`); `Err((key at
/// fault, why))`.
pub fn sandbox_at(
    key: &str,
    value: &Value,
    project_dir: &Path,
    base: Option<&Sandbox>,
) -> Result<Sandbox, (String, String)> {
    let Value::Object(map) = value else {
        return Err((
            key.to_owned(),
            format!("expected a map ({KEYS}), got {value}"),
        ));
    };
    let mut sandbox = match base {
        Some(base) => Sandbox {
            label: key.to_owned(),
            ..base.clone()
        },
        None => Sandbox {
            label: key.to_owned(),
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
        },
    };
    for (field, value) in map {
        let at = format!("{key}.{field}");
        let fault = |why: String| (at.clone(), why);
        match field.as_str() {
            "read" => sandbox.read = paths(value, project_dir).map_err(fault)?,
            "write" => sandbox.write = paths(value, project_dir).map_err(fault)?,
            "network" => sandbox.network = network(value).map_err(fault)?,
            "memory_mb" => sandbox.memory_mb = Some(count(value).map_err(fault)?),
            "cpu_seconds" => sandbox.cpu_seconds = Some(count(value).map_err(fault)?),
            "processes" => sandbox.processes = Some(count(value).map_err(fault)?),
            "file_size_mb" => sandbox.file_size_mb = Some(count(value).map_err(fault)?),
            "if_unsupported" => {
                sandbox.unsupported = match value.as_str() {
                    Some("refuse") => Unsupported::Refuse,
                    Some("run") => Unsupported::Run,
                    _ => return Err(fault(format!("expected refuse or run, got {value}"))),
                }
            }
            "calls" => sandbox.calls = names(value).map_err(fault)?,
            "sample" => {
                sandbox.sample = Some(
                    value
                        .as_bool()
                        .ok_or_else(|| fault(format!("expected true or false, got {value}")))?,
                );
            }
            _ => return Err(fault(format!("unknown key; a sandbox takes {KEYS}"))),
        }
    }
    Ok(sandbox)
}

/// Tool names: the syntax of a name is checked, not that a tool has it (a
/// tool may come later, from hot reload or an MCP server).
fn names(value: &Value) -> Result<Vec<String>, String> {
    let Value::Array(items) = value else {
        return Err(format!("expected a list of tool names, got {value}"));
    };
    items
        .iter()
        .map(|item| match item.as_str() {
            Some(name) if riverse_tool::is_valid_name(name) => Ok(name.to_owned()),
            _ => Err(format!("expected a tool name, got {item}")),
        })
        .collect()
}

fn paths(value: &Value, project_dir: &Path) -> Result<Vec<PathBuf>, String> {
    let items: Vec<&Value> = match value {
        Value::String(_) => vec![value],
        Value::Array(items) => items.iter().collect(),
        other => return Err(format!("expected a list of paths, got {other}")),
    };
    items
        .into_iter()
        .map(|item| match item.as_str().map(str::trim) {
            Some(path) if !path.is_empty() => Ok(resolve(path, project_dir)),
            _ => Err(format!("expected a path, got {item}")),
        })
        .collect()
}

fn resolve(path: &str, project_dir: &Path) -> PathBuf {
    let home = || std::env::var_os("HOME").map(PathBuf::from);
    let expanded = match (path, path.strip_prefix("~/")) {
        ("~", _) => home().unwrap_or_else(|| PathBuf::from(path)),
        (_, Some(rest)) => home().map_or_else(|| PathBuf::from(path), |home| home.join(rest)),
        _ => PathBuf::from(path),
    };
    let absolute = project_dir.join(expanded);
    // `..` and symlinks resolved, as the kernel will see them; a path that
    // does not exist yet is kept as written.
    std::fs::canonicalize(&absolute).unwrap_or(absolute)
}

fn network(value: &Value) -> Result<Network, String> {
    match value {
        Value::Bool(true) => Ok(Network::Any),
        Value::Bool(false) => Ok(Network::Off),
        Value::Array(ports) => ports
            .iter()
            .map(|port| {
                port.as_u64()
                    .and_then(|port| u16::try_from(port).ok())
                    .filter(|port| *port > 0)
                    .ok_or_else(|| format!("expected TCP ports from 1 to 65535, got {port}"))
            })
            .collect::<Result<Vec<u16>, String>>()
            .map(Network::Ports),
        other => Err(format!(
            "expected true, false or a list of TCP ports, got {other}"
        )),
    }
}

fn count(value: &Value) -> Result<u64, String> {
    value
        .as_u64()
        .filter(|count| *count > 0)
        .ok_or_else(|| format!("expected a whole number above 0, got {value}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn read(value: Value) -> Result<Sandbox, String> {
        sandbox_at(
            "tools.notes.sandbox",
            &value,
            Path::new("/nonexistent/project"),
            None,
        )
        .map_err(|(key, why)| format!("{key}: {why}"))
    }

    #[test]
    fn every_key_is_read_and_paths_resolve_against_the_project() {
        let sandbox = read(json!({
            "read": [".", "/srv/shared"], "write": ["notes"], "network": [443, 8080],
            "memory_mb": 512, "cpu_seconds": 30, "processes": 32, "file_size_mb": 8,
            "if_unsupported": "run",
        }))
        .unwrap();
        assert_eq!(sandbox.label, "tools.notes.sandbox");
        assert_eq!(
            sandbox.read,
            [
                PathBuf::from("/nonexistent/project/."),
                PathBuf::from("/srv/shared")
            ]
        );
        assert_eq!(sandbox.write, [PathBuf::from("/nonexistent/project/notes")]);
        assert_eq!(sandbox.network, Network::Ports(vec![443, 8080]));
        assert_eq!(
            (
                sandbox.memory_mb,
                sandbox.cpu_seconds,
                sandbox.processes,
                sandbox.file_size_mb
            ),
            (Some(512), Some(30), Some(32), Some(8))
        );
        assert_eq!(sandbox.unsupported, Unsupported::Run);
        assert_eq!(
            read(json!({"network": false})).unwrap().network,
            Network::Off
        );
        assert_eq!(read(json!({})).unwrap().network, Network::Any);
        let asking = read(json!({"calls": ["file_write", "runcmd"], "sample": false})).unwrap();
        assert_eq!(
            (asking.calls, asking.sample),
            (
                vec!["file_write".to_owned(), "runcmd".to_owned()],
                Some(false)
            )
        );
        assert_eq!(read(json!({})).unwrap().sample, None);
    }

    #[test]
    fn a_bad_key_or_value_is_named() {
        assert_eq!(
            read(json!({"writes": ["x"]})).unwrap_err(),
            format!("tools.notes.sandbox.writes: unknown key; a sandbox takes {KEYS}")
        );
        assert_eq!(
            read(json!({"network": [0]})).unwrap_err(),
            "tools.notes.sandbox.network: expected TCP ports from 1 to 65535, got 0"
        );
        assert_eq!(
            read(json!({"memory_mb": -1})).unwrap_err(),
            "tools.notes.sandbox.memory_mb: expected a whole number above 0, got -1"
        );
        assert_eq!(
            read(json!({"write": [3]})).unwrap_err(),
            "tools.notes.sandbox.write: expected a path, got 3"
        );
        assert_eq!(
            read(json!({"if_unsupported": "maybe"})).unwrap_err(),
            "tools.notes.sandbox.if_unsupported: expected refuse or run, got \"maybe\""
        );
        assert_eq!(
            read(json!({"calls": "file_write"})).unwrap_err(),
            "tools.notes.sandbox.calls: expected a list of tool names, got \"file_write\""
        );
        assert_eq!(
            read(json!({"calls": ["file write"]})).unwrap_err(),
            "tools.notes.sandbox.calls: expected a tool name, got \"file write\""
        );
        assert_eq!(
            read(json!({"sample": "yes"})).unwrap_err(),
            "tools.notes.sandbox.sample: expected true or false, got \"yes\""
        );
        assert_eq!(
            read(json!(true)).unwrap_err(),
            format!("tools.notes.sandbox: expected a map ({KEYS}), got true")
        );
    }
}
