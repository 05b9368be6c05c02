//! A served project: an agent pointed at the scripted server, its store,
//! and requests through the router.

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, Request, StatusCode};
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
}

impl Served {
    pub fn app(&self) -> Router {
        app(self.state.clone())
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
    let yaml = format!(
        "llm_provider: openai\nopenai: {{api_base: \"{api_base}\", api_key: sk-test, max_retries: 0}}\n{extra}"
    );
    project.settings(&yaml);
    let settings = Settings::from_yaml(project.path(), None, &yaml).unwrap();
    let agent = build_agent(&settings).await.unwrap();
    let store = open_store(backend, &project, liveness).await;
    let serve = &settings.serve;
    let state = AppState::new(
        Arc::new(agent),
        store,
        ServerOptions::new(serve, settings.language, serve.token.clone()),
    );
    Served { project, state }
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
    // As every HTTP/1.1 client does, it names the server it talks to.
    let mut request = Request::builder()
        .method(method)
        .uri(uri)
        .header("host", "127.0.0.1:8420")
        .header("content-type", "application/json");
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    let request = request
        .body(body.map(Body::from).unwrap_or_else(Body::empty))
        .unwrap();
    let response = app.oneshot(request).await.unwrap();
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
