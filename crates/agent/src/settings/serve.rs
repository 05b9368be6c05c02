//! The `serve` section: `riverse serve`'s address, token, storage and limits.
//!
//! ```yaml
//! serve:
//!   addr: "127.0.0.1:8420"
//!   token: ""                # or RIVERSE_TOKEN; required off loopback
//!   storage: sqlite          # sqlite | postgres
//!   database_url: ""         # postgres://...; else built from `database:`
//!   max_body_bytes: 1048576
//!   max_concurrent_turns: 8
//!   turn_timeout: 300
//!   shutdown_timeout: 10
//!   header_timeout: 10       # a connection's request head must arrive within this
//!   body_timeout: 60         # and its body within this
//!   max_connections: 1024    # open connections; more wait to be accepted
//!   max_mcp_sessions: 256    # MCP sessions held at once on /mcp
//!   mcp_session_timeout: 300 # an MCP session unused this long is ended
//!   question_timeout: 300    # a tool's question unanswered this long is a cancel
//!   otlp_endpoint: ""        # an OTLP/HTTP collector: traces go there (off when empty)
//!   trace_content: false     # record tool arguments and results, and messages, in spans
//! database: {name: riverse, user: riverse, host: localhost, password: "", port: 5432}
//! ```

use std::fmt;
use std::net::SocketAddr;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use super::SettingsError;
use super::values::{Count, HttpUrl, Scalar, Seconds, Warnings, checked_text};

/// `serve.max_body_bytes`: up to 1 GiB.
type BodyBytes = Count<1, { 1 << 30 }>;
/// `serve.max_concurrent_turns`.
type ConcurrentTurns = Count<1, 100_000>;
/// `serve.max_connections`.
type Connections = Count<1, 1_000_000>;
/// `serve.max_mcp_sessions`.
type McpSessions = Count<1, 1_000_000>;

const DEFAULT_ADDR: ([u8; 4], u16) = ([127, 0, 0, 1], 8420);
const DEFAULT_MAX_BODY_BYTES: usize = 1024 * 1024;
const DEFAULT_MAX_CONCURRENT_TURNS: usize = 8;
const DEFAULT_TURN_TIMEOUT: Duration = Duration::from_secs(300);
const DEFAULT_SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(10);
/// Clients send a request's head at once; a connection that has sent none
/// of it after this long (a silent or trickling socket) is closed.
const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// A body of `max_body_bytes` arrives in well under this on any link.
const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(60);
/// Below the usual open-file limit once it is raised to its hard limit, and
/// far above what one person's clients open.
const DEFAULT_MAX_CONNECTIONS: usize = 1024;
const DEFAULT_MAX_MCP_SESSIONS: usize = 256;
/// MCP clients open a new session when theirs is gone (the protocol says so).
const DEFAULT_MCP_SESSION_TIMEOUT: Duration = Duration::from_secs(300);
/// Long enough to read a question and type an answer; a tool waits for it.
const DEFAULT_QUESTION_TIMEOUT: Duration = Duration::from_secs(300);
const DEFAULT_POSTGRES_PORT: u16 = 5432;

/// Where `riverse serve` keeps conversations (`serve.storage`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Storage {
    /// `.riverse/riverse.db` in the project.
    #[default]
    Sqlite,
    #[serde(alias = "postgresql")]
    Postgres,
}

#[derive(Clone, PartialEq)]
pub struct ServeSettings {
    pub addr: SocketAddr,
    /// `serve.token`; `None` when empty. `RIVERSE_TOKEN` overrides it where
    /// the server starts.
    pub token: Option<String>,
    pub storage: Storage,
    /// `serve.database_url`, else one built from Riverse's `database:`
    /// section; `None` when neither is given.
    pub database_url: Option<String>,
    pub max_body_bytes: usize,
    /// Turns running at once; one more is answered 429.
    pub max_concurrent_turns: usize,
    /// A turn still running after this is answered 504.
    pub turn_timeout: Duration,
    /// How long a stopping server waits for turns in flight.
    pub shutdown_timeout: Duration,
    /// How long a connection may take to send a request's head, from when
    /// it opens or its previous reply ends.
    pub header_timeout: Duration,
    /// How long a request's body may take to arrive.
    pub body_timeout: Duration,
    /// Connections open at once; further ones wait in the listen queue.
    pub max_connections: usize,
    /// MCP sessions held at once; an `initialize` beyond them gets 503.
    pub max_mcp_sessions: usize,
    /// An MCP session that receives nothing for this long is ended.
    pub mcp_session_timeout: Duration,
    /// A tool's question (`self.ask`) that the page has not answered in this
    /// long is a cancel.
    pub question_timeout: Duration,
    /// `serve.cors_origins`: origins (`https://chat.example.com`) whose pages
    /// may call the API; none by default.
    pub cors_origins: Vec<String>,
    /// `serve.otlp_endpoint`: the OTLP/HTTP collector traces are sent to, as
    /// `OTEL_EXPORTER_OTLP_ENDPOINT` gives it (`/v1/traces` is added); `None`
    /// when empty. The OpenTelemetry variables override it where traces are
    /// set up.
    pub otlp_endpoint: Option<String>,
    /// `serve.trace_content`: spans carry tool arguments and results, and
    /// the messages of model calls. Off by default: they may hold anything a
    /// person or a tool wrote.
    pub trace_content: bool,
}

impl Default for ServeSettings {
    fn default() -> Self {
        ServeSettings {
            addr: SocketAddr::from(DEFAULT_ADDR),
            token: None,
            storage: Storage::Sqlite,
            database_url: None,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            max_concurrent_turns: DEFAULT_MAX_CONCURRENT_TURNS,
            turn_timeout: DEFAULT_TURN_TIMEOUT,
            shutdown_timeout: DEFAULT_SHUTDOWN_TIMEOUT,
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            body_timeout: DEFAULT_BODY_TIMEOUT,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_mcp_sessions: DEFAULT_MAX_MCP_SESSIONS,
            mcp_session_timeout: DEFAULT_MCP_SESSION_TIMEOUT,
            question_timeout: DEFAULT_QUESTION_TIMEOUT,
            cors_origins: Vec::new(),
            otlp_endpoint: None,
            trace_content: false,
        }
    }
}

/// Secrets stay out of logs: the token and the database URL (which may carry
/// a password) show only whether they are set.
impl fmt::Debug for ServeSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServeSettings")
            .field("addr", &self.addr)
            .field("token", &self.token.as_ref().map(|_| "<set>"))
            .field("storage", &self.storage)
            .field("database_url", &self.database_url.as_ref().map(|_| "<set>"))
            .field("max_body_bytes", &self.max_body_bytes)
            .field("max_concurrent_turns", &self.max_concurrent_turns)
            .field("turn_timeout", &self.turn_timeout)
            .field("shutdown_timeout", &self.shutdown_timeout)
            .field("header_timeout", &self.header_timeout)
            .field("body_timeout", &self.body_timeout)
            .field("max_connections", &self.max_connections)
            .field("max_mcp_sessions", &self.max_mcp_sessions)
            .field("mcp_session_timeout", &self.mcp_session_timeout)
            .field("question_timeout", &self.question_timeout)
            .field("cors_origins", &self.cors_origins)
            .field("otlp_endpoint", &self.otlp_endpoint)
            .field("trace_content", &self.trace_content)
            .finish()
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RawServe {
    addr: Option<String>,
    token: Option<String>,
    storage: Option<Storage>,
    database_url: Option<String>,
    max_body_bytes: Option<Scalar<BodyBytes>>,
    max_concurrent_turns: Option<Scalar<ConcurrentTurns>>,
    turn_timeout: Option<Scalar<Seconds>>,
    shutdown_timeout: Option<Scalar<Seconds>>,
    header_timeout: Option<Scalar<Seconds>>,
    body_timeout: Option<Scalar<Seconds>>,
    max_connections: Option<Scalar<Connections>>,
    max_mcp_sessions: Option<Scalar<McpSessions>>,
    mcp_session_timeout: Option<Scalar<Seconds>>,
    question_timeout: Option<Scalar<Seconds>>,
    cors_origins: Vec<Origin>,
    otlp_endpoint: Option<String>,
    trace_content: Option<Scalar<bool>>,
}

/// `scheme://host[:port]`, nothing after: what browsers send as `Origin`.
struct Origin(String);

impl<'de> Deserialize<'de> for Origin {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        checked_text(deserializer, |text| {
            let origin = text.trim().trim_end_matches('/');
            let host = origin
                .strip_prefix("http://")
                .or_else(|| origin.strip_prefix("https://"));
            match host {
                Some(host)
                    if !host.is_empty()
                        && !host.contains(['/', '?', '#', ' '])
                        && origin.is_ascii() =>
                {
                    Ok(Origin(origin.to_owned()))
                }
                _ => Err(format!(
                    "expected an origin such as https://chat.example.com, got {text:?}"
                )),
            }
        })
    }
}

/// Riverse's own `database:` section, read from the document.
#[derive(Deserialize, Default)]
#[serde(default)]
struct RawDatabase {
    name: Option<String>,
    user: Option<String>,
    host: Option<String>,
    password: Option<String>,
    port: Option<u16>,
}

pub(super) fn serve_settings(
    mut raw: RawServe,
    document: &Value,
    invalid: &dyn Fn(&str, String) -> SettingsError,
    warnings: &mut Warnings,
) -> Result<ServeSettings, SettingsError> {
    let addr = listen_addr(raw.addr.take(), invalid)?;
    let storage = raw.storage.unwrap_or_default();
    let database_url = database_url(raw.database_url.take(), storage, document, invalid)?;
    let otlp_endpoint = otlp_endpoint(raw.otlp_endpoint.take(), invalid)?;
    let token = match raw.token.take().filter(|token| !token.is_empty()) {
        Some(token) => Some(checked_token(token).map_err(|why| invalid("serve.token", why))?),
        None => None,
    };
    let cors_origins = std::mem::take(&mut raw.cors_origins)
        .into_iter()
        .map(|origin| origin.0)
        .collect();
    Ok(ServeSettings {
        addr,
        token,
        storage,
        database_url,
        cors_origins,
        otlp_endpoint,
        ..limits(raw, warnings)
    })
}

/// `serve.addr`, or the default when it is empty.
fn listen_addr(
    text: Option<String>,
    invalid: &dyn Fn(&str, String) -> SettingsError,
) -> Result<SocketAddr, SettingsError> {
    match text.as_deref().map(str::trim) {
        None | Some("") => Ok(ServeSettings::default().addr),
        Some(text) => text.parse().map_err(|_| {
            invalid(
                "serve.addr",
                format!("expected HOST:PORT with an IP address, got {text:?}"),
            )
        }),
    }
}

/// `serve.database_url`, else one built from the `database:` section;
/// postgres storage needs one of them.
fn database_url(
    url: Option<String>,
    storage: Storage,
    document: &Value,
    invalid: &dyn Fn(&str, String) -> SettingsError,
) -> Result<Option<String>, SettingsError> {
    let database_url = match url.filter(|url| !url.trim().is_empty()) {
        Some(url) => Some(url),
        None => database_section_url(document, invalid)?,
    };
    if storage == Storage::Postgres && database_url.is_none() {
        return Err(invalid(
            "serve.storage",
            "postgres needs serve.database_url or a database: section".into(),
        ));
    }
    Ok(database_url)
}

/// `serve.otlp_endpoint`, checked as an HTTP URL; `None` when empty.
fn otlp_endpoint(
    text: Option<String>,
    invalid: &dyn Fn(&str, String) -> SettingsError,
) -> Result<Option<String>, SettingsError> {
    match text.as_deref().map(str::trim) {
        None | Some("") => Ok(None),
        Some(text) => Ok(Some(
            HttpUrl::parse(text)
                .map_err(|why| invalid("serve.otlp_endpoint", why))?
                .as_str()
                .to_owned(),
        )),
    }
}

/// `serve`'s limits, timeouts and switches, each its default when not
/// given; the rest of the settings are left at their defaults.
fn limits(raw: RawServe, warnings: &mut Warnings) -> ServeSettings {
    let defaults = ServeSettings::default();
    let mut seconds = |key: &str, value: Option<Scalar<Seconds>>, default: Duration| {
        value.map_or(default, |secs| warnings.take(key, secs).0)
    };
    let header_timeout = seconds(
        "serve.header_timeout",
        raw.header_timeout,
        defaults.header_timeout,
    );
    let body_timeout = seconds(
        "serve.body_timeout",
        raw.body_timeout,
        defaults.body_timeout,
    );
    let mcp_session_timeout = seconds(
        "serve.mcp_session_timeout",
        raw.mcp_session_timeout,
        defaults.mcp_session_timeout,
    );
    let question_timeout = seconds(
        "serve.question_timeout",
        raw.question_timeout,
        defaults.question_timeout,
    );
    ServeSettings {
        max_body_bytes: raw.max_body_bytes.map_or(defaults.max_body_bytes, |bytes| {
            warnings.take("serve.max_body_bytes", bytes).get()
        }),
        max_concurrent_turns: raw
            .max_concurrent_turns
            .map_or(defaults.max_concurrent_turns, |turns| {
                warnings.take("serve.max_concurrent_turns", turns).get()
            }),
        turn_timeout: raw.turn_timeout.map_or(defaults.turn_timeout, |secs| {
            warnings.take("serve.turn_timeout", secs).0
        }),
        shutdown_timeout: raw
            .shutdown_timeout
            .map_or(defaults.shutdown_timeout, |secs| {
                warnings.take("serve.shutdown_timeout", secs).0
            }),
        header_timeout,
        body_timeout,
        max_connections: raw
            .max_connections
            .map_or(defaults.max_connections, |count| {
                warnings.take("serve.max_connections", count).get()
            }),
        max_mcp_sessions: raw
            .max_mcp_sessions
            .map_or(defaults.max_mcp_sessions, |count| {
                warnings.take("serve.max_mcp_sessions", count).get()
            }),
        mcp_session_timeout,
        question_timeout,
        trace_content: raw
            .trace_content
            .is_some_and(|content| warnings.take("serve.trace_content", content)),
        ..defaults
    }
}

/// A token is compared byte for byte with what clients send, and HTTP drops
/// the spaces around a header's value: a token with spaces at its ends, or
/// with characters a header can't carry, could never match.
pub fn checked_token(token: String) -> Result<String, String> {
    if token.trim() != token {
        return Err("has spaces at its start or end, which no client can send".to_owned());
    }
    if !token.bytes().all(|byte| byte.is_ascii_graphic()) {
        return Err(
            "may hold only visible ASCII characters, no spaces (it travels in a header)".to_owned(),
        );
    }
    Ok(token)
}

/// `postgres://user:password@host:port/name` from Riverse's `database:`
/// section, when it names a database.
fn database_section_url(
    document: &Value,
    invalid: &dyn Fn(&str, String) -> SettingsError,
) -> Result<Option<String>, SettingsError> {
    let Some(section) = document
        .get("database")
        .filter(|section| !section.is_null())
    else {
        return Ok(None);
    };
    let raw: RawDatabase = serde_json::from_value(section.clone())
        .map_err(|err| invalid("database", err.to_string()))?;
    let Some(name) = raw.name.filter(|name| !name.is_empty()) else {
        return Ok(None);
    };
    let user = raw.user.filter(|user| !user.is_empty());
    let password = raw.password.filter(|password| !password.is_empty());
    let credentials = match (user, password) {
        (Some(user), Some(password)) => {
            format!("{}:{}@", encode(&user), encode(&password))
        }
        (Some(user), None) => format!("{}@", encode(&user)),
        (None, _) => String::new(),
    };
    let host = raw
        .host
        .filter(|host| !host.is_empty())
        .unwrap_or_else(|| "localhost".to_owned());
    let port = raw.port.unwrap_or(DEFAULT_POSTGRES_PORT);
    Ok(Some(format!(
        "postgres://{credentials}{host}:{port}/{}",
        encode(&name)
    )))
}

/// Percent-encodes everything but unreserved characters, for a URL part.
fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use pretty_assertions::assert_eq;

    use crate::Settings;

    use super::*;

    fn parse(text: &str) -> Result<ServeSettings, String> {
        Settings::from_yaml(Path::new("/project"), Some("settings.yaml".into()), text)
            .map(|settings| settings.serve)
            .map_err(|err| err.to_string())
    }

    #[test]
    fn no_serve_section_gives_the_defaults() {
        assert_eq!(parse("").unwrap(), ServeSettings::default());
        assert_eq!(parse("").unwrap().addr.to_string(), "127.0.0.1:8420");
    }

    #[test]
    fn the_design_example_parses() {
        let serve = parse(
            r#"serve: {addr: "0.0.0.0:9000", token: "s3", storage: sqlite, database_url: "", max_body_bytes: 10, max_concurrent_turns: 2, turn_timeout: 1.5}"#,
        )
        .unwrap();
        assert_eq!(serve.addr.to_string(), "0.0.0.0:9000");
        assert_eq!(serve.token.as_deref(), Some("s3"));
        assert_eq!(serve.max_body_bytes, 10);
        assert_eq!(serve.max_concurrent_turns, 2);
        assert_eq!(serve.turn_timeout, Duration::from_millis(1500));
        assert!(!format!("{serve:?}").contains("s3"));
    }

    #[test]
    fn bad_values_name_their_key() {
        assert_eq!(
            parse("serve: {addr: localhost}").unwrap_err(),
            r#"settings.yaml: serve.addr: expected HOST:PORT with an IP address, got "localhost""#
        );
        assert_eq!(
            parse("serve: {storage: mysql}").unwrap_err(),
            "settings.yaml: serve.storage: unknown variant `mysql`, expected one of `sqlite`, `postgres`, `postgresql` at line 1 column 18"
        );
        assert_eq!(
            parse("serve: {max_concurrent_turns: 0}").unwrap_err(),
            "settings.yaml: serve.max_concurrent_turns: expected a whole number from 1 to 100000, got 0 at line 1 column 31"
        );
        assert_eq!(
            parse("serve: {cors_origins: [\"https://a.example/path\"]}").unwrap_err(),
            "settings.yaml: serve.cors_origins[0]: expected an origin such as https://chat.example.com, got \"https://a.example/path\" at line 1 column 24"
        );
        assert_eq!(
            parse("serve: {storage: postgres}").unwrap_err(),
            "settings.yaml: serve.storage: postgres needs serve.database_url or a database: section"
        );
    }

    #[test]
    fn a_token_that_no_client_could_send_is_refused() {
        assert_eq!(
            parse("serve: {token: \" s3cret-token-value \"}").unwrap_err(),
            "settings.yaml: serve.token: has spaces at its start or end, which no client can send"
        );
        assert!(
            parse("serve: {token: \"two words\"}")
                .unwrap_err()
                .contains("serve.token: may hold only visible ASCII")
        );
        let error = parse("serve: {token: \"näive-token\"}").unwrap_err();
        assert!(!error.contains("näive"), "the value stays out: {error}");
    }

    #[test]
    fn connection_limits_have_defaults_and_can_be_set() {
        let serve = parse(
            "serve: {header_timeout: 2, body_timeout: 5.5, max_connections: 64, max_mcp_sessions: 8, mcp_session_timeout: 30, question_timeout: 45}",
        )
        .unwrap();
        assert_eq!(
            (
                serve.header_timeout,
                serve.body_timeout,
                serve.max_connections,
                serve.max_mcp_sessions,
                serve.mcp_session_timeout,
                serve.question_timeout
            ),
            (
                Duration::from_secs(2),
                Duration::from_millis(5500),
                64,
                8,
                Duration::from_secs(30),
                Duration::from_secs(45)
            )
        );
        assert_eq!(
            parse("serve: {}").unwrap().question_timeout,
            Duration::from_secs(300)
        );
        assert_eq!(
            parse("serve: {max_connections: 0}").unwrap_err(),
            "settings.yaml: serve.max_connections: expected a whole number from 1 to 1000000, got 0 at line 1 column 26"
        );
    }

    #[test]
    fn cors_origins_are_listed_origins() {
        let serve = parse(
            "serve: {cors_origins: [\"https://chat.example.com/\", \"http://127.0.0.1:3000\"]}",
        )
        .unwrap();
        assert_eq!(
            serve.cors_origins,
            ["https://chat.example.com", "http://127.0.0.1:3000"]
        );
    }

    #[test]
    fn traces_are_off_until_an_endpoint_is_set() {
        let serve = parse("serve: {}").unwrap();
        assert_eq!((serve.otlp_endpoint, serve.trace_content), (None, false));
        assert_eq!(
            parse("serve: {otlp_endpoint: \"\"}").unwrap().otlp_endpoint,
            None
        );
        let serve =
            parse("serve: {otlp_endpoint: \"http://127.0.0.1:4318/\", trace_content: true}")
                .unwrap();
        assert_eq!(
            (serve.otlp_endpoint.as_deref(), serve.trace_content),
            (Some("http://127.0.0.1:4318"), true)
        );
        assert_eq!(
            parse("serve: {otlp_endpoint: \"localhost:4318\"}").unwrap_err(),
            r#"settings.yaml: serve.otlp_endpoint: expected an http:// or https:// URL, got "localhost:4318""#
        );
        assert_eq!(
            parse("serve: {trace_content: maybe}").unwrap_err(),
            "settings.yaml: serve.trace_content: expected true or false, got \"maybe\" at line 1 column 24"
        );
    }

    #[test]
    fn the_database_section_becomes_a_url() {
        let serve = parse(
            "serve: {storage: postgres}\ndatabase: {name: riverse, user: ana, host: db, password: \"p@ss\", port: 5433}",
        )
        .unwrap();
        assert_eq!(serve.storage, Storage::Postgres);
        assert_eq!(
            serve.database_url.as_deref(),
            Some("postgres://ana:p%40ss@db:5433/riverse")
        );
    }
}
