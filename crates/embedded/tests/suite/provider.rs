//! The embedded model as a `Provider`: a routed call comes back as a tool
//! call, results are answered, and a missing model file is one line with
//! the caller's hint.

use std::path::PathBuf;

use riverse_embedded::{EmbeddedOptions, EmbeddedProvider};
use riverse_llm::{ChatRequest, Error, Message, Provider, ToolChoice};
use serde_json::{Value, json};

use super::{model, template_tools};

fn provider_of_the_test_model() -> EmbeddedProvider {
    EmbeddedProvider::new(EmbeddedOptions {
        model_path: Some(model().path().to_path_buf()),
        prompt_cache_dir: None,
        ..EmbeddedOptions::default()
    })
}

#[tokio::test]
async fn a_routed_message_comes_back_as_a_tool_call_and_its_result_is_answered() {
    let provider = provider_of_the_test_model();
    let tools = template_tools();
    let mut messages = vec![
        Message::System("You are an agent with tools.".into()),
        Message::User("What's the weather in Oslo?".into()),
    ];
    let response = provider
        .complete(
            ChatRequest {
                messages: &messages,
                tools: &tools,
                temperature: None,
                max_tokens: None,
                tool_choice: &ToolChoice::Auto,
                parallel_tool_calls: None,
            },
            None,
        )
        .await
        .unwrap();
    assert_eq!(response.text, "");
    let [call] = response.tool_calls.as_slice() else {
        panic!("one call: {response:?}");
    };
    assert_eq!(call.name, "weather");
    let arguments: Value = serde_json::from_str(&call.arguments).unwrap();
    assert_eq!(arguments, json!({"city": "Oslo"}));

    messages.push(Message::Assistant {
        content: String::new(),
        tool_calls: response.tool_calls.clone(),
    });
    messages.push(Message::Tool {
        call_id: call.id.clone(),
        content: "Oslo: 🌦 +7°C, wind 13 km/h".into(),
        failed: false,
    });
    let mut streamed = String::new();
    let mut sink = |piece: &str| streamed.push_str(piece);
    let answer = provider
        .complete(
            ChatRequest {
                messages: &messages,
                tools: &tools,
                temperature: None,
                max_tokens: None,
                tool_choice: &ToolChoice::Auto,
                parallel_tool_calls: None,
            },
            Some(&mut sink),
        )
        .await
        .unwrap();
    assert!(answer.tool_calls.is_empty(), "{answer:?}");
    assert!(answer.text.contains('7'), "{answer:?}");
    assert_eq!(streamed, answer.text);
}

#[tokio::test]
async fn a_missing_model_file_is_one_line_ending_with_the_callers_hint() {
    let provider = EmbeddedProvider::new(EmbeddedOptions {
        model_path: Some(PathBuf::from("/nonexistent/model.gguf")),
        ..EmbeddedOptions::default()
    })
    .with_model_file_hint("set model.file to another GGUF file");
    let err = provider
        .complete(
            ChatRequest {
                messages: &[Message::User("hello".into())],
                tools: &[],
                temperature: None,
                max_tokens: None,
                tool_choice: &ToolChoice::Auto,
                parallel_tool_calls: None,
            },
            None,
        )
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Unavailable(_)), "{err:?}");
    assert_eq!(
        err.to_string(),
        "the embedded model failed: embedded model /nonexistent/model.gguf: not found \
         (set model.file to another GGUF file)"
    );
}

/// Asks the model about `message` with `tools` under `choice`; the calls it made.
async fn calls_under(
    provider: &EmbeddedProvider,
    message: &str,
    tools: &[riverse_tool::ToolManifest],
    choice: ToolChoice,
) -> Vec<(String, Value)> {
    let response = provider
        .complete(
            ChatRequest {
                messages: &[Message::User(message.into())],
                tools,
                temperature: None,
                max_tokens: None,
                tool_choice: &choice,
                parallel_tool_calls: None,
            },
            None,
        )
        .await
        .unwrap();
    response
        .tool_calls
        .into_iter()
        .map(|call| (call.name, serde_json::from_str(&call.arguments).unwrap()))
        .collect()
}

#[tokio::test]
async fn the_choice_of_tools_is_honoured_for_a_message_no_tool_would_win() {
    let provider = provider_of_the_test_model();
    let tools = template_tools();
    let greeting = "Hello there!";
    assert_eq!(
        calls_under(&provider, greeting, &tools, ToolChoice::Auto).await,
        vec![]
    );
    let required = calls_under(&provider, greeting, &tools, ToolChoice::Required).await;
    assert_eq!(required.len(), 1, "{required:?}");
    let named = calls_under(
        &provider,
        greeting,
        &tools,
        ToolChoice::Function("clock".into()),
    )
    .await;
    assert_eq!(
        named
            .iter()
            .map(|(name, _)| name.as_str())
            .collect::<Vec<_>>(),
        vec!["clock"]
    );
    assert_eq!(
        calls_under(
            &provider,
            "What's the weather in Oslo?",
            &tools,
            ToolChoice::None
        )
        .await,
        vec![]
    );
}

#[tokio::test]
async fn a_request_short_of_a_required_value_is_asked_for_it() {
    let provider = provider_of_the_test_model();
    let tools: Vec<riverse_tool::ToolManifest> = serde_json::from_value(json!([
        {
            "name": "book_sitter",
            "description": "Books a babysitter for a date and time and returns a booking id.",
            "parameters": {
                "sitter_name": "full name of the sitter",
                "date": "date of the sitting, YYYY-MM-DD",
                "hours": "length of the sitting in hours",
                "notes": "optional; anything the sitter should know"
            },
            "parameter_types": {"sitter_name": "string", "date": "string", "hours": "number", "notes": "string"}
        },
        {
            "name": "list_bookings",
            "description": "Lists your upcoming sittings.",
            "parameters": {}
        }
    ]))
    .unwrap();
    let messages = vec![Message::User("Book Tom Becker as our babysitter".into())];
    let mut streamed = String::new();
    let mut sink = |piece: &str| streamed.push_str(piece);
    let response = provider
        .complete(
            ChatRequest {
                messages: &messages,
                tools: &tools,
                temperature: None,
                max_tokens: None,
                tool_choice: &ToolChoice::Auto,
                parallel_tool_calls: None,
            },
            Some(&mut sink),
        )
        .await
        .unwrap();
    assert!(response.tool_calls.is_empty(), "{response:?}");
    assert!(
        response.text.starts_with("To use book_sitter I need the "),
        "{response:?}"
    );
    assert_eq!(streamed, response.text);
}
