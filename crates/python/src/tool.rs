//! Python tools as registry tools.

use std::path::{Path, PathBuf};
use std::time::Duration;

use std::collections::{BTreeMap, BTreeSet};

use riverse_process::sandbox::Sandbox;
use riverse_protocol::{DiscoveryResult, FileFate};
use riverse_tool::{CallContext, Found, Params, Tool, ToolManifest, ToolResult, ToolSource};

use crate::{Error, PythonOptions, WorkerPool, environment, resolve_interpreter};

/// A tool defined by a Python file, run in the pool.
pub struct PythonTool {
    manifest: ToolManifest,
    source: ToolSource,
    pool: WorkerPool,
}

#[async_trait::async_trait]
impl Tool for PythonTool {
    fn manifest(&self) -> &ToolManifest {
        &self.manifest
    }

    fn source(&self) -> &ToolSource {
        &self.source
    }

    fn sandbox(&self) -> Option<&Sandbox> {
        self.pool.options().sandbox.as_ref()
    }

    async fn call(&self, params: Params, timeout: Duration, context: &CallContext) -> ToolResult {
        self.pool
            .call(&self.manifest.name, params, timeout, context)
            .await
    }
}

/// Discovers the tools directory and yields every tool and every failure, in
/// file-name order. A missing interpreter is one failure for the whole source.
pub async fn python_tools(options: PythonOptions) -> Vec<Found> {
    let requested = options
        .interpreter
        .clone()
        .unwrap_or_else(|| "python3".into());
    let shown_dir = shown_tools_dir(&options.project_dir, &options.tools_dir);
    let hint = options.interpreter_hint.clone();
    let host_failure = |err: Error| {
        let error = match &hint {
            Some(hint) if err.is_about_the_interpreter() => format!("{err}; {hint}"),
            _ => err.to_string(),
        };
        vec![Found::Failure {
            source: ToolSource::PythonHost {
                interpreter: requested.clone(),
            },
            name: None,
            error,
        }]
    };
    let prestart = options.prestart;
    let base = match resolve_interpreter(options.interpreter.as_deref(), &options.project_dir) {
        Ok(base) => base,
        Err(err) => return host_failure(err),
    };
    let tools_dir = options.project_dir.join(&options.tools_dir);
    let prepared = environment::prepare(
        &options.project_dir,
        &tools_dir,
        base,
        &options.environment,
        false,
    )
    .await;
    let (skip, unmet_elsewhere): (Vec<_>, Vec<_>) = prepared
        .unmet
        .into_iter()
        .partition(|unmet| unmet.file.ends_with(".py"));
    let skip = skip
        .into_iter()
        .map(|unmet| (unmet.file, unmet.error))
        .collect();
    let interpreter = prepared.interpreter;
    let pool = WorkerPool::with_interpreter(options.clone(), interpreter.clone(), skip);
    let mut found: Vec<Found> = unmet_elsewhere
        .into_iter()
        .map(|unmet| Found::Failure {
            source: ToolSource::Python {
                file: shown_dir.join(&unmet.file),
            },
            name: None,
            error: unmet.error,
        })
        .collect();
    let discovery = match pool.discover().await {
        Ok(discovery) => discovery,
        Err(err) => return host_failure(err),
    };
    if prestart {
        pool.prestart();
    }
    let sandboxed = own_sandboxes(&options, &discovery);
    let files: Vec<String> = discovery
        .files
        .iter()
        .map(|report| report.file.clone())
        .collect();
    // What each tool of its own sandbox became there, by name and file.
    let mut own: BTreeMap<(String, String), Vec<Found>> = BTreeMap::new();
    for (sandbox, names) in groups(&sandboxed) {
        let tools = sandboxed_tools(&options, &interpreter, &files, sandbox, &names, &shown_dir);
        for (key, one) in tools.await {
            own.entry(key).or_default().push(one);
        }
    }
    // In the main discovery's order, the files': the winner of two files
    // naming one tool does not depend on which pool imported them (issue 49).
    for (file, name, one) in tools_of(discovery, &pool, &shown_dir) {
        let Some((name, (sandbox, _))) = name.and_then(|name| sandboxed.get_key_value(&name))
        else {
            found.push(one);
            continue;
        };
        let theirs = own.remove(&(name.clone(), file.clone()));
        found.extend(theirs.unwrap_or_else(|| {
            vec![Found::Failure {
                source: ToolSource::Python {
                    file: shown_dir.join(&file),
                },
                name: Some(name.clone()),
                error: format!(
                    "tool \"{name}\" was not found again under {}",
                    sandbox.label
                ),
            }]
        }));
    }
    found
}

/// The tools found whose sandbox is their own (`tools.<name>.sandbox`, not
/// the discovering pool's), with every file that defines each, in file order.
fn own_sandboxes<'a>(
    options: &'a PythonOptions,
    discovery: &DiscoveryResult,
) -> BTreeMap<String, (&'a Sandbox, Vec<String>)> {
    let mut sandboxed: BTreeMap<String, (&Sandbox, Vec<String>)> = BTreeMap::new();
    for report in &discovery.files {
        for class in &report.classes {
            let Some(name) = class
                .manifest
                .as_ref()
                .and_then(|manifest| manifest.get("name"))
                .and_then(serde_json::Value::as_str)
            else {
                continue;
            };
            if let Some(sandbox) = options.tool_sandboxes.get(name)
                && options.sandbox.as_ref() != Some(sandbox)
            {
                let (_, files) = sandboxed
                    .entry(name.to_owned())
                    .or_insert_with(|| (sandbox, Vec::new()));
                if !files.contains(&report.file) {
                    files.push(report.file.clone());
                }
            }
        }
    }
    sandboxed
}

/// The tools of each distinct sandbox, each with each of its files.
fn groups<'a>(
    sandboxed: &BTreeMap<String, (&'a Sandbox, Vec<String>)>,
) -> Vec<(&'a Sandbox, Vec<(String, String)>)> {
    let mut groups: Vec<(&Sandbox, Vec<(String, String)>)> = Vec::new();
    for (name, (sandbox, files)) in sandboxed {
        let entries = files.iter().map(|file| (name.clone(), file.clone()));
        match groups.iter_mut().find(|(seen, _)| seen == sandbox) {
            Some((_, names)) => names.extend(entries),
            None => groups.push((sandbox, entries.collect())),
        }
    }
    groups
}

/// The tools `names` (each with a file that defines it) from a pool of their
/// own, under `sandbox`: its workers import only their files, after
/// entering it. Each comes with its name and file.
async fn sandboxed_tools(
    options: &PythonOptions,
    interpreter: &crate::Interpreter,
    files: &[String],
    sandbox: &Sandbox,
    names: &[(String, String)],
    shown_dir: &Path,
) -> Vec<((String, String), Found)> {
    let theirs: BTreeSet<&str> = names.iter().map(|(_, file)| file.as_str()).collect();
    let skip = files
        .iter()
        .filter(|file| !theirs.contains(file.as_str()))
        .map(|file| {
            (
                file.clone(),
                format!("imported under another sandbox than {}", sandbox.label),
            )
        })
        .collect();
    let mut own = options.clone();
    own.sandbox = Some(sandbox.clone());
    own.tool_sandboxes.clear();
    let pool = WorkerPool::with_interpreter(own, interpreter.clone(), skip);
    let wanted: BTreeSet<&str> = names.iter().map(|(name, _)| name.as_str()).collect();
    match pool.discover().await {
        Ok(discovery) => {
            if options.prestart {
                pool.prestart();
            }
            let mut found = Vec::new();
            for (file, name, one) in tools_of(discovery, &pool, shown_dir) {
                match (name, one) {
                    (Some(name), one) if wanted.contains(name.as_str()) => {
                        found.push(((name, file), one));
                    }
                    // A file of theirs that failed under the sandbox: a
                    // failure of each of its tools.
                    (None, Found::Failure { source, error, .. }) => {
                        for (name, own) in names.iter().filter(|(_, own)| *own == file) {
                            let failure = Found::Failure {
                                source: source.clone(),
                                name: Some(name.clone()),
                                error: error.clone(),
                            };
                            found.push(((name.clone(), own.clone()), failure));
                        }
                    }
                    _ => {}
                }
            }
            found
        }
        Err(err) => names
            .iter()
            .map(|(name, file)| {
                let failure = Found::Failure {
                    source: ToolSource::Python {
                        file: shown_dir.join(file),
                    },
                    name: Some(name.clone()),
                    error: err.to_string(),
                };
                ((name.clone(), file.clone()), failure)
            })
            .collect(),
    }
}

/// Every tool and failure of a discovery, in file order, each with its file
/// (as the discovery names it) and its tool's name when it has one; its
/// tools run in `pool`.
fn tools_of(
    discovery: DiscoveryResult,
    pool: &WorkerPool,
    shown_dir: &Path,
) -> Vec<(String, Option<String>, Found)> {
    let mut found = Vec::new();
    for report in discovery.files {
        let source = ToolSource::Python {
            file: shown_dir.join(&report.file),
        };
        if report.fate == FileFate::Failed {
            let error = report
                .error
                .map(|error| error.located())
                .unwrap_or_else(|| "failed".into());
            let failure = Found::Failure {
                source,
                name: None,
                error,
            };
            found.push((report.file.clone(), None, failure));
            continue;
        }
        for class in report.classes {
            let manifest = class
                .manifest
                .map(serde_json::from_value::<ToolManifest>)
                .transpose();
            let name = manifest
                .as_ref()
                .ok()
                .and_then(Option::as_ref)
                .map(|manifest| manifest.name.clone());
            let one = match (class.error, manifest) {
                (Some(error), _) => Found::Failure {
                    source: source.clone(),
                    name: name.clone(),
                    error: error.located(),
                },
                (None, Err(err)) => Found::Failure {
                    source: source.clone(),
                    name: name.clone(),
                    error: format!(
                        "{}.manifest() returned an unreadable manifest: {err}",
                        class.class_name
                    ),
                },
                (None, Ok(None)) => continue,
                (None, Ok(Some(manifest))) => Found::Tool {
                    tool: std::sync::Arc::new(PythonTool {
                        manifest,
                        source: source.clone(),
                        pool: pool.clone(),
                    }),
                    available: class.available,
                },
            };
            found.push((report.file.clone(), name, one));
        }
    }
    found
}

/// The tools directory relative to the project when it lies inside it.
fn shown_tools_dir(project_dir: &Path, tools_dir: &Path) -> PathBuf {
    let full = project_dir.join(tools_dir);
    full.strip_prefix(project_dir)
        .map(Path::to_path_buf)
        .unwrap_or(full)
}
