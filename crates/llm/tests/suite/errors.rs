//! Retries, timeouts, and the one-line errors left when they run out.

use std::net::TcpListener;
use std::time::Duration;

use pretty_assertions::assert_eq;
use riverse_llm::{
    ChatRequest, Error, Hints, Message, OpenAiOptions, OpenAiProvider, Provider, RetryPolicy,
};
use riverse_test_support::openai::{OpenAiServer, ev_hang, ev_raw_sse, ev_status, ev_text};

use super::openai::options;

async fn ask(provider: &OpenAiProvider) -> Result<String, Error> {
    let messages = [Message::User("hi".into())];
    let mut sink = |_: &str| {};
    let request = ChatRequest {
        messages: &messages,
        tools: &[],
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

fn with_retries(server: &OpenAiServer, max_retries: u32) -> OpenAiProvider {
    let mut options = options(server);
    options.retry.max_retries = max_retries;
    OpenAiProvider::new(options).unwrap()
}

#[tokio::test]
async fn a_500_is_retried_until_the_endpoint_answers() {
    let server = OpenAiServer::start([
        ev_status(500, "boom"),
        ev_status(502, "bad gateway"),
        ev_text("recovered"),
    ]);
    let answer = ask(&with_retries(&server, 3)).await.unwrap();
    assert_eq!(answer, "recovered");
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn a_429_waits_as_long_as_retry_after_says() {
    let server = OpenAiServer::start([ev_status(429, "slow down").retry_after("1"), ev_text("ok")]);
    // The backoff alone would wait 10 ms.
    let answer = ask(&with_retries(&server, 3)).await.unwrap();
    assert_eq!(answer, "ok");
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let waited = requests[1].received - requests[0].received;
    assert!(
        waited >= Duration::from_millis(950),
        "retried after {waited:?}"
    );
}

#[tokio::test]
async fn retries_are_bounded_and_the_error_says_how_many_were_made() {
    let server = OpenAiServer::start([]).fallback(ev_status(503, "overloaded"));
    let err = ask(&with_retries(&server, 2)).await.unwrap_err();
    assert_eq!(server.requests().len(), 3);
    assert_eq!(
        err.to_string(),
        format!(
            "the LLM at {}/chat/completions answered 503 Service Unavailable: overloaded (gave up after 3 tries)",
            server.base_url()
        )
    );
}

#[tokio::test]
async fn a_retry_after_longer_than_the_cap_fails_at_once() {
    let server = OpenAiServer::start([
        ev_status(429, "quota").retry_after("3600"),
        ev_text("never"),
    ]);
    let err = ask(&with_retries(&server, 3))
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(server.requests().len(), 1);
    assert_eq!(server.take_unused().len(), 1, "the retry was not sent");
    assert!(err.contains("the server asks to wait 3600s"), "{err}");
}

#[tokio::test]
async fn a_wrong_key_is_not_retried_and_the_error_says_where_to_set_it() {
    let server = OpenAiServer::start([ev_status(401, "Incorrect API key provided")]);
    let err = ask(&with_retries(&server, 3)).await.unwrap_err();
    assert_eq!(server.requests().len(), 1);
    assert_eq!(err.status(), Some(401));
    assert_eq!(
        err.to_string(),
        format!(
            "the LLM at {}/chat/completions answered 401 Unauthorized: Incorrect API key provided \
             (set another key)",
            server.base_url()
        )
    );
}

#[tokio::test]
async fn a_wrong_model_names_the_model() {
    let server = OpenAiServer::start([ev_status(404, "The model `gpt-9` does not exist")]);
    let err = ask(&with_retries(&server, 3))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("404 Not Found: The model `gpt-9` does not exist"),
        "{err}"
    );
    assert!(err.ends_with("(check the model name)"), "{err}");
}

#[tokio::test]
async fn an_unreachable_endpoint_is_one_line_naming_it() {
    let port = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let provider = OpenAiProvider::new(OpenAiOptions {
        base_url: format!("http://127.0.0.1:{port}/v1"),
        api_key: None,
        model: "m".into(),
        temperature: None,
        max_tokens: None,
        images: false,
        timeout: Duration::from_secs(5),
        retry: RetryPolicy {
            max_retries: 1,
            initial_backoff: Duration::from_millis(10),
            ..RetryPolicy::default()
        },
        hints: Hints {
            unreachable: Some("check the address".into()),
            ..Hints::default()
        },
    })
    .unwrap();
    let err = ask(&provider).await.unwrap_err().to_string();
    assert_eq!(
        err,
        format!(
            "can't reach the LLM at http://127.0.0.1:{port}/v1/chat/completions: connection refused \
             (check the address) (gave up after 2 tries)"
        )
    );
    assert!(!err.contains('\n'));
}

#[tokio::test]
async fn a_silent_endpoint_times_out() {
    let server = OpenAiServer::start([ev_hang()]);
    let mut options = options(&server);
    options.timeout = Duration::from_millis(300);
    let provider = OpenAiProvider::new(options).unwrap();
    let err = ask(&provider).await.unwrap_err().to_string();
    assert_eq!(
        err,
        format!(
            "the LLM at {}/chat/completions did not answer within 0.3s",
            server.base_url()
        )
    );
    assert_eq!(server.requests().len(), 1, "a timeout is not retried");
}

#[tokio::test]
async fn an_error_sent_mid_stream_is_reported() {
    let server = OpenAiServer::start([ev_raw_sse(&[
        r#"{"choices":[{"delta":{"content":"par"}}]}"#,
        r#"{"error":{"message":"the model crashed"}}"#,
    ])]);
    let err = ask(&with_retries(&server, 0))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.ends_with("answered an error: the model crashed"),
        "{err}"
    );
}

#[tokio::test]
async fn an_unreadable_chunk_is_a_malformed_reply() {
    let server = OpenAiServer::start([ev_raw_sse(&["{not json"])]);
    let err = ask(&with_retries(&server, 0))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with(&format!(
            "the LLM at {}/chat/completions sent a reply that can't be read: ",
            server.base_url()
        )),
        "{err}"
    );
    assert!(err.contains("{not json"), "{err}");
}
