//! A served project: an agent pointed at the scripted server, its store,
//! and requests through the router.

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, Request, StatusCode};
use futures_util::StreamExt;
use riverse_agent::{Settings, build_agent};
use riverse_server::{AppState, ServerOptions, app};
use riverse_store::{Liveness, PostgresStore, SqliteStore, Store};
use riverse_test_support::Project;
use riverse_test_support::openai::OpenAiServer;
use serde_json::Value;
use tower::ServiceExt;

pub struct Served {
    pub project: Project,
    pub state: Arc<AppState>,
    /// Where its conversations are kept, for a server started again.
    backend: Backend,
    /// What it was started with.
    liveness: Liveness,
    options: Adjust,
}

/// A change to the options settings give a server.
pub type Adjust = fn(&mut ServerOptions);

impl Served {
    pub fn app(&self) -> Router {
        app(self.state.clone())
    }

    /// A new server on the same project and database, as after a restart:
    /// the old one (its tools' workers, its store) is gone first.
    pub async fn restart(self) -> Served {
        let Served {
            project,
            state,
            backend,
            liveness,
            options,
        } = self;
        drop(state);
        serve_project(project, &backend, liveness, options).await
    }
}

/// The weather tool (and `extra_tools` fixtures), settings pointing at
/// `llm`, and `extra` settings.
pub async fn served(llm: &OpenAiServer, extra_tools: &[&str], extra: &str) -> Served {
    served_at(&llm.url(), extra_tools, extra).await
}

/// As [`served`], with the LLM at `api_base`.
pub async fn served_at(api_base: &str, extra_tools: &[&str], extra: &str) -> Served {
    served_on(&Backend::Sqlite, api_base, extra_tools, extra).await
}

/// Where a served project keeps its conversations.
#[derive(Debug, Clone)]
pub enum Backend {
    /// `.riverse/riverse.db` in the project.
    Sqlite,
    /// The database at this URL.
    Postgres(String),
}

/// As [`served_at`], keeping conversations in `backend`.
pub async fn served_on(
    backend: &Backend,
    api_base: &str,
    extra_tools: &[&str],
    extra: &str,
) -> Served {
    served_living(backend, api_base, extra_tools, extra, Liveness::default()).await
}

/// As [`served_on`], with running answers kept alive by `liveness`.
pub async fn served_living(
    backend: &Backend,
    api_base: &str,
    extra_tools: &[&str],
    extra: &str,
    liveness: Liveness,
) -> Served {
    let project = Project::new();
    project.fixture("weather.py");
    for fixture in extra_tools {
        project.fixture(fixture);
    }
    project.settings(&settings_yaml(api_base, extra));
    serve_project(project, backend, liveness, |_| {}).await
}

/// The settings of a project whose LLM is at `api_base`, and `extra`.
pub fn settings_yaml(api_base: &str, extra: &str) -> String {
    format!(
        "llm_provider: openai\nopenai: {{api_base: \"{api_base}\", api_key: sk-test, max_retries: 0}}\n{extra}"
    )
}

/// Serves `project` as its files say (tools and `settings.yaml`), keeping
/// conversations in `backend`, with the options `adjust` changes.
pub async fn serve_project(
    project: Project,
    backend: &Backend,
    liveness: Liveness,
    adjust: Adjust,
) -> Served {
    let yaml = std::fs::read_to_string(project.path().join("settings.yaml")).unwrap();
    let settings = Settings::from_yaml(project.path(), None, &yaml).unwrap();
    let agent = build_agent(&settings).await.unwrap();
    let store = open_store(backend, &project, liveness).await;
    let serve = &settings.serve;
    let mut options = ServerOptions::new(serve, settings.language, serve.token.clone());
    adjust(&mut options);
    let state = AppState::new(Arc::new(agent), store, options);
    Served {
        project,
        state,
        backend: backend.clone(),
        liveness,
        options: adjust,
    }
}

/// The project's store on `backend`, its answers kept alive by `liveness`.
pub async fn open_store(backend: &Backend, project: &Project, liveness: Liveness) -> Store {
    match backend {
        Backend::Sqlite => Store::Sqlite(
            SqliteStore::open_with(&project.path().join(".riverse/riverse.db"), liveness)
                .await
                .unwrap(),
        ),
        Backend::Postgres(url) => {
            Store::Postgres(PostgresStore::connect_with(url, liveness).await.unwrap())
        }
    }
}

pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: String,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|err| panic!("not JSON ({err}): {}", self.body))
    }

    /// Each `data:` payload of a server-sent event stream, in order.
    pub fn events(&self) -> Vec<String> {
        self.body
            .split("\n\n")
            .filter_map(|event| event.strip_prefix("data: "))
            .map(str::to_owned)
            .collect()
    }

    /// The JSON events (all but `[DONE]`).
    pub fn chunks(&self) -> Vec<Value> {
        self.events()
            .iter()
            .filter(|data| *data != "[DONE]")
            .map(|data| serde_json::from_str(data).unwrap())
            .collect()
    }

    /// The answer text the deltas add up to.
    pub fn streamed_text(&self) -> String {
        self.chunks()
            .iter()
            .filter_map(|chunk| {
                chunk["choices"][0]["delta"]["content"]
                    .as_str()
                    .map(str::to_owned)
            })
            .collect()
    }

    /// The `riverse` fields of the chunks that carry one.
    pub fn riverse_events(&self) -> Vec<Value> {
        self.chunks()
            .iter()
            .filter_map(|chunk| chunk.get("riverse").cloned())
            .collect()
    }
}

/// One request through the router; `body` is sent as given.
pub async fn send(
    app: Router,
    method: &str,
    uri: &str,
    body: Option<String>,
    token: Option<&str>,
) -> Reply {
    let authorization = token.map(|token| format!("Bearer {token}"));
    let headers: Vec<(&str, &str)> = authorization
        .iter()
        .map(|value| ("authorization", value.as_str()))
        .collect();
    send_with(app, method, uri, body, &headers).await
}

/// As [`send`], with `headers` besides (or instead of) the usual ones.
pub async fn send_with(
    app: Router,
    method: &str,
    uri: &str,
    body: Option<String>,
    headers: &[(&str, &str)],
) -> Reply {
    let response = app
        .oneshot(request(method, uri, body, headers))
        .await
        .unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap();
    Reply {
        status,
        headers,
        body: String::from_utf8_lossy(&bytes).into_owned(),
    }
}

/// A request as every HTTP/1.1 client sends it (naming the server it talks
/// to), JSON, with `headers` set over those.
fn request(
    method: &str,
    uri: &str,
    body: Option<String>,
    headers: &[(&str, &str)],
) -> Request<Body> {
    let mut request = Request::builder()
        .method(method)
        .uri(uri)
        .header("host", "127.0.0.1:8420")
        .header("content-type", "application/json");
    for (name, value) in headers {
        request.headers_mut().unwrap().insert(
            axum::http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
            axum::http::HeaderValue::from_str(value).unwrap(),
        );
    }
    request
        .body(body.map(Body::from).unwrap_or_else(Body::empty))
        .unwrap()
}

/// A streamed reply read as it comes: its `riverse` objects one at a time,
/// while the turn still runs.
pub struct Events {
    body: axum::body::BodyDataStream,
    /// What has arrived and is not yet read.
    buffer: String,
    /// Every `data:` payload read so far.
    pub seen: Vec<String>,
}

impl Events {
    /// Sends `body` to `uri` and starts reading the stream.
    pub async fn open(app: Router, uri: &str, body: Value) -> Events {
        let response = app
            .oneshot(request("POST", uri, Some(body.to_string()), &[]))
            .await
            .unwrap();
        Events::from_response(response)
    }

    /// Reads the stream `response` carries.
    pub fn from_response(response: axum::response::Response) -> Events {
        assert_eq!(response.status(), StatusCode::OK);
        Events {
            body: response.into_body().into_data_stream(),
            buffer: String::new(),
            seen: Vec::new(),
        }
    }

    /// The next `riverse` object; `None` once the stream has ended.
    pub async fn next_activity(&mut self) -> Option<Value> {
        loop {
            while let Some(end) = self.buffer.find("\n\n") {
                let event: String = self.buffer.drain(..end + 2).collect();
                let Some(data) = event.trim_end().strip_prefix("data: ") else {
                    continue;
                };
                self.seen.push(data.to_owned());
                if data == "[DONE]" {
                    continue;
                }
                let chunk: Value = serde_json::from_str(data).unwrap();
                if let Some(riverse) = chunk.get("riverse") {
                    return Some(riverse.clone());
                }
            }
            let piece = self.body.next().await?.unwrap();
            self.buffer.push_str(std::str::from_utf8(&piece).unwrap());
        }
    }

    /// Reads up to the first object of type `kind`, and returns it with
    /// the kinds read before it.
    pub async fn until(&mut self, kind: &str) -> (Vec<Value>, Value) {
        let mut before = Vec::new();
        while let Some(activity) = self.next_activity().await {
            if activity["type"] == kind {
                return (before, activity);
            }
            before.push(activity);
        }
        panic!("the stream ended without {kind}: {before:?}");
    }

    /// Every object left, to the end of the stream.
    pub async fn rest(&mut self) -> Vec<Value> {
        let mut rest = Vec::new();
        while let Some(activity) = self.next_activity().await {
            rest.push(activity);
        }
        rest
    }
}

/// The `type` of each object.
pub fn kinds(activities: &[Value]) -> Vec<&str> {
    activities
        .iter()
        .map(|activity| activity["type"].as_str().unwrap())
        .collect()
}

pub async fn post(app: Router, uri: &str, body: Value) -> Reply {
    send(app, "POST", uri, Some(body.to_string()), None).await
}

pub async fn get(app: Router, uri: &str) -> Reply {
    send(app, "GET", uri, None, None).await
}

/// `{"model": "riverse", "messages": [{"role": "user", "content": message}], "stream": stream}`
pub fn ask(message: &str, stream: bool) -> Value {
    serde_json::json!({
        "model": "riverse",
        "messages": [{"role": "user", "content": message}],
        "stream": stream,
    })
}

/// A new conversation's id.
pub async fn create(served: &Served) -> String {
    let reply = post(served.app(), "/v1/conversations", serde_json::json!({})).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    reply.json()["id"].as_str().unwrap().to_owned()
}
