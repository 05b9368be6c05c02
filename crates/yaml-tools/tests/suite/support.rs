//! Agents files in a temporary project, loaded into a registry.

use std::path::Path;

use riverse_tool::{Registry, RegistryOptions, ToolResult};
use riverse_yaml_tools::{AgentsOptions, agent_tools};
use serde_json::Value;
use tempfile::TempDir;

/// A project whose `agent/config/agents_en.yaml` is `yaml`.
pub fn project(yaml: &str) -> TempDir {
    let project = tempfile::tempdir().unwrap();
    write(project.path(), "agent/config/agents_en.yaml", yaml);
    project
}

pub fn write(root: &Path, relative: &str, contents: &str) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, contents).unwrap();
}

pub fn options(project: &Path, language: &str) -> AgentsOptions {
    AgentsOptions {
        project_dir: project.to_owned(),
        config_dir: project.join("agent/config"),
        language: language.to_owned(),
        settings_agents: None,
        limits: riverse_tool::CallLimits::default(),
        protected_paths: Vec::new(),
        sandboxes: Default::default(),
        withheld_env: Vec::new(),
    }
}

pub fn registry(options: &AgentsOptions) -> Registry {
    Registry::new(agent_tools(options), RegistryOptions::default())
}

pub async fn call(registry: &Registry, name: &str, params: Value) -> ToolResult {
    let Value::Object(params) = params else {
        panic!("parameters must be an object: {params}");
    };
    registry
        .call(name, params)
        .await
        .unwrap_or_else(|err| panic!("{name} could not be called: {err}"))
}

/// A request as a [`RawServer`] read it.
#[derive(Debug, Clone)]
pub struct RawRequest {
    /// `GET /path?query HTTP/1.1`
    pub line: String,
    /// Names in lower case.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl RawRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(known, _)| known == name)
            .map(|(_, value)| value.as_str())
    }
}

/// What a [`RawServer`] answers.
pub enum RawReply {
    /// A status line's code and reason, extra headers, a body.
    Full(&'static str, Vec<(String, String)>, String),
    /// This status with this many bytes of `A`, without a length, until the
    /// client stops reading.
    Endless(&'static str, u64),
    /// 200 announcing a body of this many bytes of `x`, written only when
    /// the client has not closed the connection a second after the head.
    Announced(u64),
}

/// An HTTP/1.1 server on a loopback port, written on plain sockets so a test
/// controls every byte: endless bodies, redirects to anywhere. Each
/// connection answers one request and closes.
pub struct RawServer {
    pub port: u16,
    requests: std::sync::Arc<std::sync::Mutex<Vec<RawRequest>>>,
    /// Bytes of `Endless` and `Announced` bodies written so far.
    pub streamed: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl RawServer {
    pub fn start(answer: impl Fn(&RawRequest) -> RawReply + Send + Sync + 'static) -> RawServer {
        use std::sync::{Arc, Mutex, atomic::AtomicU64};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let streamed = Arc::new(AtomicU64::new(0));
        let answer = Arc::new(answer);
        let (seen, written) = (requests.clone(), streamed.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { return };
                let (answer, seen, written) = (answer.clone(), seen.clone(), written.clone());
                std::thread::spawn(move || serve_one(stream, &*answer, &seen, &written));
            }
        });
        RawServer {
            port,
            requests,
            streamed,
        }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn requests(&self) -> Vec<RawRequest> {
        self.requests.lock().unwrap().clone()
    }
}

fn serve_one(
    stream: std::net::TcpStream,
    answer: &(dyn Fn(&RawRequest) -> RawReply + Send + Sync),
    seen: &std::sync::Mutex<Vec<RawRequest>>,
    written: &std::sync::atomic::AtomicU64,
) {
    use std::io::{BufRead, BufReader, Read, Write};
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).is_err() || header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    let length: usize = headers
        .iter()
        .find(|(name, _)| name == "content-length")
        .and_then(|(_, value)| value.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    let request = RawRequest {
        line: line.trim().to_owned(),
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    };
    seen.lock().unwrap().push(request.clone());
    let mut stream = stream;
    match answer(&request) {
        RawReply::Full(status, headers, body) => {
            let mut head = format!(
                "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n",
                body.len()
            );
            for (name, value) in headers {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            let _ = stream.write_all(format!("{head}\r\n{body}").as_bytes());
        }
        RawReply::Endless(status, total) => {
            let head = format!(
                "HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n"
            );
            if stream.write_all(head.as_bytes()).is_err() {
                return;
            }
            let chunk = vec![b'A'; 64 * 1024];
            let mut sent = 0u64;
            while sent < total {
                if stream.write_all(&chunk).is_err() {
                    return;
                }
                sent += chunk.len() as u64;
                written.fetch_add(chunk.len() as u64, std::sync::atomic::Ordering::Relaxed);
            }
        }
        RawReply::Announced(length) => {
            let head =
                format!("HTTP/1.1 200 OK\r\nContent-Length: {length}\r\nConnection: close\r\n\r\n");
            if stream.write_all(head.as_bytes()).is_err() {
                return;
            }
            // A client that will not read the body closes the connection.
            let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(1)));
            if matches!(reader.read(&mut [0; 1]), Ok(0)) {
                return;
            }
            let body = vec![b'x'; length as usize];
            if stream.write_all(&body).is_ok() {
                written.fetch_add(length, std::sync::atomic::Ordering::Relaxed);
            }
        }
    }
}
