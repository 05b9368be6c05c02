//! Where logs and traces go, set up once the settings are read.
//!
//! Logs go to stderr, as text or as one JSON object a line (`--log-format`,
//! else `log_format`). Traces go to an OTLP/HTTP collector when one is named
//! (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `OTEL_EXPORTER_OTLP_ENDPOINT`, else
//! `serve.otlp_endpoint`): the spans the turn, the provider and the registry
//! make (`riverse_tool::trace::TARGET`) become OpenTelemetry spans through
//! `tracing-opentelemetry`, batched and sent from the SDK's own thread. With
//! no collector named there is no OpenTelemetry layer, no exporter and no
//! thread: the spans are then made only for JSON logs, which show them as
//! each line's span list.
//!
//! A command exits soon after its turn: [`Telemetry::finish`] sends the spans
//! still batched before Riverse exits.

use std::time::Duration;

use opentelemetry::trace::TracerProvider as _;
use opentelemetry::{Key, KeyValue};
use opentelemetry_otlp::WithExportConfig;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SdkTracerProvider;
use riverse_agent::{LogFormat, Settings};
use riverse_tool::trace::TARGET;
use riverse_tool::{LogLevel, LogLine};
use tracing::{Level, Metadata};
use tracing_subscriber::filter::{EnvFilter, FilterExt, filter_fn};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{Layer, Registry};

/// Log lines held while stderr is not being read; past this, lines are dropped.
const LOG_BUFFER_LINES: usize = 4096;
/// How long Riverse waits, as it exits, for the collector to take the last
/// spans. A collector that is down costs at most this.
const FLUSH_TIMEOUT: Duration = Duration::from_secs(5);
/// `service.name` unless `OTEL_SERVICE_NAME` (or `OTEL_RESOURCE_ATTRIBUTES`)
/// names another.
const SERVICE_NAME: &str = "riverse";
/// Where OTLP/HTTP takes traces, below a collector's base URL.
const TRACES_PATH: &str = "/v1/traces";

/// What logging and tracing need to be told.
pub struct Options<'a> {
    /// `-v`s given.
    pub verbose: u8,
    /// `--log-format`, which wins over `log_format`.
    pub log_format: Option<LogFormat>,
    /// `None` for a command that reads no settings (`riverse init`).
    pub settings: Option<&'a Settings>,
}

/// The running log writer and trace exporter, until [`Telemetry::finish`].
pub struct Telemetry {
    /// Writes what is buffered when dropped.
    log_guard: tracing_appender::non_blocking::WorkerGuard,
    dropped_logs: tracing_appender::non_blocking::ErrorCounter,
    /// `None` when no collector is named.
    traces: Option<SdkTracerProvider>,
}

/// Whether logs are JSON, for the front ends that write a tool's log lines
/// themselves: as JSON, those lines are log records too.
static JSON_LOGS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Starts logging, and tracing when a collector is named. Logs go to stderr.
/// `RUST_LOG` wins; otherwise warnings, plus what tools print. They are
/// written from a thread of their own through a bounded buffer that drops
/// lines when stderr is full: an MCP host that never reads Riverse's stderr
/// must not stall the server (and what tools print never blocks the
/// protocol).
pub fn start(options: Options<'_>) -> Telemetry {
    let format = options
        .log_format
        .or(options.settings.map(|settings| settings.log_format))
        .unwrap_or_default();
    let (writer, log_guard) = tracing_appender::non_blocking::NonBlockingBuilder::default()
        .lossy(true)
        .buffered_lines_limit(LOG_BUFFER_LINES)
        .thread_name("riverse-log")
        .finish(AboveBars);
    let dropped_logs = writer.error_counter();
    JSON_LOGS.store(
        format == LogFormat::Json,
        std::sync::atomic::Ordering::Relaxed,
    );
    let traces = options.settings.and_then(start_traces);
    let layers = layers(format, log_filter(options.verbose), writer, traces.as_ref());
    // Err: a subscriber was set already (never, in the binary).
    let _ = tracing_subscriber::registry().with(layers).try_init();
    Telemetry {
        log_guard,
        dropped_logs,
        traces,
    }
}

impl Telemetry {
    /// Sends the spans still batched, and says how many log lines were
    /// dropped; then the last log lines are written.
    pub fn finish(self) {
        if let Some(provider) = self.traces
            && let Err(err) = provider.shutdown_with_timeout(FLUSH_TIMEOUT)
        {
            tracing::warn!("traces: the last spans may not have been sent: {err}");
        }
        let dropped = self.dropped_logs.dropped_lines();
        if dropped > 0 {
            tracing::warn!("{dropped} log lines were dropped while stderr was not being read");
        }
        drop(self.log_guard);
    }
}

/// The log layer, and the OpenTelemetry layer when traces are sent: with
/// none, the trace spans are wanted by no layer of text logs, and so never
/// made.
fn layers<W>(
    format: LogFormat,
    filter: EnvFilter,
    writer: W,
    traces: Option<&SdkTracerProvider>,
) -> Vec<Box<dyn Layer<Registry> + Send + Sync>>
where
    W: for<'writer> tracing_subscriber::fmt::MakeWriter<'writer> + Send + Sync + 'static,
{
    let logs = match format {
        // The trace spans stay out of text lines, which read as before: a
        // line for a person, not a path of spans.
        LogFormat::Text => tracing_subscriber::fmt::layer()
            .with_writer(writer)
            // Colour only for a person: logs piped to a file or a test stay plain.
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .with_target(false)
            .without_time()
            .with_filter(filter.and(filter_fn(|meta| !is_trace_span(meta))))
            .boxed(),
        // Every line carries the spans it was logged in (the turn, the call),
        // whatever the verbosity: they tie it to its trace.
        LogFormat::Json => tracing_subscriber::fmt::layer()
            .json()
            .with_writer(writer)
            .with_current_span(true)
            .with_span_list(true)
            .with_filter(filter_fn(is_trace_span).or(filter))
            .boxed(),
    };
    let mut layers = vec![logs];
    if let Some(provider) = traces {
        layers.push(
            tracing_opentelemetry::layer()
                .with_tracer(provider.tracer(SERVICE_NAME))
                .with_location(false)
                .with_threads(false)
                .with_tracked_inactivity(false)
                .with_filter(filter_fn(is_traced))
                .boxed(),
        );
    }
    layers
}

/// `RUST_LOG`, else warnings and what tools print, more with each `-v`.
fn log_filter(verbose: u8) -> EnvFilter {
    let default = match verbose {
        0 => "warn,tool=info,reload=info,environment=info",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default))
}

/// One of Riverse's trace spans (the turn, a model call, a tool call).
fn is_trace_span(meta: &Metadata<'_>) -> bool {
    meta.is_span() && meta.target() == TARGET
}

/// What OpenTelemetry receives: the trace spans, and warnings and errors
/// logged inside them (as their events). Never the SDK's own lines, which
/// would feed its exporter with its own reports.
fn is_traced(meta: &Metadata<'_>) -> bool {
    is_trace_span(meta)
        || (meta.is_event()
            && *meta.level() <= Level::WARN
            && !meta.target().starts_with("opentelemetry"))
}

/// The exporter and its batch thread, when a collector is named; a
/// collector that can't be set up is a warning, and no traces.
fn start_traces(settings: &Settings) -> Option<SdkTracerProvider> {
    let env = |name: &str| {
        std::env::var(name)
            .ok()
            .filter(|value| !value.trim().is_empty())
    };
    let endpoint = traces_endpoint(settings.serve.otlp_endpoint.as_deref(), &env)?;
    // reqwest is built without a crypto provider (ring is linked, not the
    // C-heavy default); an https collector needs one installed. Err means
    // one is installed already: fine.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_endpoint(endpoint.clone())
        .build();
    let exporter = match exporter {
        Ok(exporter) => exporter,
        Err(err) => {
            tracing::warn!("traces are off: can't send them to {endpoint}: {err}");
            return None;
        }
    };
    riverse_tool::trace::record_content(settings.serve.trace_content);
    tracing::debug!("traces go to {endpoint}");
    Some(
        SdkTracerProvider::builder()
            .with_batch_exporter(exporter)
            .with_resource(resource())
            .build(),
    )
}

/// The URL traces are posted to, as OpenTelemetry's exporter specification
/// orders the variables: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as it is,
/// else `OTEL_EXPORTER_OTLP_ENDPOINT` with `/v1/traces` added, else
/// `serve.otlp_endpoint` likewise. `None` when none is set, or when
/// `OTEL_SDK_DISABLED` is `true`.
fn traces_endpoint(
    configured: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Option<String> {
    if env("OTEL_SDK_DISABLED").is_some_and(|value| value.trim().eq_ignore_ascii_case("true")) {
        return None;
    }
    if let Some(url) = env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") {
        return Some(url.trim().to_owned());
    }
    let base = env("OTEL_EXPORTER_OTLP_ENDPOINT").or_else(|| configured.map(str::to_owned))?;
    let base = base.trim().trim_end_matches('/');
    if base.ends_with(TRACES_PATH) {
        return Some(base.to_owned());
    }
    Some(format!("{base}{TRACES_PATH}"))
}

/// `service.name` (`riverse` unless the environment names the service),
/// `service.version`, and what `OTEL_RESOURCE_ATTRIBUTES` adds.
fn resource() -> Resource {
    let detected = Resource::builder().build();
    let named = detected
        .get(&Key::new("service.name"))
        .is_some_and(|name| !name.as_str().starts_with("unknown_service"));
    let mut builder = Resource::builder();
    if !named {
        builder = builder.with_service_name(SERVICE_NAME);
    }
    builder
        .with_attribute(KeyValue::new("service.version", env!("CARGO_PKG_VERSION")))
        .build()
}

/// Whether logs are JSON lines.
pub fn json_logs() -> bool {
    JSON_LOGS.load(std::sync::atomic::Ordering::Relaxed)
}

/// A line a tool logged (`self.log`), as a log record of target `tool` that
/// names the call: what JSON logs show instead of the line under the call.
pub fn tool_log(call_id: &str, tool: &str, line: &LogLine) {
    let message = line.message.as_str();
    match line.level {
        LogLevel::Debug => {
            tracing::event!(target: "tool", Level::DEBUG, gen_ai.tool.name = tool, gen_ai.tool.call.id = call_id, "{message}");
        }
        LogLevel::Info | LogLevel::Notice => {
            tracing::event!(target: "tool", Level::INFO, gen_ai.tool.name = tool, gen_ai.tool.call.id = call_id, "{message}");
        }
        LogLevel::Warning => {
            tracing::event!(target: "tool", Level::WARN, gen_ai.tool.name = tool, gen_ai.tool.call.id = call_id, "{message}");
        }
        LogLevel::Error | LogLevel::Critical | LogLevel::Alert | LogLevel::Emergency => {
            tracing::event!(target: "tool", Level::ERROR, gen_ai.tool.name = tool, gen_ai.tool.call.id = call_id, "{message}");
        }
    }
}

/// Stderr, written above the tool bars a command draws there.
struct AboveBars;

impl std::io::Write for AboveBars {
    fn write(&mut self, text: &[u8]) -> std::io::Result<usize> {
        // The last guard, on the log's own thread: no line shows a secret.
        let scrubbed = std::str::from_utf8(text).map(riverse_secrets::scrub);
        match &scrubbed {
            Ok(std::borrow::Cow::Owned(line)) => crate::live::write_above_bars(line.as_bytes())?,
            _ => crate::live::write_above_bars(text)?,
        }
        Ok(text.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn endpoint(configured: Option<&str>, vars: &[(&str, &str)]) -> Option<String> {
        let env = |name: &str| {
            vars.iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| (*value).to_owned())
        };
        traces_endpoint(configured, &env)
    }

    /// Whether a trace span is made under the layers of `format` at
    /// `verbosity`, without traces.
    fn trace_span_made(format: LogFormat, verbosity: &str) -> bool {
        let layers = layers(format, EnvFilter::new(verbosity), std::io::sink, None);
        let subscriber = tracing_subscriber::registry().with(layers);
        tracing::subscriber::with_default(subscriber, || {
            !tracing::info_span!(target: TARGET, "execute_tool").is_disabled()
        })
    }

    #[test]
    fn text_logs_without_traces_make_no_trace_span() {
        assert!(!trace_span_made(LogFormat::Text, "warn"));
        assert!(!trace_span_made(LogFormat::Text, "trace"));
        assert!(trace_span_made(LogFormat::Json, "warn"));
    }

    #[test]
    fn traces_are_off_unless_a_collector_is_named() {
        assert_eq!(endpoint(None, &[]), None);
        assert_eq!(
            endpoint(
                Some("http://collector:4318"),
                &[("OTEL_SDK_DISABLED", "true")]
            ),
            None
        );
    }

    #[test]
    fn the_variables_win_over_the_settings_as_the_specification_orders_them() {
        assert_eq!(
            endpoint(Some("http://collector:4318/"), &[]).as_deref(),
            Some("http://collector:4318/v1/traces")
        );
        assert_eq!(
            endpoint(
                Some("https://cloud.langfuse.com/api/public/otel/v1/traces"),
                &[]
            )
            .as_deref(),
            Some("https://cloud.langfuse.com/api/public/otel/v1/traces")
        );
        assert_eq!(
            endpoint(
                Some("http://collector:4318"),
                &[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://other:4318")]
            )
            .as_deref(),
            Some("http://other:4318/v1/traces")
        );
        assert_eq!(
            endpoint(
                Some("http://collector:4318"),
                &[
                    ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://other:4318"),
                    (
                        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                        "http://traces:4318/custom"
                    )
                ]
            )
            .as_deref(),
            Some("http://traces:4318/custom")
        );
    }
}
