//! The pool of worker interpreters.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use riverse_protocol::{
    CallToolResult, DiscoveryResult, FileFate, WorkerError, WorkerInit, methods,
};
use riverse_tool::{Params, ToolResult};
use serde_json::{Value, json};
use tokio::sync::{Semaphore, SemaphorePermit};

use crate::worker::{RequestError, SpawnOptions, Worker};
use crate::{Error, HostLink, Interpreter, resolve_interpreter, seconds};

/// What the pool needs from the settings.
#[derive(Debug, Clone)]
pub struct PythonOptions {
    /// `python.interpreter`; `None` searches the usual places.
    pub interpreter: Option<String>,
    /// Workers run here; relative paths resolve against it.
    pub project_dir: PathBuf,
    pub tools_dir: PathBuf,
    /// The most workers alive at once (`python.workers`).
    pub workers: usize,
    /// Deadline for one file's import (`python.import_timeout`).
    pub import_timeout: Duration,
    /// The whole settings document, handed to every tool's `__init__`.
    pub config: Value,
    /// The registry a tool's `ToolRegistry` calls through (see `host_calls.rs`).
    pub host: HostLink,
}

/// A supervised pool of Python workers, cheap to clone.
#[derive(Clone)]
pub struct WorkerPool {
    inner: Arc<Inner>,
}

struct Inner {
    options: PythonOptions,
    interpreter: Interpreter,
    /// One permit per worker that may be alive: a caller holds one while it
    /// uses a worker, so at most `workers` calls run at once.
    permits: Semaphore,
    /// Workers waiting for a call.
    idle: Mutex<Vec<Worker>>,
    /// Files whose import timed out; later workers skip them.
    timed_out: Mutex<Vec<String>>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl WorkerPool {
    /// Finds the interpreter; spawns nothing yet.
    pub fn new(options: PythonOptions) -> Result<Self, Error> {
        let interpreter =
            resolve_interpreter(options.interpreter.as_deref(), &options.project_dir)?;
        let workers = options.workers.max(1);
        Ok(WorkerPool {
            inner: Arc::new(Inner {
                options,
                interpreter,
                permits: Semaphore::new(workers),
                idle: Mutex::new(Vec::new()),
                timed_out: Mutex::new(Vec::new()),
            }),
        })
    }

    pub fn interpreter(&self) -> &Interpreter {
        &self.inner.interpreter
    }

    pub fn options(&self) -> &PythonOptions {
        &self.inner.options
    }

    /// Imports the tools directory in a worker (which stays in the pool) and
    /// reports every file's fate, with timed-out imports as failures.
    pub async fn discover(&self) -> Result<DiscoveryResult, Error> {
        let (worker, _permit) = self.checkout().await?;
        let reply = worker.request(methods::DISCOVERY, json!({})).await;
        let value = match reply {
            Ok(value) => value,
            Err(RequestError::Rpc(error)) => return Err(Error::WorkerDied(error.message)),
            Err(RequestError::Died(cause)) => return Err(Error::WorkerDied(cause)),
        };
        self.checkin(worker);
        let mut discovery: DiscoveryResult = serde_json::from_value(value)
            .map_err(|err| Error::WorkerDied(format!("unreadable discovery: {err}")))?;
        let after = seconds(self.inner.options.import_timeout);
        for report in &mut discovery.files {
            if report.fate == FileFate::Skipped {
                report.fate = FileFate::Failed;
                report.error = Some(WorkerError {
                    message: format!("import timed out after {after}"),
                    file: Some(report.file.clone()),
                    line: None,
                    traceback: None,
                });
            }
        }
        Ok(discovery)
    }

    /// Runs one call of tool `name` on an idle worker, under `timeout`. Every
    /// way it can go wrong becomes a failed result that says what happened.
    pub async fn call(&self, name: &str, arguments: Params, timeout: Duration) -> ToolResult {
        let (worker, _permit) = match self.checkout().await {
            Ok(checked_out) => checked_out,
            Err(err) => {
                return ToolResult::failure(format!("tool \"{name}\" could not run: {err}"));
            }
        };
        let params = json!({"name": name, "arguments": arguments});
        let reply =
            tokio::time::timeout(timeout, worker.request(methods::TOOLS_CALL, params)).await;
        let value = match reply {
            Ok(Ok(value)) => value,
            Ok(Err(RequestError::Rpc(error))) => {
                self.checkin(worker);
                return ToolResult::failure(format!("tool \"{name}\": {}", error.message));
            }
            Ok(Err(RequestError::Died(cause))) => {
                return ToolResult::failure(format!(
                    "tool \"{name}\" crashed: {cause}; a fresh worker will serve later calls"
                ));
            }
            Err(_elapsed) => {
                worker.kill();
                return ToolResult::failure(format!(
                    "tool \"{name}\" timed out after {}; its worker was killed and a fresh one will serve later calls",
                    seconds(timeout)
                ));
            }
        };
        self.checkin(worker);
        tool_result(name, value)
    }

    /// An idle worker, or a new one when none is idle.
    async fn checkout(&self) -> Result<(Worker, SemaphorePermit<'_>), Error> {
        let permit = self
            .inner
            .permits
            .acquire()
            .await
            .map_err(|_| Error::WorkerDied("the pool is closed".into()))?;
        loop {
            let Some(worker) = lock(&self.inner.idle).pop() else {
                break;
            };
            if worker.is_alive() {
                return Ok((worker, permit));
            }
        }
        Ok((self.spawn().await?, permit))
    }

    fn checkin(&self, worker: Worker) {
        lock(&self.inner.idle).push(worker);
    }

    /// Spawns a worker, skipping each file whose import times out.
    async fn spawn(&self) -> Result<Worker, Error> {
        let options = &self.inner.options;
        loop {
            let skip = lock(&self.inner.timed_out).clone();
            let spawned = Worker::spawn(SpawnOptions {
                interpreter: &self.inner.interpreter,
                project_dir: &options.project_dir,
                init: WorkerInit {
                    tools_dir: options
                        .project_dir
                        .join(&options.tools_dir)
                        .display()
                        .to_string(),
                    config: options.config.clone(),
                    skip,
                },
                import_timeout: options.import_timeout,
                host: options.host.clone(),
            })
            .await;
            match spawned {
                Err(Error::ImportTimedOut { file, after }) => {
                    tracing::warn!("import of {file} timed out after {after}; skipping it");
                    lock(&self.inner.timed_out).push(file);
                }
                other => return other,
            }
        }
    }
}

/// Reads a `tools/call` result: Riverse's worker sends the whole `ToolResult` as
/// structured content; any other MCP server only text and `isError`.
fn tool_result(name: &str, value: Value) -> ToolResult {
    let result: CallToolResult = match serde_json::from_value(value) {
        Ok(result) => result,
        Err(err) => {
            return ToolResult::failure(format!("tool \"{name}\": unreadable result: {err}"));
        }
    };
    if let Some(structured) = &result.structured_content {
        if let Some(trace) = structured.get("traceback").and_then(Value::as_str) {
            tracing::debug!(target: "tool", "{name}: {trace}");
        }
        if let Ok(parsed) = serde_json::from_value::<ToolResult>(structured.clone()) {
            return parsed;
        }
    }
    let text = result.text();
    if result.is_error {
        ToolResult::failure(text)
    } else {
        ToolResult::ok(text)
    }
}
