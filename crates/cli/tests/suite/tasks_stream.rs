//! A background task's follow-up streamed to whoever has its conversation
//! open (issue 45): `GET /v1/conversations/{id}/events` sends the
//! follow-up's events as they happen, a client that comes while it runs is
//! told what it said so far, the stored conversation has the answer once
//! the stream says it ended, and the page shows it as it streams.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;

use pretty_assertions::assert_eq;
use riverse_test_support::Project;
use riverse_test_support::openai::{OpenAiServer, ev_text, ev_tool_call, ev_tool_calls};
use serde_json::{Value, json};

use super::serve::{Server, http};
use super::tasks::{LONG, SLOW, get_json, only_task, pid_file};

/// Waits until the file it is given exists.
const GATE: &str = r#"import os, time
from agent.tools import BaseTool, ToolManifest, ToolResult

class Gate(BaseTool):
    NAME = "gate"
    def __init__(self, config):
        self.config = config
    def manifest(self):
        return ToolManifest(
            name=self.NAME,
            description="Wait for the file",
            parameters={"file": "the file to wait for"},
        )
    def execute(self, params):
        while not os.path.exists(params["file"]):
            time.sleep(0.05)
        return ToolResult(success=True, data="the gate opened")
"#;

/// The follow-up's answer, streamed in pieces of a few characters.
const ANSWER: &str = "The report is ready: 42 pages, all checked.";

fn project(llm: &OpenAiServer, more: &str) -> Project {
    let project = Project::new();
    project.tool("slow.py", SLOW).tool("gate.py", GATE).settings(&format!(
        "llm_provider: openai\nopenai: {{api_base: \"{}\", api_key: sk-file, max_retries: 0}}\n\
         tools:\n  slow: {{timeout: 60, background: {{after: 1}}}}\n  steady: {{timeout: 60, background: {{after: 1}}}}\n  gate: {{timeout: 120}}\n{more}",
        llm.url()
    ));
    project
}

/// The first turn starts `slow` for 3 s (a task after 1 s), the follow-up
/// waits at the gate `gate`, then answers [`ANSWER`].
fn script_gated_follow_up(llm: &OpenAiServer, project: &Project) -> String {
    let gate = project.path().join("gate.open").display().to_string();
    llm.push([
        ev_tool_call(
            "c1",
            "slow",
            json!({"seconds": 3, "pid_file": pid_file(project, "slow.pid")}),
        ),
        ev_text("Started the report."),
        ev_tool_call("c2", "gate", json!({"file": gate})),
        ev_text(ANSWER),
    ]);
    gate
}

fn new_conversation(server: &Server) -> String {
    let (status, body) = http(&server.url, "POST", "/v1/conversations", None);
    assert_eq!(status, 200, "{body}");
    let created: Value = serde_json::from_str(&body).unwrap();
    created["id"].as_str().unwrap().to_owned()
}

/// Posts `content` to `conversation` and returns the stored answer.
fn post(server: &Server, conversation: &str, content: &str) -> Value {
    let path = format!("/v1/conversations/{conversation}/messages");
    let message = json!({"content": content, "stream": false});
    let (status, body) = http(&server.url, "POST", &path, Some(&message));
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).unwrap()
}

/// `GET path` with `headers`: the status, the reply's head (in lowercase),
/// and the reader at its body.
fn get(
    server: &Server,
    path: &str,
    headers: &[(&str, &str)],
) -> (u16, String, BufReader<TcpStream>) {
    request(server, "GET", path, headers)
}

fn request(
    server: &Server,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
) -> (u16, String, BufReader<TcpStream>) {
    let address = server.url.trim_start_matches("http://");
    let mut stream = TcpStream::connect(address).unwrap();
    stream.set_read_timeout(Some(LONG)).unwrap();
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\nAccept: text/event-stream\r\nContent-Length: 0\r\n"
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("Connection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).unwrap();
    let mut reader = BufReader::new(stream);
    let mut head = String::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        if line == "\r\n" || line.is_empty() {
            break;
        }
        head.push_str(&line.to_ascii_lowercase());
    }
    let status = head[9..12].parse().unwrap();
    (status, head, reader)
}

/// A client of a conversation's events stream.
struct Events {
    reader: BufReader<TcpStream>,
    /// What came and is not a whole frame yet.
    buffer: String,
}

impl Events {
    fn connect(server: &Server, conversation: &str, headers: &[(&str, &str)]) -> Events {
        let path = format!("/v1/conversations/{conversation}/events");
        let (status, head, reader) = get(server, &path, headers);
        assert_eq!(status, 200, "{head}");
        assert!(head.contains("content-type: text/event-stream"), "{head}");
        assert!(head.contains("transfer-encoding: chunked"), "{head}");
        let mut events = Events {
            reader,
            buffer: String::new(),
        };
        // The stream opens with a comment, once the server listens.
        events.read_chunk();
        assert!(events.buffer.starts_with(": "), "{:?}", events.buffer);
        events.buffer.clear();
        events
    }

    fn read_chunk(&mut self) {
        assert!(self.try_read_chunk(), "the events stream ended");
    }

    /// Reads one chunk of the body; `false` at its end.
    fn try_read_chunk(&mut self) -> bool {
        let mut size = String::new();
        self.reader.read_line(&mut size).unwrap();
        let size = usize::from_str_radix(size.trim(), 16)
            .unwrap_or_else(|_| panic!("a chunk's size, got {size:?}"));
        if size == 0 {
            return false;
        }
        let mut bytes = vec![0; size + 2];
        self.reader.read_exact(&mut bytes).unwrap();
        bytes.truncate(size);
        self.buffer.push_str(&String::from_utf8(bytes).unwrap());
        true
    }

    /// Reads to the stream's end; what came that is not a whole frame.
    fn end(mut self) -> String {
        while self.try_read_chunk() {}
        self.buffer
    }

    /// The next data frame; comments are skipped.
    fn next(&mut self) -> Value {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let frame: String = self.buffer.drain(..end + 2).collect();
                if let Some(data) = frame.strip_prefix("data: ") {
                    return serde_json::from_str(data.trim_end()).unwrap();
                }
                continue;
            }
            self.read_chunk();
        }
    }

    /// The frames up to the first that `kind` names `last`, that one included.
    fn until(&mut self, last: &str) -> Vec<Value> {
        let mut frames = Vec::new();
        loop {
            let frame = self.next();
            let done = kind(&frame) == last;
            frames.push(frame);
            if done {
                return frames;
            }
        }
    }
}

/// What a frame says: `delta`, `error`, or its `riverse` type (and call).
fn kind(frame: &Value) -> String {
    if frame.get("error").is_some() {
        return "error".to_owned();
    }
    let riverse = &frame["riverse"];
    match (riverse["type"].as_str(), riverse["call_id"].as_str()) {
        (Some(kind), Some(call)) => format!("{kind} {call}"),
        (Some(kind), None) => kind.to_owned(),
        (None, _) if frame["choices"][0]["delta"]["content"].is_string() => "delta".to_owned(),
        (None, _) => format!("{frame}"),
    }
}

/// The kinds of `frames`, each run of deltas as one.
fn shape(frames: &[Value]) -> Vec<String> {
    let mut kinds: Vec<String> = frames.iter().map(kind).collect();
    kinds.dedup();
    kinds
}

/// The text of the deltas, and how many there were.
fn deltas(frames: &[Value]) -> (String, usize) {
    let pieces: Vec<&str> = frames
        .iter()
        .filter_map(|frame| frame["choices"][0]["delta"]["content"].as_str())
        .filter(|piece| !piece.is_empty())
        .collect();
    (pieces.concat(), pieces.len())
}

#[test]
fn a_follow_up_streams_to_the_clients_that_have_its_conversation_open() {
    let llm = OpenAiServer::start([]);
    let project = project(&llm, "");
    let gate = script_gated_follow_up(&llm, &project);
    let server = Server::start(&project, &[]);
    let conversation = new_conversation(&server);
    let mut early = Events::connect(&server, &conversation, &[]);
    let answer = post(&server, &conversation, "Build the report");
    assert_eq!(answer["content"], "Started the report.");
    let task = only_task(&server)["id"].as_str().unwrap().to_owned();

    // The follow-up waits at the gate: a client that comes now is told what
    // it said so far, then the rest as it comes.
    let mut said = early.until("tool_call.started c2");
    let mut late = Events::connect(&server, &conversation, &[]);
    std::fs::write(&gate, "").unwrap();
    said.extend(early.until("done"));
    // The end is sent once stored: the conversation has it now.
    let stored = get_json(&server, &format!("/v1/conversations/{conversation}"));
    assert_eq!(late.until("done"), said, "the late client's frames");

    assert_eq!(
        shape(&said),
        [
            "follow_up.started",
            "tool_call.finished c1",
            "tool_call.started c2",
            "tool_call.finished c2",
            "delta",
            "done"
        ]
    );
    let message = said[0]["message_id"].as_str().unwrap();
    assert_eq!(
        said[0]["riverse"],
        json!({"type": "follow_up.started", "message_id": message, "task_id": task, "tool": "slow"})
    );
    assert!(said.iter().all(|frame| frame["message_id"] == message));
    assert!(
        said.iter()
            .all(|frame| frame["object"] == "chat.completion.chunk"),
        "{said:#?}"
    );
    assert_eq!(said[1]["riverse"]["data"], "report ready after 3s");
    assert_eq!(said[3]["riverse"]["data"], "the gate opened");
    let (text, pieces) = deltas(&said);
    assert_eq!(text, ANSWER);
    assert!(pieces > 1, "the answer came in {pieces} piece");
    let end = said.last().unwrap();
    assert_eq!(end["riverse"]["answer"], ANSWER);
    assert_eq!(end["choices"][0]["finish_reason"], "stop");

    let follow_up = &stored["messages"][2];
    assert_eq!(
        (
            &follow_up["id"],
            &follow_up["status"],
            &follow_up["content"]
        ),
        (&json!(message), &json!("done"), &json!(ANSWER))
    );
    let calls: Vec<&Value> = follow_up["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|call| &call["call_id"])
        .collect();
    assert_eq!(calls, [&json!("c1"), &json!("c2")]);
}

#[test]
fn tasks_that_end_together_each_stream_their_own_follow_up() {
    let llm = OpenAiServer::start([]);
    let project = project(&llm, "");
    llm.push([
        ev_tool_calls(&[
            (
                "c1",
                "slow",
                json!({"seconds": 3, "pid_file": pid_file(&project, "slow.pid")}),
            ),
            (
                "c2",
                "steady",
                json!({"seconds": 3, "pid_file": pid_file(&project, "steady.pid")}),
            ),
        ]),
        ev_text("Started both."),
        ev_text("One report is ready."),
        ev_text("The other report is ready too."),
    ]);
    let server = Server::start(&project, &[]);
    let conversation = new_conversation(&server);
    let mut events = Events::connect(&server, &conversation, &[]);
    assert_eq!(
        post(&server, &conversation, "Build both reports")["content"],
        "Started both."
    );
    let mut frames = events.until("done");
    frames.extend(events.until("done"));

    let stored = get_json(&server, &format!("/v1/conversations/{conversation}"));
    let messages = stored["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 4, "{stored:#}");
    // Each follow-up streamed whole and in order, under its own answer's id,
    // which the conversation stores in the order they started.
    let started: Vec<&Value> = frames
        .iter()
        .filter(|frame| kind(frame) == "follow_up.started")
        .map(|frame| &frame["message_id"])
        .collect();
    assert_eq!(started, [&messages[2]["id"], &messages[3]["id"]]);
    let mut tools = Vec::new();
    for message in &messages[2..] {
        let own: Vec<Value> = frames
            .iter()
            .filter(|frame| frame["message_id"] == message["id"])
            .cloned()
            .collect();
        let call = message["tool_calls"][0]["call_id"].as_str().unwrap();
        assert_eq!(
            shape(&own),
            [
                "follow_up.started".to_owned(),
                format!("tool_call.finished {call}"),
                "delta".to_owned(),
                "done".to_owned()
            ]
        );
        assert_eq!(deltas(&own).0, message["content"].as_str().unwrap());
        assert_eq!(own.last().unwrap()["riverse"]["answer"], message["content"]);
        tools.push(own[0]["riverse"]["tool"].as_str().unwrap().to_owned());
    }
    tools.sort();
    assert_eq!(tools, ["slow", "steady"]);
    let mut answers: Vec<&str> = messages[2..]
        .iter()
        .map(|message| message["content"].as_str().unwrap())
        .collect();
    answers.sort_unstable();
    assert_eq!(
        answers,
        ["One report is ready.", "The other report is ready too."]
    );
}

/// The route is behind the token and the guard as every `/v1` route is; an
/// unknown conversation is a 404; the stream ends when the server stops.
#[test]
fn the_events_route_needs_the_token_and_a_known_conversation() {
    const TOKEN: &str = "s3cret-token-for-events";
    let llm = OpenAiServer::start([]);
    let project = project(&llm, &format!("serve: {{token: {TOKEN}}}\n"));
    let server = Server::start(&project, &[]);
    let bearer = format!("Bearer {TOKEN}");
    let authorized = [("Authorization", bearer.as_str())];
    let body = |mut reader: BufReader<TcpStream>| {
        let mut body = String::new();
        reader.read_to_string(&mut body).unwrap();
        body
    };

    let (status, _, _) = get(&server, "/v1/conversations/conv_none/events", &[]);
    assert_eq!(status, 401);
    let (status, head, reader) = get(&server, "/v1/conversations/conv_none/events", &authorized);
    assert_eq!(status, 404, "{head}");
    assert!(
        body(reader).contains("conversation \\\"conv_none\\\" not found"),
        "{head}"
    );

    let (status, head, reader) = request(&server, "POST", "/v1/conversations", &authorized);
    assert_eq!(status, 200, "{head}");
    let body_text = body(reader);
    let conversation = serde_json::from_str::<Value>(&body_text).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let path = format!("/v1/conversations/{conversation}/events");
    let (status, _, _) = get(&server, &path, &[]);
    assert_eq!(status, 401);
    // A page of another origin may not read it, token or not.
    let foreign = [
        ("Authorization", bearer.as_str()),
        ("Origin", "http://evil.example"),
    ];
    let (status, head, _) = get(&server, &path, &foreign);
    assert_eq!(status, 403, "{head}");
    let events = Events::connect(&server, &conversation, &authorized);
    // A stopping server ends the stream rather than waiting for it.
    let (status, stderr) = server.stop(nix::sys::signal::Signal::SIGTERM);
    assert!(status.success(), "{stderr}");
    assert!(!stderr.contains("still running"), "{stderr}");
    assert_eq!(events.end(), "");
}

/// The page, open on the conversation, shows the follow-up as it streams:
/// its calls' cards, then its text piece by piece, without reading the
/// conversation again; a page loaded while it runs shows it once, whole;
/// a hidden page lets its stream go and takes it up again when shown.
#[test]
fn the_page_shows_the_follow_up_as_it_streams() {
    if !riverse_test_support::chromium_or_skip() {
        return;
    }
    let llm = OpenAiServer::start([]);
    let project = project(&llm, "");
    let gate = script_gated_follow_up(&llm, &project);
    let server = Server::start(&project, &[]);
    let seen = super::serve::python("page_follow_up_stream.py", &[&server.url, &gate]);
    assert_eq!(
        seen["answers"],
        json!(["Started the report.", ANSWER]),
        "{seen:#}"
    );
    assert_eq!(seen["first_answer_kept"], true, "{seen:#}");
    let running = seen["running_cards"].as_array().unwrap();
    assert!(running[1].as_str().unwrap().contains("running"), "{seen:#}");
    assert_eq!(seen["cancel_buttons"], 1, "{seen:#}");
    // Listening while shown, not while hidden (the conversation is read
    // again when shown: the script waits for it).
    assert_eq!(seen["listening"], json!([true, false, true]), "{seen:#}");
    let cards = seen["follow_up_cards"].as_array().unwrap();
    assert_eq!(cards.len(), 2, "{seen:#}");
    assert!(
        cards[0].as_str().unwrap().contains("report ready after 3s"),
        "{seen:#}"
    );
    assert!(
        cards[1].as_str().unwrap().contains("the gate opened"),
        "{seen:#}"
    );
    // The text grew as it came: some of what was shown is a part of the
    // answer, short of the whole.
    let shown: Vec<&str> = seen["texts_shown"]
        .as_array()
        .unwrap()
        .iter()
        .map(|text| text.as_str().unwrap())
        .collect();
    let parts = shown
        .iter()
        .filter(|text| !text.is_empty() && text.len() < ANSWER.len() && ANSWER.starts_with(**text))
        .count();
    assert!(parts > 1, "{shown:?}");
}
