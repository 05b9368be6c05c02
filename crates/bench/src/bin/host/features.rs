//! What each feature a project can configure costs a warm call of a trivial
//! tool through the registry, beside the same call with none of them, in
//! the same run: approval rules, the shared sandbox, a sandbox of the
//! tool's own, metrics, an OTLP exporter and a hook (and hooks switched on
//! with no hook file, which should cost nothing). Every contender has a
//! thread of its own, with a one-thread runtime, its own registry and pool;
//! they take turns in blocks of calls, so the noise of a shared machine
//! falls on all alike. The pipe floor (a minimal parent and child, one JSON
//! line each way) takes its turns too.
//!
//! Metrics and traces are switched on for their contender's thread alone:
//! a recorder (Prometheus's, as `riverse serve` installs it) and a tracing
//! subscriber with the OpenTelemetry layer (as `riverse` installs it when a
//! collector is named), set as that thread's defaults. The exporter posts
//! its batches to a loopback port where nothing listens, from its own
//! thread, as it would to a collector that is down.

use std::path::Path;
use std::sync::mpsc;
use std::thread::JoinHandle;

use anyhow::{Context, anyhow, ensure};
use riverse_agent::Settings;
use riverse_python::{HookOptions, PythonOptions, python_hooks, python_tools};
use riverse_tool::{
    ApprovalMode, ApprovalPolicy, ArgumentPattern, CallHooks, Hooks, OnHookError, Registry,
    RegistryOptions, ToolPolicy,
};

use crate::calls::{PipeChild, call_registry};
use crate::fixtures::{TempProject, echo_tool};
use crate::sandbox::SANDBOX_SETTINGS;
use crate::stats::Samples;

/// Calls made before any is timed, per contender.
const WARMUP: usize = 500;

/// Calls timed in a row before the next contender takes its turn.
const BLOCK: usize = 500;

/// Where the OTLP exporter posts: the discard port on loopback, where
/// nothing listens.
const NOWHERE: &str = "http://127.0.0.1:9/v1/traces";

/// A configured feature.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Feature {
    /// Nothing configured: the floor the others are compared with.
    None,
    /// `tools.echo.approval` with a rule that matches every call and lets it run.
    ApprovalRules,
    /// `python.sandbox`.
    SharedSandbox,
    /// `tools.echo.sandbox`: a pool of the tool's own, sandboxed.
    OwnSandbox,
    /// A metrics recorder installed.
    Metrics,
    /// An OTLP exporter of traces.
    Otlp,
    /// Hooks read from a hooks directory that holds no hook file.
    NoHookFile,
    /// One hook file whose `before_call` lets every call go on unchanged.
    NoOpHook,
}

impl Feature {
    pub const ALL: [Feature; 8] = [
        Feature::None,
        Feature::ApprovalRules,
        Feature::SharedSandbox,
        Feature::OwnSandbox,
        Feature::Metrics,
        Feature::Otlp,
        Feature::NoHookFile,
        Feature::NoOpHook,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Feature::None => "warm call, no feature configured",
            Feature::ApprovalRules => "  approval rules on (auto, a rule matches)",
            Feature::SharedSandbox => "  python.sandbox on",
            Feature::OwnSandbox => "  the tool's own sandbox on",
            Feature::Metrics => "  metrics on (Prometheus recorder)",
            Feature::Otlp => "  an OTLP exporter on",
            Feature::NoHookFile => "  hooks on, no hook file",
            Feature::NoOpHook => "  one no-op hook (before_call returns None)",
        }
    }

    /// The hooks directory its project reads, if it reads one.
    fn hooks_dir(self) -> Option<&'static str> {
        match self {
            Feature::NoHookFile => Some(NO_HOOKS_DIR),
            Feature::NoOpHook => Some(HOOKS_DIR),
            _ => None,
        }
    }
}

/// The hooks directory holding the no-op hook, and one holding no file.
const HOOKS_DIR: &str = "agent/hooks";
const NO_HOOKS_DIR: &str = "agent/no-hooks";

/// A hook that lets every call go on unchanged.
const NO_OP_HOOK: &str = "from agent.hooks import Hook


class NoOp(Hook):
    def before_call(self, call):
        return None
";

pub struct FeatureTimes {
    /// Each feature's calls, in [`Feature::ALL`]'s order.
    pub calls: Vec<(Feature, Samples)>,
    /// The pipe floor's calls.
    pub pipe: Samples,
}

/// What a contender's thread is told: time this many calls, or end.
type Order = Option<usize>;

/// One contender's thread, answering each order with its samples.
struct Contender {
    orders: mpsc::Sender<Order>,
    samples: mpsc::Receiver<anyhow::Result<Samples>>,
    thread: JoinHandle<()>,
}

impl Contender {
    fn run(&self, calls: usize) -> anyhow::Result<Samples> {
        self.orders
            .send(Some(calls))
            .map_err(|_| anyhow!("a contender's thread ended"))?;
        self.samples
            .recv()
            .map_err(|_| anyhow!("a contender's thread ended"))?
    }

    fn end(self) {
        let _ = self.orders.send(None);
        let _ = self.thread.join();
    }
}

pub fn measure(interpreter: &Path, calls: usize) -> anyhow::Result<FeatureTimes> {
    let project = TempProject::new()?;
    project.tool("echo.py", &echo_tool())?;
    std::fs::create_dir_all(project.path().join("out"))?;
    std::fs::create_dir_all(project.path().join(NO_HOOKS_DIR))?;
    std::fs::create_dir_all(project.path().join(HOOKS_DIR))?;
    std::fs::write(project.path().join(HOOKS_DIR).join("noop.py"), NO_OP_HOOK)?;
    let settings = Settings::from_yaml(project.path(), None, SANDBOX_SETTINGS)
        .context("the benchmark's sandbox settings don't parse")?;
    let sandbox = settings
        .python
        .sandbox
        .context("the benchmark's settings name no python.sandbox")?;
    let mut contenders = Vec::new();
    for feature in Feature::ALL {
        let mut options = project.python_options(interpreter, 1);
        let mut registry_options = RegistryOptions::default();
        match feature {
            Feature::SharedSandbox => options.sandbox = Some(sandbox.clone()),
            Feature::OwnSandbox => {
                let mut own = sandbox.clone();
                own.label = "tools.echo.sandbox".into();
                options.tool_sandboxes.insert("echo".into(), own);
            }
            Feature::ApprovalRules => {
                let approval = ApprovalPolicy::mode("tools.echo.approval", ApprovalMode::Ask)
                    .with_rule(
                        ApprovalMode::Auto,
                        vec![("text".into(), ArgumentPattern::exact("hi"))],
                    );
                let policy = ToolPolicy {
                    approval,
                    ..ToolPolicy::default()
                };
                registry_options.policies.insert("echo".into(), policy);
            }
            Feature::None
            | Feature::Metrics
            | Feature::Otlp
            | Feature::NoHookFile
            | Feature::NoOpHook => {}
        }
        contenders.push((feature, spawn(feature, options, registry_options)?));
    }
    let mut pipe = PipeChild::spawn(interpreter)?;
    let mut warm = Samples::default();
    pipe.calls(WARMUP, &mut warm)?;
    let mut times = FeatureTimes {
        calls: Feature::ALL
            .iter()
            .map(|&feature| (feature, Samples::with_capacity(calls)))
            .collect(),
        pipe: Samples::with_capacity(calls),
    };
    let mut done = 0;
    while done < calls {
        let block = BLOCK.min(calls - done);
        for (index, (_, contender)) in contenders.iter().enumerate() {
            let samples = contender.run(block)?;
            times.calls[index].1.extend(samples);
        }
        pipe.calls(block, &mut times.pipe)?;
        done += block;
    }
    for (_, contender) in contenders {
        contender.end();
    }
    Ok(times)
}

/// Starts `feature`'s thread: its runtime, its telemetry, its registry,
/// warmed up; then it times the calls it is told to.
fn spawn(
    feature: Feature,
    options: PythonOptions,
    registry_options: RegistryOptions,
) -> anyhow::Result<Contender> {
    let (orders, taken) = mpsc::channel::<Order>();
    let (answer, samples) = mpsc::channel();
    let (ready_tx, ready) = mpsc::channel::<anyhow::Result<()>>();
    let thread = std::thread::Builder::new()
        .name(format!("bench-{feature:?}"))
        .spawn(move || {
            let setup = || -> anyhow::Result<_> {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()?;
                let telemetry = Telemetry::on(feature, &runtime)?;
                let registry = runtime.block_on(async {
                    let mut registry_options = registry_options;
                    registry_options.hooks = hooks(feature, &options).await?;
                    let found = python_tools(options).await;
                    let registry = Registry::new(found, registry_options);
                    ensure!(registry.get("echo").is_some(), "the echo tool did not load");
                    let mut warm = Samples::default();
                    call_registry(&registry, WARMUP, &mut warm).await?;
                    Ok(registry)
                })?;
                Ok((runtime, telemetry, registry))
            };
            let (runtime, _telemetry, registry) = match setup() {
                Ok(set) => {
                    let _ = ready_tx.send(Ok(()));
                    set
                }
                Err(err) => {
                    let _ = ready_tx.send(Err(err));
                    return;
                }
            };
            while let Ok(Some(calls)) = taken.recv() {
                let mut timed = Samples::with_capacity(calls);
                let outcome = runtime
                    .block_on(call_registry(&registry, calls, &mut timed))
                    .map(|()| timed);
                if answer.send(outcome).is_err() {
                    break;
                }
            }
            drop(registry);
        })
        .context("can't start a contender's thread")?;
    ready
        .recv()
        .map_err(|_| anyhow!("{feature:?}: its thread ended before it was ready"))?
        .with_context(|| format!("{feature:?}"))?;
    Ok(Contender {
        orders,
        samples,
        thread,
    })
}

/// The hooks `feature`'s registry runs, read as `riverse` reads them: none
/// from an empty hooks directory, the no-op hook from the other.
async fn hooks(feature: Feature, options: &PythonOptions) -> anyhow::Result<Hooks> {
    let Some(dir) = feature.hooks_dir() else {
        return Ok(Hooks::default());
    };
    let mut python = options.clone();
    python.tools_dir = dir.into();
    python.fork = false;
    let found = python_hooks(HookOptions {
        python,
        timeout: std::time::Duration::from_secs(30),
        on_error: OnHookError::Deny,
    })
    .await;
    if let Some(error) = found.error {
        anyhow::bail!("the hooks of {dir} did not load: {error}");
    }
    if let Some(error) = found.files.iter().find_map(|file| file.error.clone()) {
        anyhow::bail!("a hook of {dir} did not load: {}", error.located());
    }
    let loaded = found.hooks.as_ref().map_or(0, |hooks| hooks.hooks().len());
    let expected = usize::from(feature == Feature::NoOpHook);
    ensure!(
        loaded == expected,
        "{dir}: {loaded} hooks loaded, {expected} expected"
    );
    Ok(Hooks(
        found
            .hooks
            .map(|hooks| hooks as std::sync::Arc<dyn CallHooks>),
    ))
}

/// A thread's metrics recorder or tracing subscriber, set as its default
/// while this lives.
enum Telemetry {
    Off,
    Metrics {
        _guard: metrics::LocalRecorderGuard<'static>,
    },
    Traces {
        _guard: tracing::subscriber::DefaultGuard,
        provider: opentelemetry_sdk::trace::SdkTracerProvider,
    },
}

impl Telemetry {
    fn on(feature: Feature, runtime: &tokio::runtime::Runtime) -> anyhow::Result<Self> {
        match feature {
            Feature::Metrics => {
                let recorder =
                    metrics_exporter_prometheus::PrometheusBuilder::new().build_recorder();
                // Lives as long as the thread: the guard holds a reference.
                let recorder: &'static _ = Box::leak(Box::new(recorder));
                Ok(Telemetry::Metrics {
                    _guard: metrics::set_default_local_recorder(recorder),
                })
            }
            Feature::Otlp => {
                use opentelemetry::trace::TracerProvider as _;
                use opentelemetry_otlp::WithExportConfig;
                use tracing_subscriber::layer::SubscriberExt;
                use tracing_subscriber::{Layer, filter::filter_fn};

                let _ = rustls::crypto::ring::default_provider().install_default();
                // The exporter's client is built inside a runtime's context
                // where it needs one.
                let _entered = runtime.enter();
                let exporter = opentelemetry_otlp::SpanExporter::builder()
                    .with_http()
                    .with_endpoint(NOWHERE)
                    .build()
                    .context("can't build the OTLP exporter")?;
                let provider = opentelemetry_sdk::trace::SdkTracerProvider::builder()
                    .with_batch_exporter(exporter)
                    .build();
                let layer = tracing_opentelemetry::layer()
                    .with_tracer(provider.tracer("riverse-bench"))
                    .with_location(false)
                    .with_threads(false)
                    .with_tracked_inactivity(false)
                    .with_filter(filter_fn(|meta| {
                        meta.is_span() && meta.target() == riverse_tool::trace::TARGET
                    }));
                let subscriber = tracing_subscriber::registry().with(layer);
                Ok(Telemetry::Traces {
                    _guard: tracing::subscriber::set_default(subscriber),
                    provider,
                })
            }
            _ => Ok(Telemetry::Off),
        }
    }
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        if let Telemetry::Traces { provider, .. } = self {
            // Its batches go nowhere: drop them rather than wait.
            let _ = provider.shutdown_with_timeout(std::time::Duration::from_millis(100));
        }
    }
}
