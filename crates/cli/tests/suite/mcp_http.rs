//! MCP over streamable HTTP (issue 16): `riverse serve`'s `/mcp` and
//! `riverse mcp --http`, driven by the official MCP Python SDK's streamable
//! HTTP client, and by a second Riverse that lists the first as an MCP
//! server.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use nix::sys::signal::Signal;
use pretty_assertions::assert_eq;
use riverse_test_support::openai::OpenAiServer;
use riverse_test_support::{Project, wait_gone};
use serde_json::{Value, json};

use super::ask::{project_for, riverse};
use super::mcp::sdk_client;
use super::serve::Server;

const TOKEN: &str = "t0ken-for-mcp-tests";

/// A project serving the `mcp_served.py` and `stuck.py` tools on four
/// workers, with `extra` settings; its LLM is never asked.
fn project(llm: &OpenAiServer, extra: &str) -> Project {
    let project = project_for(
        llm,
        &format!("python: {{workers: 4}}\ntools:\n  stuck: {{timeout: 600}}\n{extra}"),
    );
    project.fixture("mcp_served.py").fixture("stuck.py");
    project
}

/// `riverse serve` with the token.
fn serve(project: &Project) -> Server {
    Server::start_with(
        project,
        &["serve", "--addr", "127.0.0.1:0"],
        &[("RIVERSE_TOKEN", TOKEN)],
    )
}

/// A plan for the SDK client: `server`'s `/mcp` with `headers`.
fn plan(server: &Server, mode: &str, headers: Value, steps: Value) -> Value {
    json!({"url": format!("{}/mcp", server.url), "headers": headers, "mode": mode, "steps": steps})
}

fn bearer(token: &str) -> Value {
    json!({"Authorization": format!("Bearer {token}")})
}

fn call(name: &str, arguments: Value) -> Value {
    json!({"call": name, "arguments": arguments})
}

fn ok(text: &str) -> Value {
    json!({"isError": false, "text": text})
}

/// One request over a plain socket with `headers`; the status and the body.
fn raw(server: &Server, headers: &[(&str, &str)], body: &str) -> (u16, String) {
    let address = server.url.trim_start_matches("http://");
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).unwrap();
    let mut reply = String::new();
    let _ = stream.read_to_string(&mut reply);
    let status = reply[9..12].parse().unwrap();
    let body = reply
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_owned())
        .unwrap_or_default();
    (status, body)
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;

#[test]
fn an_sdk_client_lists_and_calls_the_tools_at_serve_mcp() {
    let llm = OpenAiServer::start([]);
    let project = project(&llm, "");
    let server = serve(&project);
    // "auto" speaks the sessionless 2026 protocol; "legacy" the sessions of
    // the initialize handshake.
    for mode in ["auto", "legacy"] {
        let seen = sdk_client(
            &project,
            &plan(
                &server,
                mode,
                bearer(TOKEN),
                json!([
                    {"list": true},
                    call("shout", json!({"text": "héllo", "times": 2})),
                    call("raising", json!({})),
                    call("nope", json!({})),
                    call("shout", json!({"text": "still here"})),
                ]),
            ),
        );
        let names: Vec<&str> = seen[0]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|tool| tool["name"].as_str().unwrap())
            .collect();
        for name in ["shout", "raising", "hanging", "stuck", "weather"] {
            assert!(names.contains(&name), "{mode}: {name} not in {names:?}");
        }
        assert_eq!(seen[1], ok("HÉLLO HÉLLO"), "{mode}");
        assert_eq!(seen[2]["isError"], true, "{mode}");
        let raised = seen[2]["text"].as_str().unwrap();
        assert!(
            raised.contains("RuntimeError: the raising tool raised"),
            "{mode}: {raised}"
        );
        let unknown = seen[3]["protocolError"].as_str().unwrap_or_default();
        assert!(
            unknown.contains("unknown tool \"nope\""),
            "{mode}: {seen:?}"
        );
        assert_eq!(seen[4], ok("STILL HERE"), "{mode}");
    }
    let (status, _) = server.stop(Signal::SIGTERM);
    assert_eq!(status.code(), Some(0));
}

#[test]
fn a_call_the_client_cancels_stops_its_worker_and_later_calls_are_served() {
    let llm = OpenAiServer::start([]);
    let project = project(&llm, "");
    let server = serve(&project);
    for mode in ["auto", "legacy"] {
        let pidfile = project.path().join(format!("stuck-{mode}.pid"));
        let seen = sdk_client(
            &project,
            &plan(
                &server,
                mode,
                bearer(TOKEN),
                json!([
                    {"cancel": call("stuck", json!({"pidfile": pidfile})), "pidfile": pidfile},
                    call("shout", json!({"text": "after"})),
                ]),
            ),
        );
        assert_eq!(seen[0]["cancelled"], true, "{mode}: {seen:?}");
        let pid = i32::try_from(seen[0]["pid"].as_i64().unwrap()).unwrap();
        // The deadline is ten minutes away: only the cancellation stops it.
        assert!(
            wait_gone(pid),
            "{mode}: the cancelled tool's worker still runs"
        );
        assert_eq!(seen[1], ok("AFTER"), "{mode}");
    }
    // A fresh worker took the killed one's place.
    let again = sdk_client(
        &project,
        &plan(
            &server,
            "auto",
            bearer(TOKEN),
            json!([call("shout", json!({"text": "again"}))]),
        ),
    );
    assert_eq!(again, json!([ok("AGAIN")]));
}

#[test]
fn two_clients_at_once_each_have_calls_running_on_the_shared_workers() {
    let llm = OpenAiServer::start([]);
    let project = project(&llm, "");
    let server = serve(&project);
    let place = project.path().join("meeting");
    // Each call waits until both are inside the tool at once: the two
    // clients' sessions are served side by side.
    let meet = |me: u32| {
        json!([
            {"list": true},
            call("rendezvous", json!({"dir": place, "me": me, "n": 2})),
        ])
    };
    let seen = sdk_client(
        &project,
        &json!({
            "url": format!("{}/mcp", server.url),
            "headers": bearer(TOKEN),
            "clients": [meet(0), meet(1)],
        }),
    );
    assert_eq!(seen[0][1], ok("met 2"), "{seen}");
    assert_eq!(seen[1][1], ok("met 2"), "{seen}");
}

#[test]
fn a_wrong_or_missing_token_a_foreign_origin_and_a_large_body_are_refused() {
    let llm = OpenAiServer::start([]);
    let project = project(&llm, "serve: {max_body_bytes: 4096}\n");
    // rmcp's most detailed logs print each message whole.
    let server = Server::start_with(
        &project,
        &["serve", "--addr", "127.0.0.1:0"],
        &[("RIVERSE_TOKEN", TOKEN), ("RUST_LOG", "warn,rmcp=trace")],
    );
    for headers in [bearer("not-the-token"), json!({})] {
        let seen = sdk_client(
            &project,
            &plan(&server, "auto", headers, json!([{"list": true}])),
        );
        let error = seen["connectError"].as_str().unwrap_or_default();
        assert!(
            error.contains("unauthorized: missing or wrong token"),
            "{seen}"
        );
    }
    let mut foreign = bearer(TOKEN);
    foreign["Origin"] = json!("http://attacker.example");
    let seen = sdk_client(
        &project,
        &plan(&server, "legacy", foreign, json!([{"list": true}])),
    );
    let error = seen["connectError"].as_str().unwrap_or_default();
    assert!(
        error.contains("forbidden: pages of http://attacker.example may not call this server"),
        "{seen}"
    );

    let authorization = format!("Bearer {TOKEN}");
    let own_origin = server.url.clone();
    assert_eq!(raw(&server, &[], INITIALIZE).0, 401);
    assert_eq!(
        raw(&server, &[("Authorization", "Bearer nope")], INITIALIZE).0,
        401
    );
    assert_eq!(
        raw(
            &server,
            &[
                ("Authorization", &authorization),
                ("Origin", "http://attacker.example")
            ],
            INITIALIZE
        )
        .0,
        403
    );
    // A page the server itself served may call it.
    let (status, body) = raw(
        &server,
        &[("Authorization", &authorization), ("Origin", &own_origin)],
        INITIALIZE,
    );
    assert_eq!(status, 200, "{body}");
    let large = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"shout","arguments":{{"text":"{}"}}}}}}"#,
        "x".repeat(8192)
    );
    assert_eq!(
        raw(&server, &[("Authorization", &authorization)], &large).0,
        413
    );
    let (_, stderr) = server.stop(Signal::SIGTERM);
    assert!(!stderr.contains(TOKEN), "the token was logged: {stderr}");
}

#[test]
fn riverse_mcp_http_serves_the_tools_and_nothing_else() {
    let project = Project::new();
    project.fixture("mcp_served.py");
    let server = Server::start_with(&project, &["mcp", "--http", "127.0.0.1:0"], &[]);
    let seen = sdk_client(
        &project,
        &json!({
            "url": format!("{}/mcp", server.url),
            "steps": [call("shout", json!({"text": "only tools"}))],
        }),
    );
    assert_eq!(seen, json!([ok("ONLY TOOLS")]));
    let (status, _) = super::serve::http(&server.url, "GET", "/", None);
    assert_eq!(status, 404);
    let (status, _) = super::serve::http(&server.url, "GET", "/v1/tools", None);
    assert_eq!(status, 404);
    let (status, stderr) = server.stop(Signal::SIGINT);
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("riverse mcp stopped"), "{stderr}");

    let refused = riverse(&project)
        .args(["mcp", "--http", "0.0.0.0:0"])
        .env_remove("RIVERSE_TOKEN")
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&refused.stderr)
            .contains("refusing to serve on 0.0.0.0:0 without a token"),
        "{refused:?}"
    );
}

#[test]
fn a_second_riverse_runs_the_first_ones_tools_over_http() {
    let first = Project::new();
    first.fixture("mcp_served.py");
    let server = Server::start_with(
        &first,
        &["mcp", "--http", "127.0.0.1:0"],
        &[("RIVERSE_TOKEN", TOKEN)],
    );
    // The second has no tools of its own.
    let second = Project::new();
    second.settings(&format!(
        "mcp:\n  enabled: true\n  servers:\n    - name: remote\n      url: {}/mcp\n      \
         headers: {{Authorization: \"Bearer {TOKEN}\"}}\n",
        server.url
    ));
    let listed = riverse(&second).args(["tools", "--json"]).output().unwrap();
    assert!(listed.status.success(), "{listed:?}");
    let tools: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let shout = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == "mcp_remote_shout")
        .unwrap_or_else(|| panic!("no mcp_remote_shout in {tools}"));
    assert_eq!(shout["source"], json!({"kind": "mcp", "server": "remote"}));
    assert_eq!(shout["status"], "available");
    assert_eq!(shout["parameter_types"], json!({"times": "int"}));

    let called = riverse(&second)
        .args(["call", "mcp_remote_shout", "text=far away", "times=2"])
        .output()
        .unwrap();
    assert!(called.status.success(), "{called:?}");
    assert_eq!(
        String::from_utf8_lossy(&called.stdout),
        "FAR AWAY FAR AWAY\n"
    );
    let failed = riverse(&second)
        .args(["call", "mcp_remote_raising"])
        .output()
        .unwrap();
    assert_eq!(failed.status.code(), Some(1), "{failed:?}");
    assert!(
        String::from_utf8_lossy(&failed.stderr).contains("the raising tool raised"),
        "{failed:?}"
    );

    // With the wrong token the server is reported, not its tools.
    let locked_out = Project::new();
    locked_out.settings(&format!(
        "mcp:\n  enabled: true\n  servers:\n    - {{name: remote, url: \"{}/mcp\"}}\n",
        server.url
    ));
    let listed = riverse(&locked_out)
        .args(["tools", "--json"])
        .output()
        .unwrap();
    let tools: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let entry = &tools["tools"][0];
    assert_eq!(entry["status"], "error", "{tools}");
    assert!(
        entry["error"]
            .as_str()
            .unwrap()
            .contains("mcp server \"remote\""),
        "{tools}"
    );
    let (status, stderr) = server.stop(Signal::SIGTERM);
    assert_eq!(status.code(), Some(0), "{stderr}");
}
