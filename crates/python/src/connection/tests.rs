//! Routing over `tokio::io::duplex`: the test plays the worker.

use std::sync::Arc;

use pretty_assertions::assert_eq;
use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};

use super::*;
use riverse_protocol::{CallOutcome, CallParams};

/// The host's connection, its reader's outcome, and the worker's ends.
struct Wire {
    connection: Arc<Connection<tokio::io::WriteHalf<DuplexStream>>>,
    pending: Arc<Pending>,
    reading: tokio::task::JoinHandle<Ending>,
    importing: mpsc::UnboundedReceiver<String>,
    requests: mpsc::UnboundedReceiver<WorkerRequest>,
    worker_reads: BufReader<tokio::io::ReadHalf<DuplexStream>>,
    worker_writes: tokio::io::WriteHalf<DuplexStream>,
}

fn wire(limit: usize) -> Wire {
    let (host, worker) = tokio::io::duplex(1 << 16);
    let (host_reads, host_writes) = tokio::io::split(host);
    let (worker_reads, worker_writes) = tokio::io::split(worker);
    let pending = Arc::new(Pending::default());
    let (importing_tx, importing) = mpsc::unbounded_channel();
    let (requests_tx, requests) = mpsc::unbounded_channel();
    let inbound = Inbound {
        importing: importing_tx,
        requests: requests_tx,
        exited: None,
        in_flight: Default::default(),
    };
    let reader_pending = pending.clone();
    let reading =
        tokio::spawn(
            async move { read_messages(host_reads, &reader_pending, &inbound, limit).await },
        );
    Wire {
        connection: Arc::new(Connection::new(host_writes, pending.clone())),
        pending,
        reading,
        importing,
        requests,
        worker_reads: BufReader::new(worker_reads),
        worker_writes,
    }
}

impl Wire {
    /// The id of the next request the host sent.
    async fn next_request_id(&mut self) -> i64 {
        let mut line = String::new();
        self.worker_reads.read_line(&mut line).await.unwrap();
        let message: Value = serde_json::from_str(&line).unwrap();
        message["id"].as_i64().unwrap()
    }

    async fn send(&mut self, line: &str) {
        self.worker_writes.write_all(line.as_bytes()).await.unwrap();
    }

    fn call(&self, method: &'static str) -> tokio::task::JoinHandle<Result<Value, RequestError>> {
        let connection = self.connection.clone();
        tokio::spawn(async move { connection.request(method, &json!({})).await })
    }
}

fn reply(id: i64, result: Value) -> String {
    format!(
        "{}\n",
        json!({"jsonrpc": "2.0", "id": id, "result": result})
    )
}

#[tokio::test]
async fn replies_are_routed_by_id_whatever_their_order() {
    let mut wire = wire(1 << 20);
    let first = wire.call("first");
    let first_id = wire.next_request_id().await;
    let second = wire.call("second");
    let second_id = wire.next_request_id().await;
    wire.send(&reply(second_id, json!("to second"))).await;
    wire.send(&reply(first_id, json!("to first"))).await;
    assert_eq!(first.await.unwrap(), Ok(json!("to first")));
    assert_eq!(second.await.unwrap(), Ok(json!("to second")));
}

#[tokio::test]
async fn an_error_reply_is_a_refusal_and_the_connection_stays_open() {
    let mut wire = wire(1 << 20);
    let call = wire.call("tools/call");
    let id = wire.next_request_id().await;
    let error = json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "nope"}});
    wire.send(&format!("{error}\n")).await;
    assert_eq!(
        call.await.unwrap(),
        Err(RequestError::Rpc(ErrorObject {
            code: -32601,
            message: "nope".into(),
            data: None
        }))
    );
    assert_eq!(wire.pending.closed(), None);
}

#[tokio::test]
async fn a_reply_is_read_straight_into_the_type_its_request_expects() {
    let mut wire = wire(1 << 20);
    let connection = wire.connection.clone();
    let call = tokio::spawn(async move {
        let params = CallParams {
            name: "echo",
            arguments: &json!({"text": "hi"}),
            secrets: None,
        };
        connection
            .request::<_, CallOutcome>(methods::CALL, &params)
            .await
    });
    let mut line = String::new();
    wire.worker_reads.read_line(&mut line).await.unwrap();
    let request: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(
        request["params"],
        json!({"name": "echo", "arguments": {"text": "hi"}})
    );
    let id = request["id"].as_i64().unwrap();
    let outcome = json!({"success": true, "data": "hi", "dataBytes": 9});
    wire.send(&reply(id, outcome)).await;
    let read = call.await.unwrap().unwrap();
    assert_eq!((read.data.as_str(), read.data_bytes), ("hi", Some(9)));
}

#[tokio::test]
async fn a_reply_of_the_wrong_shape_fails_its_request_and_the_connection_stays_open() {
    let mut wire = wire(1 << 20);
    let connection = wire.connection.clone();
    let call = tokio::spawn(async move {
        connection
            .request::<_, CallOutcome>(methods::CALL, &json!({}))
            .await
    });
    let id = wire.next_request_id().await;
    wire.send(&reply(id, json!({"success": "yes"}))).await;
    let Err(RequestError::Unreadable(why)) = call.await.unwrap() else {
        panic!("a wrong reply was read");
    };
    assert!(why.contains("riverse/call"), "{why}");
    assert_eq!(wire.pending.closed(), None);
    let next = wire.call("next");
    let id = wire.next_request_id().await;
    wire.send(&reply(id, json!("fine"))).await;
    assert_eq!(next.await.unwrap(), Ok(json!("fine")));
}

#[tokio::test]
async fn a_reply_for_an_unknown_id_retires_the_connection() {
    let mut wire = wire(1 << 20);
    wire.send(&reply(41, json!("stray"))).await;
    let ending = (&mut wire.reading).await.unwrap();
    assert_eq!(
        ending,
        Ending::Corrupted("a reply to request 41, which nothing awaits".into())
    );
}

#[tokio::test]
async fn a_malformed_line_retires_the_connection_and_quotes_it() {
    let mut wire = wire(1 << 20);
    wire.send("garbage from a tool\n").await;
    let ending = (&mut wire.reading).await.unwrap();
    assert_eq!(
        ending,
        Ending::Corrupted(
            "an invalid line (expected value at line 1 column 1): \"garbage from a tool\"".into()
        )
    );
}

#[tokio::test]
async fn death_in_the_middle_of_a_reply_fails_every_pending_call_with_the_cause() {
    let mut wire = wire(1 << 20);
    let first = wire.call("first");
    let first_id = wire.next_request_id().await;
    let second = wire.call("second");
    wire.next_request_id().await;
    wire.send(&reply(first_id, json!("whole"))[..10]).await;
    wire.worker_writes.shutdown().await.unwrap();
    assert_eq!((&mut wire.reading).await.unwrap(), Ending::Eof);
    // What the worker's supervisor does once it knows how the process ended.
    wire.pending.close(Closed::Died(Exit::Signal(11)));
    let died = Err(RequestError::Closed(Closed::Died(Exit::Signal(11))));
    assert_eq!(first.await.unwrap(), died);
    assert_eq!(second.await.unwrap(), died);
    // A later request fails at once, without being sent.
    assert_eq!(
        wire.connection
            .request::<_, Value>("later", &json!({}))
            .await,
        died
    );
}

#[tokio::test]
async fn a_reply_over_the_limit_fails_its_request_without_being_held() {
    let mut wire = wire(100);
    let call = wire.call("tools/call");
    let id = wire.next_request_id().await;
    let huge = reply(id, json!("x".repeat(10_000)));
    wire.send(&huge).await;
    assert_eq!(
        call.await.unwrap(),
        Err(RequestError::TooLarge {
            total: huge.len() - 1,
            limit: 100
        })
    );
    // The stream goes on after it.
    let next = wire.call("next");
    let id = wire.next_request_id().await;
    wire.send(&reply(id, json!("fine"))).await;
    assert_eq!(next.await.unwrap(), Ok(json!("fine")));
}

#[tokio::test]
async fn announced_files_reach_the_importing_channel() {
    let mut wire = wire(1 << 20);
    let note = json!({"jsonrpc": "2.0", "method": methods::IMPORTING, "params": {"file": "a.py"}});
    wire.send(&format!("{note}\n")).await;
    assert_eq!(wire.importing.recv().await, Some("a.py".to_owned()));
}

#[tokio::test]
async fn the_worker_s_own_requests_reach_the_requests_channel_and_are_answered() {
    let mut wire = wire(1 << 16);
    wire.worker_writes
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":\"w1\",\"method\":\"riverse/host/tools/list\"}\n")
        .await
        .unwrap();
    let request = wire.requests.recv().await.unwrap();
    assert_eq!(request.method, "riverse/host/tools/list");
    wire.connection
        .respond(request.id, Ok(json!({"tools": []})))
        .await;
    let mut line = String::new();
    wire.worker_reads.read_line(&mut line).await.unwrap();
    let answer: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(
        answer,
        json!({"jsonrpc": "2.0", "id": "w1", "result": {"tools": []}})
    );
}
