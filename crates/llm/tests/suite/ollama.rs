//! Ollama through its OpenAI-compatible endpoint.

use std::time::Duration;

use pretty_assertions::assert_eq;
use riverse_llm::{
    ChatRequest, Error, Hints, Message, OllamaProvider, OpenAiOptions, Provider, RetryPolicy, Usage,
};
use riverse_test_support::openai::{OpenAiServer, ev_raw_sse, ev_status, ev_text};
use riverse_tool::ToolManifest;
use serde_json::json;

fn provider(base_url: String) -> OllamaProvider {
    OllamaProvider::new(OpenAiOptions {
        base_url,
        api_key: None,
        model: "qwen2.5:14b".into(),
        temperature: None,
        max_tokens: None,
        images: false,
        timeout: Duration::from_secs(10),
        retry: RetryPolicy {
            initial_backoff: Duration::from_millis(10),
            ..RetryPolicy::default()
        },
        hints: Hints {
            not_found: Some("or set another model".into()),
            ..Hints::default()
        },
    })
    .unwrap()
}

async fn ask(provider: &OllamaProvider, tools: &[ToolManifest]) -> Result<String, Error> {
    let messages = [Message::User("hi".into())];
    let mut sink = |_: &str| {};
    let request = ChatRequest {
        messages: &messages,
        tools,
        temperature: None,
        max_tokens: None,
        tool_choice: &riverse_llm::ToolChoice::Auto,
        parallel_tool_calls: None,
    };
    provider
        .complete(request, Some(&mut sink))
        .await
        .map(|response| response.text)
}

#[tokio::test]
async fn requests_go_to_the_base_url_with_no_key_and_ollama_s_temperature() {
    let server = OpenAiServer::start([ev_text("hello")]);
    assert_eq!(
        ask(&provider(server.base_url()), &[]).await.unwrap(),
        "hello"
    );
    let sent = server.single_request();
    assert_eq!(sent.path, "/v1/chat/completions");
    assert_eq!(sent.header("authorization"), None);
    assert_eq!(sent.body["model"], json!("qwen2.5:14b"));
    assert_eq!(sent.body.get("temperature"), None);
}

#[tokio::test]
async fn a_missing_model_suggests_pulling_it() {
    let server = OpenAiServer::start([ev_status(
        404,
        "model \"qwen2.5:14b\" not found, try pulling it first",
    )]);
    let err = ask(&provider(server.base_url()), &[])
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.ends_with("(is the model pulled? run `ollama pull qwen2.5:14b`, or set another model)"),
        "{err}"
    );
}

#[tokio::test]
async fn a_model_without_tools_is_reported_as_such() {
    let server = OpenAiServer::start([ev_status(
        400,
        "registry.ollama.ai/library/gemma:2b does not support tools",
    )]);
    let tool: ToolManifest =
        serde_json::from_value(json!({"name": "t", "description": "d"})).unwrap();
    let err = ask(&provider(server.base_url()), &[tool])
        .await
        .unwrap_err();
    assert!(matches!(err, Error::ToolsUnsupported { .. }), "{err:?}");
}

fn hi() -> ChatRequest<'static> {
    ChatRequest {
        messages: &[],
        tools: &[],
        temperature: None,
        max_tokens: None,
        tool_choice: &riverse_llm::ToolChoice::Auto,
        parallel_tool_calls: None,
    }
}

#[tokio::test]
async fn ollama_s_counts_are_read_from_its_usage_chunk() {
    // What Ollama (0.5.2 on) streams when asked for usage: its
    // `prompt_eval_count` and `eval_count` as the usage of a last chunk.
    let server = OpenAiServer::start([ev_raw_sse(&[
        r#"{"id":"chatcmpl-7","object":"chat.completion.chunk","created":1,"model":"qwen2.5:14b","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant","content":"Hello"},"finish_reason":null}]}"#,
        r#"{"id":"chatcmpl-7","object":"chat.completion.chunk","created":1,"model":"qwen2.5:14b","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":"stop"}]}"#,
        r#"{"id":"chatcmpl-7","object":"chat.completion.chunk","created":1,"model":"qwen2.5:14b","system_fingerprint":"fp_ollama","choices":[],"usage":{"prompt_tokens":26,"completion_tokens":2,"total_tokens":28}}"#,
        "[DONE]",
    ])]);
    let provider = provider(server.base_url());
    let messages = [Message::User("hi".into())];
    let mut sink = |_: &str| {};
    let request = ChatRequest {
        messages: &messages,
        ..hi()
    };
    let response = provider.complete(request, Some(&mut sink)).await.unwrap();
    assert_eq!(response.text, "Hello");
    assert_eq!(response.usage, Some(Usage::new(26, 2)));
    assert_eq!(
        server.single_request().body["stream_options"],
        json!({"include_usage": true})
    );
}

#[tokio::test]
async fn ollama_s_counts_are_read_from_a_whole_reply() {
    let server = OpenAiServer::start([ev_text("hello")]);
    let messages = [Message::User("hi".into())];
    let request = ChatRequest {
        messages: &messages,
        ..hi()
    };
    let response = provider(server.base_url())
        .complete(request, None)
        .await
        .unwrap();
    // The scripted server's count: 10 in, a token a character out.
    assert_eq!(response.usage, Some(Usage::new(10, 5)));
    assert_eq!(server.single_request().body.get("stream_options"), None);
}

#[tokio::test]
async fn an_ollama_that_reports_no_usage_gets_an_estimate() {
    // Ollama before 0.5.2 ignores `stream_options` and streams no usage.
    let server = OpenAiServer::start([ev_raw_sse(&[
        r#"{"choices":[{"index":0,"delta":{"content":"Hello there"}}]}"#,
        "[DONE]",
    ])]);
    let messages = [Message::User("what is the weather like".into())];
    let mut sink = |_: &str| {};
    let request = ChatRequest {
        messages: &messages,
        ..hi()
    };
    let response = provider(server.base_url())
        .complete(request, Some(&mut sink))
        .await
        .unwrap();
    assert_eq!(response.usage, Some(Usage::estimate(23, 11)));
}
