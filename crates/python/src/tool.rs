//! Python tools as registry tools.

use std::path::{Path, PathBuf};
use std::time::Duration;

use riverse_protocol::FileFate;
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
    let pool = WorkerPool::with_interpreter(options, prepared.interpreter, skip);
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
    for report in discovery.files {
        let source = ToolSource::Python {
            file: shown_dir.join(&report.file),
        };
        if report.fate == FileFate::Failed {
            let error = report
                .error
                .map(|error| error.located())
                .unwrap_or_else(|| "failed".into());
            found.push(Found::Failure {
                source,
                name: None,
                error,
            });
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
            match (class.error, manifest) {
                (Some(error), _) => found.push(Found::Failure {
                    source: source.clone(),
                    name,
                    error: error.located(),
                }),
                (None, Err(err)) => found.push(Found::Failure {
                    source: source.clone(),
                    name,
                    error: format!(
                        "{}.manifest() returned an unreadable manifest: {err}",
                        class.class_name
                    ),
                }),
                (None, Ok(None)) => {}
                (None, Ok(Some(manifest))) => found.push(Found::Tool {
                    tool: std::sync::Arc::new(PythonTool {
                        manifest,
                        source: source.clone(),
                        pool: pool.clone(),
                    }),
                    available: class.available,
                }),
            }
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
