//! The pool of worker interpreters.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use riverse_process::Exit;
use riverse_process::sandbox::{Confinement, Network, Sandbox};
use riverse_protocol::{
    DiscoveryResult, FileFate, NetworkPolicy, SandboxPolicy, SecretValue, ToolClass, WorkerError,
    WorkerInit, error_codes, methods,
};
use riverse_tool::{
    AfterTimeout, CallContext, CallFailure, CallLimits, LimitBreach, Params, SandboxLimit, Subject,
    ToolResult, WorkerFailure,
};
use serde_json::{Value, json};
use tokio::sync::{Semaphore, SemaphorePermit};

use crate::connection::{Closed, RequestError};
use crate::deadlines::Deadlines;
use crate::env::EnvPolicy;
use crate::environment::EnvironmentOptions;
use crate::fork::{ForkError, ForkServer};
use crate::int_limit::unreadable_integer;
use crate::reply::tool_result;
use crate::worker::{SpawnOptions, Worker, describe};
use crate::worker_metrics;
use crate::{Error, HostLink, Interpreter, resolve_interpreter};

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
    /// A worker cuts a tool's `data` and `error` to `max_output_bytes`, and
    /// the host reads no reply longer than
    /// [`CallLimits::reply_bytes_with_content`].
    pub limits: CallLimits,
    /// The environment workers start with (`python.env`).
    pub env: EnvPolicy,
    /// Added to an error that another interpreter would fix: how to choose
    /// one, in the caller's terms.
    pub interpreter_hint: Option<String>,
    /// `python.fork`: fork workers from a fork server that has imported the
    /// tool files, rather than start each as a fresh interpreter.
    pub fork: bool,
    /// Start `workers` workers once the tools are discovered, rather than
    /// on the first calls (long-running commands).
    pub prestart: bool,
    /// With `fork`, the first worker is still a fresh interpreter, and the
    /// fork server starts when a second worker is wanted: for a command whose
    /// one worker discovers the tools and calls none (`riverse tools`), where
    /// a fork server would cost one more interpreter's start and a fork.
    pub first_worker_fresh: bool,
    /// The tool environment: whether declared packages are installed, and
    /// with what (`python.dependencies`, `python.installer`).
    pub environment: EnvironmentOptions,
    /// The sandbox this pool's workers (and the fork server) enter before
    /// they import a tool file: `python.sandbox` for the pool that
    /// discovers the tools.
    pub sandbox: Option<Sandbox>,
    /// The tools with a sandbox of their own (`tools.<name>.sandbox`): each
    /// distinct one gets a pool of its own, which imports only their files.
    pub tool_sandboxes: BTreeMap<String, Sandbox>,
    /// The secrets each tool is given (`tools.<name>.secrets`), sent with
    /// its calls only.
    pub tool_secrets: BTreeMap<String, BTreeMap<String, SecretValue>>,
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
    /// Files later workers skip, each with why: its import timed out, or
    /// loading it ended the worker.
    skipped: Mutex<Vec<(String, String)>>,
    /// Where new workers come from; held while a fork server starts, so two
    /// callers never start two.
    forking: tokio::sync::Mutex<Forking>,
    /// The deadlines of the calls in flight.
    deadlines: Deadlines,
    /// Each tool's file and class, once a discovery has found them: a
    /// forked worker is given them and instantiates a tool at its first call.
    tool_classes: Mutex<Option<BTreeMap<String, ToolClass>>>,
    /// The sandbox its workers enter.
    confined: Confined,
    /// Its workers serve hooks rather than tools (`WorkerInit::hooks`).
    hooks: bool,
}

/// A pool's sandbox, prepared.
enum Confined {
    /// None: no policy, or one the kernel can't enforce that accepts running
    /// unsandboxed.
    No,
    /// The confinement, and the policy as the worker reads it.
    Yes(Arc<Confinement>, Box<SandboxPolicy>),
    /// No worker may start: why.
    Refused(String),
}

/// Where new workers come from.
enum Forking {
    /// Fresh interpreters: `python.fork` is off, or a tool file started a
    /// thread at import, which a fork would not carry over.
    Off,
    /// Forks of this fork server, started on first use and again when it dies.
    On(Option<Arc<ForkServer>>),
    /// A fresh interpreter for the next worker, forks after it
    /// ([`PythonOptions::first_worker_fresh`]).
    AfterTheFirst,
}

impl WorkerPool {
    /// Finds the interpreter; spawns nothing yet.
    pub fn new(options: PythonOptions) -> Result<Self, Error> {
        let interpreter =
            resolve_interpreter(options.interpreter.as_deref(), &options.project_dir)?;
        Ok(Self::with_interpreter(options, interpreter, Vec::new()))
    }

    /// A pool whose workers run `interpreter` (the tool environment's) and
    /// never import the files of `skip`, each with why it is skipped.
    pub fn with_interpreter(
        options: PythonOptions,
        interpreter: Interpreter,
        skip: Vec<(String, String)>,
    ) -> Self {
        let workers = options.workers.clamp(1, Semaphore::MAX_PERMITS);
        // Its workers' requests are answered within its sandbox.
        let options = PythonOptions {
            host: options.host.for_caller(options.sandbox.clone()),
            ..options
        };
        let (fork, first_worker_fresh) = (options.fork, options.first_worker_fresh);
        let confined = confine(&options, &interpreter);
        WorkerPool {
            inner: Arc::new(Inner {
                options,
                interpreter,
                permits: Semaphore::new(workers),
                idle: Mutex::new(Vec::new()),
                skipped: Mutex::new(skip),
                deadlines: Deadlines::new(),
                tool_classes: Mutex::new(None),
                confined,
                hooks: false,
                forking: tokio::sync::Mutex::new(match (fork, first_worker_fresh) {
                    (false, _) => Forking::Off,
                    (true, false) => Forking::On(None),
                    (true, true) => Forking::AfterTheFirst,
                }),
            }),
        }
    }

    /// A pool whose workers serve the hooks of `options.tools_dir` (the
    /// hooks directory) rather than tools, each as a tool named
    /// `FILE:CLASS`; its workers are fresh interpreters.
    pub fn for_hooks(options: PythonOptions, interpreter: Interpreter) -> Self {
        let options = PythonOptions {
            fork: false,
            ..options
        };
        let mut pool = Self::with_interpreter(options, interpreter, Vec::new());
        if let Some(inner) = Arc::get_mut(&mut pool.inner) {
            inner.hooks = true;
        }
        pool
    }

    pub fn interpreter(&self) -> &Interpreter {
        &self.inner.interpreter
    }

    pub fn options(&self) -> &PythonOptions {
        &self.inner.options
    }

    /// Imports the tools directory in a worker (which stays in the pool) and
    /// reports every file's fate, with the files skipped (their import timed
    /// out, or loading them ended a worker) as failures that say why.
    pub async fn discover(&self) -> Result<DiscoveryResult, Error> {
        let (worker, _permit) = self.checkout().await?;
        let no_params = json!({});
        let reply = worker.request::<_, DiscoveryResult>(methods::DISCOVERY, &no_params);
        let mut discovery = match reply.await {
            Ok(discovery) => discovery,
            Err(RequestError::Rpc(error)) => {
                return Err(Error::Refused {
                    method: methods::DISCOVERY.into(),
                    message: error.message,
                });
            }
            Err(RequestError::Unreadable(what)) => return Err(Error::UnreadableDiscovery(what)),
            Err(other) => return Err(Error::WorkerDied(describe(&other))),
        };
        self.checkin(worker);
        *self.inner.tool_classes.lock() = Some(discovery.tool_classes());
        let skipped = self.inner.skipped.lock().clone();
        for report in &mut discovery.files {
            if report.fate != FileFate::Skipped {
                continue;
            }
            let why = skipped
                .iter()
                .find(|(file, _)| *file == report.file)
                .map(|(_, why)| why.clone())
                .unwrap_or_else(|| "skipped".into());
            // A reason's first line says what failed; the lines after it why.
            let (message, hint) = match why.split_once('\n') {
                Some((message, hint)) => (message.to_owned(), Some(hint.to_owned())),
                None => (why, None),
            };
            report.fate = FileFate::Failed;
            report.error = Some(WorkerError {
                message,
                file: Some(report.file.clone()),
                line: None,
                traceback: None,
                hint,
            });
        }
        Ok(discovery)
    }

    /// Runs one call of tool `name` on an idle worker, under `timeout`. Every
    /// way it can go wrong becomes a failed result that says what happened.
    pub async fn call(
        &self,
        name: &str,
        arguments: Params,
        timeout: Duration,
        context: &CallContext,
    ) -> ToolResult {
        if let Some(why) = unreadable_integer(&arguments) {
            let tool = Some(name.to_owned());
            return ToolResult::from(CallFailure::BadArguments { tool, why });
        }
        let started = tokio::time::Instant::now();
        let mut expiry = self.inner.deadlines.watch(started + timeout);
        // A worker found dead as the call is sent (killed from outside while
        // idle), or whose stream turns out to be corrupted (by an earlier
        // tool's thread), is retired and the call tried once more on a fresh one.
        let mut retried = false;
        loop {
            let (worker, _permit) = match self.checkout().await {
                Ok(checked_out) => checked_out,
                Err(err) => {
                    return ToolResult::from(CallFailure::CouldNotRun {
                        tool: name.to_owned(),
                        cause: err.to_string(),
                    });
                }
            };
            let previous = worker.last_tool();
            let reply = {
                let secrets = self.inner.options.tool_secrets.get(name);
                let calling = worker.call_tool(name, &arguments, secrets, context);
                tokio::pin!(calling);
                loop {
                    tokio::select! {
                        biased;
                        reply = &mut calling => break Some(reply),
                        () = &mut expiry => {
                            // Time spent waiting on the person (or the LLM) the
                            // tool asked is not the tool's.
                            let used = context.time_used(started.into_std());
                            if used >= timeout {
                                break None;
                            }
                            expiry = self
                                .inner
                                .deadlines
                                .watch(tokio::time::Instant::now() + (timeout - used));
                        }
                    }
                }
            };
            let error = match reply {
                Some(Ok(outcome)) => {
                    self.checkin(worker);
                    return tool_result(name, outcome);
                }
                Some(Err(error)) => error,
                None => {
                    worker.kill();
                    return ToolResult::from(CallFailure::TimedOut {
                        subject: Subject::Tool(name.to_owned()),
                        after: timeout,
                        then: AfterTimeout::WorkerReplaced,
                    });
                }
            };
            match error {
                RequestError::Rpc(error) => {
                    self.checkin(worker);
                    let refused = WorkerFailure::Refused {
                        invalid_params: error.code == error_codes::INVALID_PARAMS,
                        message: error.message,
                    };
                    return worker_failed(name, refused);
                }
                RequestError::TooLarge { total, limit } => {
                    self.checkin(worker);
                    return worker_failed(name, WorkerFailure::ReplyTooLarge { total, limit });
                }
                RequestError::Unreadable(what) => {
                    self.checkin(worker);
                    return worker_failed(name, WorkerFailure::ReplyUnreadable { what });
                }
                RequestError::Closed(closed @ Closed::Corrupted(_))
                | RequestError::NotSent(closed)
                    if !retried =>
                {
                    retire(&closed, previous.as_deref());
                    retried = true;
                }
                RequestError::Closed(closed) | RequestError::NotSent(closed) => {
                    worker_metrics::lost();
                    let crashed = WorkerFailure::Crashed {
                        how: closed.to_string(),
                        breach: self.limit_broken(&closed),
                    };
                    return worker_failed(name, crashed);
                }
            }
        }
    }

    /// Starts workers in the background until `workers` are idle, each while
    /// no call needs its permit, so the first calls find them ready.
    pub fn prestart(&self) {
        let pool = self.clone();
        tokio::spawn(async move {
            let idle = pool.inner.idle.lock().len();
            for _ in idle..pool.inner.options.workers {
                // Calls in progress start what they need themselves.
                let Ok(_permit) = pool.inner.permits.try_acquire() else {
                    return;
                };
                if let Err(err) = pool.add_worker().await {
                    tracing::debug!("can't start a python worker ahead of calls: {err}");
                    return;
                }
            }
        });
    }

    /// Starts one more worker and leaves it idle (what `prestart` does, one
    /// at a time; the host bench times it).
    pub async fn add_worker(&self) -> Result<(), Error> {
        let worker = self.spawn().await?;
        self.checkin(worker);
        Ok(())
    }

    /// An idle worker, or a new one when none is idle.
    async fn checkout(&self) -> Result<(Worker, SemaphorePermit<'_>), Error> {
        let permit = self
            .inner
            .permits
            .acquire()
            .await
            .map_err(|_| Error::PoolClosed)?;
        loop {
            let Some(worker) = self.inner.idle.lock().pop() else {
                break;
            };
            match worker.closed() {
                None => return Ok((worker, permit)),
                Some(closed @ Closed::Corrupted(_)) => {
                    retire(&closed, worker.last_tool().as_deref());
                }
                Some(_) => {}
            }
        }
        Ok((self.spawn().await?, permit))
    }

    fn checkin(&self, worker: Worker) {
        self.inner.idle.lock().push(worker);
    }

    /// The sandbox limit that a worker's death says it passed (a signal of
    /// the CPU or file size limit), `None` for any other death.
    fn limit_broken(&self, closed: &Closed) -> Option<LimitBreach> {
        let (Some(sandbox), Closed::Died(Exit::Signal(signal))) =
            (&self.inner.options.sandbox, closed)
        else {
            return None;
        };
        let limit = match (*signal, sandbox.cpu_seconds, sandbox.file_size_mb) {
            (libc::SIGXCPU, Some(limit), _) => SandboxLimit::CpuSeconds(limit),
            (libc::SIGXFSZ, _, Some(limit)) => SandboxLimit::FileSizeMb(limit),
            _ => return None,
        };
        Some(LimitBreach {
            sandbox: sandbox.label.clone(),
            limit,
        })
    }

    /// Spawns a worker, skipping each file whose import times out or ends
    /// the worker.
    async fn spawn(&self) -> Result<Worker, Error> {
        loop {
            let skip: Vec<String> = self
                .inner
                .skipped
                .lock()
                .iter()
                .map(|(file, _)| file.clone())
                .collect();
            let (file, why) = match self.spawn_skipping(skip).await {
                Err(Error::ImportTimedOut { file, after }) => {
                    (file, format!("import timed out after {after}"))
                }
                Err(Error::ImportCrashed { file, cause }) => {
                    (file, format!("{cause} while loading this file"))
                }
                other => return other,
            };
            tracing::warn!("{file}: {why}; later workers skip it");
            self.inner.skipped.lock().push((file, why));
        }
    }

    /// A worker forked from the fork server where there is one, else a fresh
    /// interpreter.
    async fn spawn_skipping(&self, skip: Vec<String>) -> Result<Worker, Error> {
        if let Confined::Refused(why) = &self.inner.confined {
            return Err(Error::Sandbox(why.clone()));
        }
        if let Some(server) = self.fork_server(&skip).await? {
            let mut options = self.spawn_options(skip.clone());
            options.init.tools = self.inner.tool_classes.lock().clone();
            match server.fork(options).await {
                Ok(worker) => return Ok(worker),
                Err(ForkError::Worker(err)) => return Err(err),
                Err(ForkError::Refused(why)) => {
                    tracing::warn!(
                        "{why}; this generation's python workers start as fresh interpreters"
                    );
                    *self.inner.forking.lock().await = Forking::Off;
                }
                Err(ForkError::ServerFailed(why)) => {
                    // The next worker starts a fresh fork server.
                    tracing::warn!("the python fork server could not fork a worker: {why}");
                    server.kill();
                }
            }
        }
        Worker::spawn(self.spawn_options(skip)).await
    }

    /// The running fork server, started if it is not; `None` when workers
    /// are fresh interpreters.
    async fn fork_server(&self, skip: &[String]) -> Result<Option<Arc<ForkServer>>, Error> {
        let mut forking = self.inner.forking.lock().await;
        let server = match &mut *forking {
            Forking::On(server) => server,
            Forking::Off => return Ok(None),
            Forking::AfterTheFirst => {
                *forking = Forking::On(None);
                return Ok(None);
            }
        };
        if let Some(running) = server.as_ref().filter(|running| !running.is_closed()) {
            return Ok(Some(running.clone()));
        }
        let started = match ForkServer::start(self.spawn_options(skip.to_vec())).await {
            Ok(started) => Arc::new(started),
            // The file is skipped and the fork server started again.
            Err(err @ (Error::ImportTimedOut { .. } | Error::ImportCrashed { .. })) => {
                return Err(err);
            }
            // An interpreter wrapper that does not pass the socket on, say:
            // fresh interpreters may still work.
            Err(err) => {
                tracing::warn!(
                    "can't start the python fork server ({err}); this generation's python workers start as fresh interpreters"
                );
                *forking = Forking::Off;
                return Ok(None);
            }
        };
        *server = Some(started.clone());
        Ok(Some(started))
    }

    fn spawn_options(&self, skip: Vec<String>) -> SpawnOptions<'_> {
        let options = &self.inner.options;
        SpawnOptions {
            interpreter: &self.inner.interpreter,
            project_dir: &options.project_dir,
            pool: options
                .sandbox
                .as_ref()
                .map(|sandbox| sandbox.label.as_str()),
            env: &options.env,
            init: WorkerInit {
                tools_dir: options
                    .project_dir
                    .join(&options.tools_dir)
                    .display()
                    .to_string(),
                config: options.config.clone(),
                skip,
                max_output_bytes: Some(options.limits.max_output_bytes),
                max_content_bytes: Some(options.limits.max_content_bytes),
                label_key: None,
                fork_socket: None,
                tools: None,
                sandbox: match &self.inner.confined {
                    Confined::Yes(_, policy) => Some(SandboxPolicy::clone(policy)),
                    Confined::No | Confined::Refused(_) => None,
                },
                hooks: self.inner.hooks,
            },
            import_timeout: options.import_timeout,
            host: options.host.clone(),
            reply_limit: options.limits.reply_bytes_with_content(),
            sandbox: match &self.inner.confined {
                Confined::Yes(confinement, _) => Some(confinement),
                Confined::No | Confined::Refused(_) => None,
            },
        }
    }
}

/// Prepares the pool's sandbox: its own paths, and what its workers always
/// read (the interpreter, the tool environment, the tools, the worker script).
/// A worker's failure of a call of `tool`, as its result.
fn worker_failed(tool: &str, failure: WorkerFailure) -> ToolResult {
    ToolResult::from(CallFailure::Worker {
        tool: tool.to_owned(),
        failure,
    })
}

fn confine(options: &PythonOptions, interpreter: &Interpreter) -> Confined {
    let Some(sandbox) = &options.sandbox else {
        return Confined::No;
    };
    let executable = &interpreter.executable;
    let mut readable = vec![options.project_dir.join(&options.tools_dir)];
    let prefix_of = |bin: &Path| bin.parent().and_then(Path::parent).map(Path::to_path_buf);
    // A virtual environment's own prefix, and the interpreter it links to.
    readable.extend(prefix_of(&options.project_dir.join(executable)));
    if let Ok(real) = std::fs::canonicalize(executable) {
        readable.extend(prefix_of(&real));
    }
    readable.extend(crate::package::cached_package_parent().map(Path::to_path_buf));
    for dir in &sandbox.write {
        if let Err(err) = std::fs::create_dir_all(dir) {
            tracing::warn!("{}: can't make {}: {err}", sandbox.label, dir.display());
        }
    }
    match sandbox.confinement(&readable) {
        Ok(Some(confinement)) => Confined::Yes(
            confinement,
            Box::new(sandbox_policy(sandbox, &options.project_dir, &readable)),
        ),
        Ok(None) => Confined::No,
        Err(err) => Confined::Refused(err.to_string()),
    }
}

/// The policy as a sandboxed worker reads it, to say which rule a call broke.
fn sandbox_policy(sandbox: &Sandbox, project_dir: &Path, readable: &[PathBuf]) -> SandboxPolicy {
    let shown = |paths: &[PathBuf]| -> Vec<String> {
        paths
            .iter()
            .map(|path| path.to_string_lossy().into_owned())
            .collect()
    };
    let strings =
        |paths: &[&str]| -> Vec<String> { paths.iter().map(|path| (*path).to_owned()).collect() };
    let project = std::fs::canonicalize(project_dir).unwrap_or_else(|_| project_dir.to_path_buf());
    let mut always_read = shown(readable);
    always_read.extend(strings(riverse_process::sandbox::SYSTEM_READABLE));
    SandboxPolicy {
        label: sandbox.label.clone(),
        project: project.to_string_lossy().into_owned(),
        read: shown(&sandbox.read),
        write: shown(&sandbox.write),
        always_read,
        always_write: strings(riverse_process::sandbox::SYSTEM_WRITABLE),
        network: match &sandbox.network {
            Network::Any => NetworkPolicy::Any,
            Network::Off => NetworkPolicy::Ports(Vec::new()),
            Network::Ports(ports) => NetworkPolicy::Ports(ports.clone()),
        },
        memory_mb: sandbox.memory_mb,
        processes: sandbox.processes,
        file_size_mb: sandbox.file_size_mb,
        // From ABI 6 a worker makes a signal domain of its own, to find what
        // its tools started when Riverse is killed (/proc is not readable).
        landlock_abi: riverse_process::sandbox::landlock_abi(),
    }
}

/// Logs why a worker is retired, naming the tool that ran there last (its
/// thread is the likely writer).
fn retire(closed: &Closed, last_tool: Option<&str>) {
    worker_metrics::lost();
    let after = last_tool
        .map(|tool| format!(" after tool \"{tool}\" ran there"))
        .unwrap_or_default();
    tracing::warn!("retiring a python worker{after}: {closed}");
}
