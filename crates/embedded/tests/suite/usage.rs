//! Every completion of the embedded provider reports the tokens it took,
//! counted with the model's own tokenizer.

use riverse_embedded::tuning::ANSWER_MAX_TOKENS;
use riverse_embedded::{EmbeddedOptions, EmbeddedProvider};
use riverse_llm::{ChatRequest, ChatResponse, Message, Provider, ToolCall, Usage};
use riverse_tool::ToolManifest;

use super::{model, template_tools};

fn provider(generated_replies: bool) -> EmbeddedProvider {
    EmbeddedProvider::new(EmbeddedOptions {
        model_path: Some(model().path().to_path_buf()),
        prompt_cache_dir: None,
        generated_replies,
        ..EmbeddedOptions::default()
    })
}

async fn complete(
    provider: &EmbeddedProvider,
    messages: &[Message],
    tools: &[ToolManifest],
) -> ChatResponse {
    let request = ChatRequest {
        messages,
        tools,
        temperature: None,
        max_tokens: None,
        tool_choice: &riverse_llm::ToolChoice::Auto,
        parallel_tool_calls: None,
    };
    provider.complete(request, None).await.unwrap()
}

/// The response's usage, checked to add up.
fn usage(response: &ChatResponse) -> Usage {
    let usage = response.usage.expect("every completion reports usage");
    assert_eq!(
        usage.total_tokens,
        usage.prompt_tokens + usage.completion_tokens,
        "{usage:?}"
    );
    usage
}

fn tokens(text: &str) -> u64 {
    model().tokenizer().encode(text).unwrap().len() as u64
}

#[tokio::test]
async fn a_routed_call_counts_its_prompts_whole_and_what_it_gave() {
    let provider = provider(false);
    let tools = template_tools();
    let message = "What's the weather in Oslo?";
    let asked = [Message::User(message.into())];
    // The first call prefills the prompts' fixed parts and the second
    // reuses them: both read them, and both count them.
    let cold = complete(&provider, &asked, &tools).await;
    let warm = complete(&provider, &asked, &tools).await;
    let [call] = cold.tool_calls.as_slice() else {
        panic!("one call: {cold:?}");
    };
    assert_eq!(call.name, "weather");
    let counted = usage(&cold);
    assert_eq!(warm.usage, cold.usage);
    // The choice prompt and the parameter prompt each hold the message and
    // much more; the tool's name and the arguments were given.
    assert!(counted.prompt_tokens > 2 * tokens(message), "{counted:?}");
    assert!(
        counted.completion_tokens > tokens(&call.arguments),
        "{counted:?}"
    );
}

#[tokio::test]
async fn a_fixed_reply_counts_the_routing_before_it() {
    let response = complete(
        &provider(false),
        &[Message::User("Hello!".into())],
        &template_tools(),
    )
    .await;
    assert!(response.tool_calls.is_empty(), "{response:?}");
    assert!(!response.text.is_empty());
    let counted = usage(&response);
    // The choice prompt read, `none` given; the reply is a fixed one.
    assert!(counted.prompt_tokens > tokens("Hello!"), "{counted:?}");
    assert!(counted.completion_tokens > 0, "{counted:?}");
}

#[tokio::test]
async fn results_laid_out_without_the_model_count_no_tokens() {
    let conversation = [
        Message::User("What time is it in Tokyo?".into()),
        Message::Assistant {
            content: String::new(),
            tool_calls: vec![ToolCall {
                id: "call_1".into(),
                name: "clock".into(),
                arguments: r#"{"timezone": "Asia/Tokyo"}"#.into(),
            }],
        },
        Message::Tool {
            call_id: "call_1".into(),
            content: "Monday 2025-01-06 09:30:00 (Asia/Tokyo, UTC+0900)".into(),
            failed: false,
        },
    ];
    let response = complete(&provider(false), &conversation, &template_tools()).await;
    assert!(response.text.contains("09:30"), "{response:?}");
    assert_eq!(response.usage, Some(Usage::default()));
}

#[tokio::test]
async fn a_generated_reply_counts_its_prompt_and_generated_tokens() {
    let message = "Say hello in one short sentence.";
    let response = complete(&provider(true), &[Message::User(message.into())], &[]).await;
    assert!(!response.text.is_empty());
    let counted = usage(&response);
    assert!(counted.prompt_tokens > tokens(message), "{counted:?}");
    assert!(
        (1..=ANSWER_MAX_TOKENS as u64).contains(&counted.completion_tokens),
        "{counted:?}"
    );
}
