//! Ollama through its OpenAI-compatible endpoint.

use std::time::Duration;

use pretty_assertions::assert_eq;
use riverse_llm::{
    ChatRequest, Error, Hints, Message, OllamaProvider, OpenAiOptions, Provider, RetryPolicy,
};
use riverse_test_support::openai::{OpenAiServer, ev_status, ev_text};
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
