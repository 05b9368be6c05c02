//! Every completion reports its usage: the endpoint's, asked for when
//! streaming, or an estimate where the endpoint reports none.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::thread::JoinHandle;
use std::time::Duration;

use pretty_assertions::assert_eq;
use riverse_llm::{
    ChatRequest, ChatResponse, Hints, Message, OpenAiOptions, OpenAiProvider, Provider,
    RetryPolicy, Usage,
};
use riverse_test_support::openai::{OpenAiServer, ev_raw_sse, ev_status, ev_text};
use serde_json::{Value, json};

use super::openai::options;

fn user(text: &str) -> Vec<Message> {
    vec![
        Message::System("be brief".into()),
        Message::User(text.into()),
    ]
}

fn request(messages: &[Message]) -> ChatRequest<'_> {
    ChatRequest {
        messages,
        tools: &[],
        temperature: None,
        max_tokens: None,
        tool_choice: &riverse_llm::ToolChoice::Auto,
        parallel_tool_calls: None,
    }
}

async fn streamed(provider: &OpenAiProvider, messages: &[Message]) -> ChatResponse {
    let mut sink = |_: &str| {};
    provider
        .complete(request(messages), Some(&mut sink))
        .await
        .unwrap()
}

async fn whole(provider: &OpenAiProvider, messages: &[Message]) -> ChatResponse {
    provider.complete(request(messages), None).await.unwrap()
}

/// Answers one request on a loopback port with `body` as one JSON reply, as
/// the scripted server (which always reports usage) cannot; returns the base
/// URL and, once answered, the request's JSON body.
fn serve_one_json_reply(body: &'static str) -> (String, JoinHandle<Value>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let served = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut length = 0;
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            if line.trim().is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().unwrap();
            }
        }
        let mut request = vec![0; length];
        reader.read_exact(&mut request).unwrap();
        write!(
            stream,
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
             connection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        serde_json::from_slice(&request).unwrap()
    });
    (format!("http://127.0.0.1:{port}/v1"), served)
}

#[tokio::test]
async fn a_streamed_request_asks_for_usage_and_reads_it() {
    let server = OpenAiServer::start([ev_text("Hello there")]);
    let provider = OpenAiProvider::new(options(&server)).unwrap();
    let response = streamed(&provider, &user("hi")).await;
    let sent = server.single_request();
    assert!(sent.is_stream());
    assert_eq!(sent.body["stream_options"], json!({"include_usage": true}));
    // The scripted server counts 10 in and a token a character out.
    assert_eq!(response.usage, Some(Usage::new(10, 11)));
}

#[tokio::test]
async fn a_whole_request_sends_no_stream_options_and_reads_the_usage() {
    let server = OpenAiServer::start([ev_text("Hello there")]);
    let provider = OpenAiProvider::new(options(&server)).unwrap();
    let response = whole(&provider, &user("hi")).await;
    let sent = server.single_request();
    assert_eq!(sent.body["stream"], json!(false));
    assert_eq!(sent.body.get("stream_options"), None);
    assert_eq!(response.usage, Some(Usage::new(10, 11)));
}

#[tokio::test]
async fn the_usage_chunk_with_no_choices_is_read_after_the_text() {
    // As OpenAI streams with `include_usage`: `usage: null` on every chunk
    // with choices, then one with no choices and the count.
    let server = OpenAiServer::start([ev_raw_sse(&[
        r#"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":null}],"usage":null}"#,
        r#"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null}"#,
        r#"{"id":"c","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":24,"completion_tokens":58,"total_tokens":82}}"#,
        "[DONE]",
    ])]);
    let provider = OpenAiProvider::new(options(&server)).unwrap();
    let response = streamed(&provider, &user("hi")).await;
    assert_eq!(response.text, "Hi");
    assert_eq!(response.usage, Some(Usage::new(24, 58)));
}

#[tokio::test]
async fn a_stream_without_usage_is_given_an_estimate() {
    let server = OpenAiServer::start([ev_raw_sse(&[
        r#"{"choices":[{"delta":{"content":"Hello "}}]}"#,
        r#"{"choices":[{"delta":{"content":"there"}}]}"#,
        "[DONE]",
    ])]);
    let provider = OpenAiProvider::new(options(&server)).unwrap();
    let response = streamed(&provider, &user("hi")).await;
    assert_eq!(response.text, "Hello there");
    // "be brief" and "hi" sent, "Hello there" answered: 10 and 11
    // characters, a token for every four begun.
    assert_eq!(response.usage, Some(Usage::estimate(10, 11)));
    assert_eq!(response.usage, Some(Usage::new(3, 3)));
}

#[tokio::test]
async fn a_whole_reply_without_usage_is_given_an_estimate() {
    let (base_url, served) = serve_one_json_reply(
        r#"{"choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"clock","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}"#,
    );
    let provider = OpenAiProvider::new(OpenAiOptions {
        base_url,
        api_key: None,
        model: "m".into(),
        temperature: None,
        max_tokens: None,
        images: false,
        timeout: Duration::from_secs(10),
        retry: RetryPolicy::default(),
        hints: Hints::default(),
    })
    .unwrap();
    let messages = user("what time is it?");
    let response = whole(&provider, &messages).await;
    assert_eq!(response.tool_calls[0].name, "clock");
    assert_eq!(served.join().unwrap().get("stream_options"), None);
    // 8 + 16 characters sent; the call's name and arguments, 5 + 2, answered.
    assert_eq!(response.usage, Some(Usage::estimate(24, 7)));
    assert_eq!(response.usage, Some(Usage::new(6, 2)));
}

#[tokio::test]
async fn an_endpoint_refusing_stream_options_is_asked_again_without_them() {
    let server = OpenAiServer::start([
        ev_status(
            400,
            "Unrecognized request argument supplied: stream_options",
        ),
        ev_text("ok"),
        ev_text("again"),
    ]);
    let provider = OpenAiProvider::new(options(&server)).unwrap();
    assert_eq!(streamed(&provider, &user("hi")).await.text, "ok");
    assert_eq!(streamed(&provider, &user("hi")).await.text, "again");
    let asked: Vec<bool> = server
        .requests()
        .iter()
        .map(|request| request.body.get("stream_options").is_some())
        .collect();
    assert_eq!(asked, [true, false, false], "and not asked again");
}
