//! Issue 21: the doors of `riverse serve` hold. Web pages of other origins,
//! rebound DNS names, silent or trickling clients and piles of MCP sessions
//! neither drive the server nor wear it down; run against the real binary.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use riverse_test_support::openai::{OpenAiServer, ev_text, ev_tool_call};
use riverse_test_support::{Project, chromium_or_skip, eventually};
use serde_json::json;

use super::ask::{project_for, riverse};
use super::serve::{Server, python};

/// A raw HTTP/1.1 exchange: what a client sent and what came back.
struct Exchange {
    status: u16,
    head: String,
    body: String,
}

/// Sends one request with exactly `headers` (add `Host` yourself) and reads
/// the reply to its end.
fn send(url: &str, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Exchange {
    let address = url.trim_start_matches("http://");
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut request = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    if !body.is_empty() {
        request.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).unwrap();
    let (head, body) = reply.split_once("\r\n\r\n").unwrap_or((&reply, ""));
    Exchange {
        status: head[9..12].parse().unwrap(),
        head: head.to_ascii_lowercase(),
        body: body.to_owned(),
    }
}

fn host_of(url: &str) -> &str {
    url.trim_start_matches("http://")
}

/// A project with the tool that leaves marks, and an LLM that, asked
/// anything, has it leave one called `chat`.
fn marking_project(llm: &OpenAiServer, extra: &str) -> Project {
    let project = project_for(llm, extra);
    project.fixture("leaves_a_mark.py");
    project
}

fn marks(project: &Project) -> Vec<String> {
    project.file_names("marks")
}

/// Every route, as a client would call it, with a body where it takes one.
fn routes() -> Vec<(&'static str, &'static str, &'static str)> {
    vec![
        ("GET", "/", ""),
        ("GET", "/v1/models", ""),
        ("GET", "/v1/tools", ""),
        ("POST", "/v1/tools/mark/call", r#"{"name": "route"}"#),
        (
            "POST",
            "/v1/chat/completions",
            r#"{"messages": [{"role": "user", "content": "mark"}]}"#,
        ),
        ("GET", "/v1/conversations", ""),
        ("POST", "/v1/conversations", "{}"),
        ("GET", "/v1/conversations/conv_0", ""),
        ("PATCH", "/v1/conversations/conv_0", r#"{"title": "x"}"#),
        ("DELETE", "/v1/conversations/conv_0", ""),
        (
            "POST",
            "/v1/conversations/conv_0/messages",
            r#"{"content": "mark"}"#,
        ),
        ("GET", "/v1/no-such-route", ""),
        (
            "POST",
            "/mcp",
            r#"{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}"#,
        ),
    ]
}

#[test]
fn pages_of_other_origins_cannot_drive_serve_in_a_real_browser() {
    if !chromium_or_skip() {
        return;
    }
    let llm = OpenAiServer::start([]);
    llm.push([
        ev_text("Hi from the page."),
        ev_tool_call("c1", "mark", json!({"name": "chat"})),
        ev_text("Marked."),
    ]);
    let project = marking_project(&llm, "");
    let server = Server::start(&project, &[]);
    // The tool works for a client that is not a page: the test can fail.
    let control = send(
        &server.url,
        "POST",
        "/v1/tools/mark/call",
        &[
            ("Host", host_of(&server.url)),
            ("Content-Type", "application/json"),
        ],
        r#"{"name": "control"}"#,
    );
    assert_eq!(
        (control.status, marks(&project)),
        (200, vec!["control".to_owned()])
    );
    std::fs::remove_dir_all(project.path().join("marks")).unwrap();

    let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("doors-browser");
    let seen = python("cross_origin.py", &[&server.url, out_dir.to_str().unwrap()]);

    assert_eq!(
        marks(&project),
        Vec::<String>::new(),
        "a page ran a tool: {seen:#}"
    );
    // The one turn is the page's own message, sent from a link whose fragment
    // was a path (issue 21, L1): it went to a conversation, not to the tool.
    let asked: Vec<String> = llm
        .requests()
        .iter()
        .filter_map(|request| {
            request
                .roles_and_contents()
                .into_iter()
                .rfind(|(role, _)| role == "user")
                .map(|(_, content)| content)
        })
        .collect();
    assert_eq!(asked, ["hello from the page"], "{seen:#}");
    assert!(
        seen["hash_link_location"]
            .as_str()
            .is_some_and(|hash| hash.starts_with("#conv_")),
        "{seen:#}"
    );
    for site in ["cross_site", "same_site"] {
        let results = &seen[site];
        for read in ["read_conversations", "read_tools", "cors_json"] {
            let result = results[read].as_str().unwrap_or_default();
            assert!(result.starts_with("error"), "{site} {read}: {result:?}");
        }
        assert_ne!(results["framed"], "readable", "{site}");
    }
    for path in ["/", "/v1/tools", "/v1/conversations"] {
        let text = seen[format!("rebound {path}")].as_str().unwrap_or_default();
        assert!(
            text.contains("forbidden") && !text.contains("mark"),
            "a rebound name read {path}: {text:?}"
        );
    }
    // What the pages sent as a chat turns into a tool call when a client
    // sends it properly: had one got through, it would have left a mark.
    let chat = send(
        &server.url,
        "POST",
        "/v1/chat/completions",
        &[
            ("Host", host_of(&server.url)),
            ("Content-Type", "application/json"),
        ],
        r#"{"messages": [{"role": "user", "content": "mark chat"}]}"#,
    );
    assert_eq!(
        (chat.status, marks(&project)),
        (200, vec!["chat".to_owned()])
    );
}

/// Header names and values, owned.
type Headers = Vec<(&'static str, String)>;

#[test]
fn every_route_refuses_rebound_hosts_foreign_origins_and_bodies_that_are_not_json() {
    let llm = OpenAiServer::start([]);
    let project = marking_project(&llm, "");
    let server = Server::start(&project, &[]);
    let own = host_of(&server.url).to_owned();
    let port = own.rsplit_once(':').unwrap().1.to_owned();
    let rebound = format!("rebind.attacker.test:{port}");
    let json_type = ("Content-Type", "application/json");
    for (method, path, body) in routes() {
        let with_body = |mut headers: Headers| {
            if !body.is_empty() && !headers.iter().any(|(name, _)| *name == "Content-Type") {
                headers.push((json_type.0, json_type.1.to_owned()));
            }
            if path == "/mcp" {
                headers.push(("Accept", "application/json, text/event-stream".to_owned()));
            }
            headers
        };
        let attempts: Vec<(&str, Headers, u16)> = vec![
            (
                "a rebound name",
                with_body(vec![("Host", rebound.clone())]),
                403,
            ),
            (
                "a rebound name from its own page",
                with_body(vec![
                    ("Host", rebound.clone()),
                    ("Origin", format!("http://{rebound}")),
                ]),
                403,
            ),
            (
                "a name that only ends like localhost",
                with_body(vec![("Host", format!("localhost.attacker.test:{port}"))]),
                403,
            ),
            (
                "a page of another origin",
                with_body(vec![
                    ("Host", own.clone()),
                    ("Origin", "https://attacker.test".to_owned()),
                ]),
                403,
            ),
            (
                "a page of another port on loopback",
                with_body(vec![
                    ("Host", own.clone()),
                    ("Origin", "http://127.0.0.1:1".to_owned()),
                ]),
                403,
            ),
            (
                "an opaque origin",
                with_body(vec![("Host", own.clone()), ("Origin", "null".to_owned())]),
                403,
            ),
            (
                "a cross-site request without Origin",
                with_body(vec![
                    ("Host", own.clone()),
                    ("Sec-Fetch-Site", "cross-site".to_owned()),
                ]),
                403,
            ),
        ];
        for (what, headers, status) in attempts {
            let headers: Vec<(&str, &str)> = headers
                .iter()
                .map(|(name, value)| (*name, value.as_str()))
                .collect();
            let reply = send(&server.url, method, path, &headers, body);
            assert_eq!(
                reply.status, status,
                "{method} {path} from {what}: {}",
                reply.body
            );
            assert!(
                reply.head.contains("x-frame-options: deny"),
                "{method} {path}"
            );
        }
        if !body.is_empty() && path != "/mcp" {
            for content_type in [
                "text/plain;charset=UTF-8",
                "application/x-www-form-urlencoded",
                "multipart/form-data; boundary=x",
                "text/json",
            ] {
                let reply = send(
                    &server.url,
                    method,
                    path,
                    &[("Host", &own), ("Content-Type", content_type)],
                    body,
                );
                assert_eq!(
                    reply.status, 415,
                    "{method} {path} as {content_type}: {}",
                    reply.body
                );
            }
            let untyped = send(&server.url, method, path, &[("Host", &own)], body);
            assert_eq!(untyped.status, 415, "{method} {path} without a type");
        }
    }
    assert_eq!(marks(&project), Vec::<String>::new());
    assert!(llm.requests().is_empty());

    // The server's own page and plain clients are served, on every loopback name.
    for host in [
        own.clone(),
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
    ] {
        let tools = send(&server.url, "GET", "/v1/tools", &[("Host", &host)], "");
        assert_eq!(tools.status, 200, "Host {host}");
    }
    let from_page = send(
        &server.url,
        "POST",
        "/v1/tools/mark/call",
        &[
            ("Host", &own),
            ("Origin", &format!("http://{own}")),
            ("Sec-Fetch-Site", "same-origin"),
            json_type,
        ],
        r#"{"name": "own_page"}"#,
    );
    assert_eq!(from_page.status, 200, "{}", from_page.body);
    assert_eq!(marks(&project), ["own_page"]);
    let page = send(&server.url, "GET", "/", &[("Host", &own)], "");
    assert!(
        page.head.contains("frame-ancestors 'none'"),
        "{}",
        page.head
    );
    // A link from another site may still open the page itself.
    let linked = send(
        &server.url,
        "GET",
        "/",
        &[
            ("Host", &own),
            ("Sec-Fetch-Site", "cross-site"),
            ("Sec-Fetch-Mode", "navigate"),
            ("Sec-Fetch-Dest", "document"),
        ],
        "",
    );
    assert_eq!(linked.status, 200, "{}", linked.body);
    let framed = send(
        &server.url,
        "GET",
        "/",
        &[
            ("Host", &own),
            ("Sec-Fetch-Site", "cross-site"),
            ("Sec-Fetch-Mode", "navigate"),
            ("Sec-Fetch-Dest", "iframe"),
        ],
        "",
    );
    assert_eq!(framed.status, 403, "a frame is no link");
}

#[test]
fn with_a_token_any_host_name_is_served_but_pages_of_other_origins_are_not() {
    let llm = OpenAiServer::start([]);
    let token = "a-long-enough-test-token-4711";
    let project = marking_project(&llm, &format!("serve: {{token: \"{token}\"}}"));
    let server = Server::start(&project, &[]);
    let port = host_of(&server.url).rsplit_once(':').unwrap().1.to_owned();
    let name = format!("riverse.internal.example:{port}");
    let bearer = format!("bearer {token}");
    let served = send(
        &server.url,
        "GET",
        "/v1/tools",
        &[("Host", &name), ("Authorization", &bearer)],
        "",
    );
    assert_eq!(served.status, 200, "{}", served.body);
    let from_page = send(
        &server.url,
        "POST",
        "/v1/tools/mark/call",
        &[
            ("Host", &name),
            ("Authorization", &bearer),
            ("Origin", "https://attacker.test"),
            ("Content-Type", "application/json"),
        ],
        r#"{"name": "x"}"#,
    );
    assert_eq!(from_page.status, 403);
    for wrong in [
        format!("Bearer {}", &token[..token.len() - 1]),
        format!("Basic {token}"),
        format!("Bearer {token}x"),
    ] {
        let refused = send(
            &server.url,
            "GET",
            "/v1/tools",
            &[("Host", &name), ("Authorization", &wrong)],
            "",
        );
        assert_eq!(refused.status, 401, "{wrong:?}");
    }
    assert_eq!(marks(&project), Vec::<String>::new());
}

#[test]
fn a_short_token_off_loopback_and_a_token_with_spaces_are_refused_at_start() {
    let project = Project::new();
    project.settings("serve: {token: \"short-token\"}\n");
    let output = riverse(&project)
        .args(["serve", "--addr", "0.0.0.0:0"])
        .env_remove("RIVERSE_TOKEN")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("at least 16"), "{stderr}");
    assert!(
        !stderr.contains("short-token"),
        "the token stays out: {stderr}"
    );

    project.settings("serve: {token: \" padded-token-0123456789 \"}\n");
    let output = riverse(&project)
        .args(["serve", "--addr", "127.0.0.1:0"])
        .env_remove("RIVERSE_TOKEN")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(stderr.contains("serve.token: has spaces"), "{stderr}");
    assert!(
        !stderr.contains("padded-token"),
        "the token stays out: {stderr}"
    );
}

/// Reads until the server closes the connection, or `limit` passes; whether
/// it closed.
fn closed_by_server(stream: &mut TcpStream, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    stream
        .set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let mut buffer = [0_u8; 4096];
    while Instant::now() < deadline {
        match stream.read(&mut buffer) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(err)
                if matches!(
                    err.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => return true,
        }
    }
    false
}

fn open_slow_clients(url: &str, count: usize) -> Vec<TcpStream> {
    let address = host_of(url);
    (0..count)
        .map(|index| {
            let mut stream = TcpStream::connect(address).unwrap();
            match index % 3 {
                // Silent.
                0 => {}
                // Half a request head.
                1 => stream
                    .write_all(format!("GET /v1/tools HTTP/1.1\r\nHost: {address}\r\nX-Slow:").as_bytes())
                    .unwrap(),
                // A whole head, then a body that never comes.
                _ => stream
                    .write_all(
                        format!(
                            "POST /v1/conversations HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{{"
                        )
                        .as_bytes(),
                    )
                    .unwrap(),
            }
            stream
        })
        .collect()
}

#[test]
fn silent_and_trickling_clients_are_cut_off_and_the_server_answers_throughout() {
    let llm = OpenAiServer::start([]);
    let project = project_for(
        &llm,
        "serve: {header_timeout: 1, body_timeout: 2, max_connections: 30}",
    );
    let server = Server::start(&project, &[]);
    let mut slow = open_slow_clients(&server.url, 90);
    // More slow clients than connections the server keeps: each probe still
    // gets its answer, once the timeouts have made room.
    for _ in 0..5 {
        let probe = send(
            &server.url,
            "GET",
            "/v1/tools",
            &[("Host", host_of(&server.url))],
            "",
        );
        assert_eq!(probe.status, 200);
    }
    let still_open = slow
        .iter_mut()
        .map(|stream| closed_by_server(stream, Duration::from_secs(20)))
        .filter(|closed| !closed)
        .count();
    assert_eq!(still_open, 0, "slow clients the server kept");

    // A kept-alive connection that goes quiet is closed too.
    let mut idle = TcpStream::connect(host_of(&server.url)).unwrap();
    write!(
        idle,
        "GET /v1/models HTTP/1.1\r\nHost: {}\r\n\r\n",
        host_of(&server.url)
    )
    .unwrap();
    let mut first = [0_u8; 12];
    idle.read_exact(&mut first).unwrap();
    assert_eq!(&first, b"HTTP/1.1 200");
    assert!(closed_by_server(&mut idle, Duration::from_secs(20)));
}

#[test]
fn at_the_open_file_limit_the_server_still_answers() {
    let llm = OpenAiServer::start([]);
    let project = project_for(&llm, "serve: {header_timeout: 1}");
    // A hard limit of 256 files: far fewer than the 400 clients below.
    let mut command = riverse(&project);
    command
        .args(["serve", "--addr", "127.0.0.1:0"])
        .env_remove("RIVERSE_TOKEN");
    let server = Server::start_limited(command, 256);
    let _slow = open_slow_clients(&server.url, 400);
    for _ in 0..3 {
        let probe = send(
            &server.url,
            "GET",
            "/v1/tools",
            &[("Host", host_of(&server.url))],
            "",
        );
        assert_eq!(probe.status, 200);
    }
}

/// `initialize` on `/mcp`: the status, and the session id when one was made.
fn mcp_initialize(url: &str) -> (u16, Option<String>, String) {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "doors", "version": "1"}},
    })
    .to_string();
    let reply = send(
        url,
        "POST",
        "/mcp",
        &[
            ("Host", host_of(url)),
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ],
        &body,
    );
    let session = reply
        .head
        .lines()
        .find_map(|line| line.strip_prefix("mcp-session-id: "))
        .map(str::to_owned);
    (reply.status, session, reply.body)
}

#[test]
fn mcp_sessions_are_bounded_in_number_and_end_when_unused() {
    let llm = OpenAiServer::start([]);
    let project = project_for(&llm, "serve: {max_mcp_sessions: 3, mcp_session_timeout: 3}");
    let server = Server::start(&project, &[]);
    let sessions: Vec<String> = (0..3)
        .map(|_| {
            let (status, session, body) = mcp_initialize(&server.url);
            assert_eq!(status, 200, "{body}");
            session.unwrap()
        })
        .collect();
    let (status, session, body) = mcp_initialize(&server.url);
    assert_ne!(status, 200, "a fourth session was made");
    assert_eq!(session, None);
    assert!(body.contains("serve.max_mcp_sessions"), "{body}");

    // Unused, they end; their place is free again.
    eventually(
        Duration::from_secs(30),
        "a session to end and free its place",
        || {
            let (status, session, _) = mcp_initialize(&server.url);
            status == 200 && session.is_some()
        },
    );
    let ended = send(
        &server.url,
        "POST",
        "/mcp",
        &[
            ("Host", host_of(&server.url)),
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
            ("Mcp-Session-Id", &sessions[0]),
        ],
        r#"{"jsonrpc": "2.0", "id": 2, "method": "tools/list"}"#,
    );
    assert_eq!(ended.status, 404, "{}", ended.body);
}
