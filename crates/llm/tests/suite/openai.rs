//! Requests as the endpoint sees them, and replies streamed or whole.

use pretty_assertions::assert_eq;
use riverse_llm::{
    ChatRequest, Hints, Message, OpenAiOptions, OpenAiProvider, Provider, RetryPolicy, ToolCall,
};
use riverse_test_support::openai::{OpenAiServer, ev_raw_sse, ev_text, ev_tool_calls};
use riverse_tool::ToolManifest;
use serde_json::{Value, json};
use std::time::Duration;

pub(crate) fn options(server: &OpenAiServer) -> OpenAiOptions {
    OpenAiOptions {
        base_url: server.base_url(),
        api_key: Some("sk-test".into()),
        model: "scripted-model".into(),
        temperature: Some(0.7),
        max_tokens: Some(256),
        images: false,
        timeout: Duration::from_secs(10),
        retry: RetryPolicy {
            initial_backoff: Duration::from_millis(10),
            ..RetryPolicy::default()
        },
        hints: Hints {
            unreachable: Some("check the address".into()),
            unauthorized: Some("set another key".into()),
            not_found: Some("check the model name".into()),
        },
    }
}

fn weather() -> ToolManifest {
    serde_json::from_value(json!({
        "name": "weather", "description": "Get the weather",
        "parameters": {"city": "City name", "days": "How many days"},
        "parameter_types": {"days": "int"},
        "examples": ["Weather in Tokyo?"]
    }))
    .unwrap()
}

fn user(text: &str) -> Vec<Message> {
    vec![
        Message::System("be brief".into()),
        Message::User(text.into()),
    ]
}

async fn streamed(
    provider: &OpenAiProvider,
    messages: &[Message],
    tools: &[ToolManifest],
) -> (Vec<String>, riverse_llm::ChatResponse) {
    let mut pieces = Vec::new();
    let mut sink = |text: &str| pieces.push(text.to_owned());
    let request = ChatRequest {
        messages,
        tools,
        temperature: None,
        max_tokens: None,
        tool_choice: &riverse_llm::ToolChoice::Auto,
        parallel_tool_calls: None,
    };
    let response = provider.complete(request, Some(&mut sink)).await.unwrap();
    (pieces, response)
}

#[tokio::test]
async fn streamed_text_arrives_in_pieces_and_whole() {
    let server = OpenAiServer::start([ev_text("Hello there, how are you today?")]);
    let provider = OpenAiProvider::new(options(&server)).unwrap();
    let (pieces, response) = streamed(&provider, &user("hi"), &[]).await;
    assert!(pieces.len() > 3, "expected several pieces, got {pieces:?}");
    assert_eq!(pieces.concat(), "Hello there, how are you today?");
    assert_eq!(response.text, "Hello there, how are you today?");
    assert!(response.tool_calls.is_empty());
    assert!(server.single_request().is_stream());
}

#[tokio::test]
async fn without_a_sink_the_reply_is_read_whole() {
    let server = OpenAiServer::start([ev_text("whole answer")]);
    let provider = OpenAiProvider::new(options(&server)).unwrap();
    let request = ChatRequest {
        messages: &user("hi"),
        tools: &[],
        temperature: Some(0.0),
        max_tokens: None,
        tool_choice: &riverse_llm::ToolChoice::Auto,
        parallel_tool_calls: None,
    };
    let response = provider.complete(request, None).await.unwrap();
    assert_eq!(response.text, "whole answer");
    let sent = server.single_request();
    assert_eq!(sent.body["stream"], json!(false));
    assert_eq!(sent.body["temperature"], json!(0.0));
}

#[tokio::test]
async fn tool_call_deltas_split_across_chunks_are_joined() {
    for split in [None, Some(7), Some(1)] {
        let reply = ev_tool_calls(&[
            ("call_a", "weather", json!({"city": "Tokyo", "days": 3})),
            ("call_b", "weather", json!({"city": "大阪"})),
        ])
        .with_text("Checking.");
        let reply = match split {
            Some(bytes) => reply.split_bytes(bytes),
            None => reply,
        };
        let server = OpenAiServer::start([reply]);
        let provider = OpenAiProvider::new(options(&server)).unwrap();
        let (_, response) = streamed(&provider, &user("weather?"), &[weather()]).await;
        assert_eq!(response.text, "Checking.", "split {split:?}");
        let calls: Vec<(String, String, Value)> = response
            .tool_calls
            .iter()
            .map(|c| {
                (
                    c.id.clone(),
                    c.name.clone(),
                    serde_json::from_str(&c.arguments).unwrap(),
                )
            })
            .collect();
        assert_eq!(
            calls,
            vec![
                (
                    "call_a".into(),
                    "weather".into(),
                    json!({"city": "Tokyo", "days": 3})
                ),
                ("call_b".into(), "weather".into(), json!({"city": "大阪"})),
            ],
            "split {split:?}"
        );
    }
}

#[tokio::test]
async fn japanese_text_cut_inside_characters_arrives_intact() {
    let text = "東京は晴れ、気温は二十一度です。🌤";
    let server = OpenAiServer::start([ev_text(text).split_bytes(5)]);
    let provider = OpenAiProvider::new(options(&server)).unwrap();
    let (pieces, response) = streamed(&provider, &user("天気は？"), &[]).await;
    assert_eq!(pieces.concat(), text);
    assert_eq!(response.text, text);
    assert_eq!(
        server.single_request().messages()[1]["content"],
        json!("天気は？")
    );
}

#[tokio::test]
async fn the_request_carries_the_model_settings_key_tools_and_conversation() {
    let server = OpenAiServer::start([ev_text("ok")]);
    let provider = OpenAiProvider::new(options(&server)).unwrap();
    let conversation = vec![
        Message::System("sys".into()),
        Message::User("weather in Tokyo?".into()),
        Message::Assistant {
            content: String::new(),
            tool_calls: vec![ToolCall {
                id: "c1".into(),
                name: "weather".into(),
                arguments: r#"{"city":"Tokyo"}"#.into(),
            }],
        },
        Message::Tool {
            call_id: "c1".into(),
            content: "sunny".into(),
            failed: false,
        },
        Message::assistant("It is sunny."),
        Message::User("thanks".into()),
    ];
    streamed(&provider, &conversation, &[weather()]).await;
    let sent = server.single_request();
    assert_eq!(sent.method, "POST");
    assert_eq!(sent.path, "/v1/chat/completions");
    assert_eq!(sent.header("authorization"), Some("Bearer sk-test"));
    assert_eq!(sent.header("content-type"), Some("application/json"));
    assert_eq!(sent.body["model"], json!("scripted-model"));
    assert_eq!(sent.body["max_tokens"], json!(256));
    assert!((sent.body["temperature"].as_f64().unwrap() - 0.7).abs() < 1e-6);
    assert_eq!(sent.tool_names(), vec!["weather"]);
    assert_eq!(
        sent.body["tools"][0]["function"]["parameters"]["properties"]["days"],
        json!({"type": "integer", "description": "How many days"})
    );
    assert_eq!(
        sent.body["messages"],
        json!([
            {"role": "system", "content": "sys"},
            {"role": "user", "content": "weather in Tokyo?"},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Tokyo\"}"}}
            ]},
            {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
            {"role": "assistant", "content": "It is sunny."},
            {"role": "user", "content": "thanks"},
        ])
    );
}

#[tokio::test]
async fn no_key_sends_no_authorization_header() {
    let server = OpenAiServer::start([ev_text("ok")]);
    let provider = OpenAiProvider::new(OpenAiOptions {
        api_key: Some(String::new()),
        ..options(&server)
    })
    .unwrap();
    streamed(&provider, &user("hi"), &[]).await;
    assert_eq!(server.single_request().header("authorization"), None);
}

#[tokio::test]
async fn an_api_base_with_a_trailing_slash_still_reaches_chat_completions() {
    let server = OpenAiServer::start([ev_text("ok")]);
    let base_url = format!("{}/", server.base_url());
    let provider = OpenAiProvider::new(OpenAiOptions {
        base_url,
        ..options(&server)
    })
    .unwrap();
    streamed(&provider, &user("hi"), &[]).await;
    assert_eq!(server.single_request().path, "/v1/chat/completions");
}

#[tokio::test]
async fn a_stream_without_done_and_with_whole_tool_calls_is_read() {
    // The shape some compatible servers use: each call whole in one chunk, no index.
    let server = OpenAiServer::start([ev_raw_sse(&[
        r#"{"choices":[{"delta":{"content":"Hi"}}]}"#,
        r#"{"choices":[{"delta":{"tool_calls":[{"id":"x","function":{"name":"weather","arguments":{"city":"Oslo"}}}]}}]}"#,
        r#"{"choices":[{"delta":{"tool_calls":[{"id":"y","function":{"name":"weather","arguments":"{}"}}]}}]}"#,
    ])]);
    let provider = OpenAiProvider::new(options(&server)).unwrap();
    let (_, response) = streamed(&provider, &user("hi"), &[weather()]).await;
    assert_eq!(response.text, "Hi");
    assert_eq!(
        response.tool_calls,
        vec![
            ToolCall {
                id: "x".into(),
                name: "weather".into(),
                arguments: r#"{"city":"Oslo"}"#.into()
            },
            ToolCall {
                id: "y".into(),
                name: "weather".into(),
                arguments: "{}".into()
            },
        ]
    );
}
