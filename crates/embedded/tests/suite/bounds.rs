//! Issue 21, H7: the model's work is bounded. A job whose caller goes away
//! stops at its next forward pass, a provider runs one job at a time
//! counting a cancelled one until it has stopped, and a message or result of
//! a megabyte costs what a short one does.

use std::time::Duration;

use riverse_embedded::tuning::{ANSWER_MAX_TOKENS, MODEL_JOBS, ROUTED_MESSAGE_CHARS};
use riverse_embedded::{EmbeddedOptions, EmbeddedProvider, Error, ModelJob};
use riverse_llm::{ChatRequest, Message, Provider, ToolCall};
use riverse_test_support::eventually_async;

use super::{model, template_tools};

/// A prompt the model answers at length: far more tokens than any test waits for.
const COUNTING: &str = "<|im_start|>user\nCount from 1 to 500, one number per line.<|im_end|>\n<|im_start|>assistant\n";

fn provider_of_the_test_model() -> EmbeddedProvider {
    EmbeddedProvider::new(EmbeddedOptions {
        model_path: Some(model().path().to_path_buf()),
        prompt_cache_dir: None,
        generated_replies: true,
        ..EmbeddedOptions::default()
    })
}

/// About a megabyte of text after `start`.
fn megabyte_after(start: &str) -> String {
    format!("{start} {}", "lorem ipsum dolor sit amet ".repeat(40_000))
}

/// Waits, a bounded number of times, until `provider` runs no job.
async fn until_idle(provider: &EmbeddedProvider) {
    eventually_async(
        Duration::from_secs(120),
        "the provider to run no job",
        || match provider.running_jobs() {
            0 => Ok(()),
            running => Err(format!("{running} running")),
        },
    )
    .await;
}

#[test]
fn a_cancelled_generation_stops_before_its_next_step() {
    let job = ModelJob::new();
    let mut pieces = 0;
    let outcome = job.run(|| {
        model().complete(COUNTING, 4000, &mut |_| {
            pieces += 1;
            if pieces == 3 {
                job.cancel();
            }
        })
    });
    assert!(matches!(outcome, Err(Error::Cancelled)), "{outcome:?}");
    assert_eq!(pieces, 3, "no piece after the cancel");
}

#[test]
fn work_cancelled_before_it_starts_runs_no_forward_pass() {
    let job = ModelJob::new();
    job.cancel();
    let tools = template_tools();
    let routed = job.run(|| model().route("What's the weather in Oslo?", &tools));
    assert!(matches!(routed, Err(Error::Cancelled)), "{routed:?}");
    let answered = job.run(|| {
        model().clone().with_generated_replies(true).answer(
            &[Message::User("hi".into())],
            &tools,
            &mut |_| {},
        )
    });
    assert!(matches!(answered, Err(Error::Cancelled)), "{answered:?}");
    assert_eq!(job.tokens(), 0);
}

#[test]
fn a_megabyte_message_is_routed_as_its_start() {
    let tools = template_tools();
    let question = "What time is it in Tokyo?";
    // The prompts' fixed parts, prefilled once, are left out of the counts.
    model().route(question, &tools).unwrap();
    let routed_tokens = |message: &str| {
        let job = ModelJob::new();
        job.run(|| model().route(message, &tools)).unwrap();
        job.tokens()
    };
    let head: String = megabyte_after(question)
        .chars()
        .take(ROUTED_MESSAGE_CHARS)
        .collect();
    let normal = routed_tokens(&head);
    let huge = megabyte_after(question);
    assert!(huge.len() >= 1 << 20, "{} bytes", huge.len());
    let read = routed_tokens(&huge);
    assert!(
        read <= 2 * normal,
        "a megabyte took {read} tokens of work, a {ROUTED_MESSAGE_CHARS}-character message {normal}"
    );
}

#[test]
fn a_megabyte_question_and_result_are_answered_from_a_bounded_prompt() {
    let conversation = [
        Message::User(megabyte_after("What time is it in Tokyo?")),
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
            content: megabyte_after("Monday 2025-01-06 09:30:00 (Asia/Tokyo, UTC+0900)"),
            failed: false,
        },
    ];
    let job = ModelJob::new();
    let answer = job
        .run(|| {
            model()
                .clone()
                .with_generated_replies(true)
                .answer(&conversation, &[], &mut |_| {})
        })
        .expect("the prompt fits the context");
    assert!(!answer.is_empty());
    // Tokens are at most bytes, and the prompt at most 7,000 bytes (see
    // `tuning::HISTORY_BYTES`); generation adds its own.
    assert!(
        job.tokens() <= 7_000 + ANSWER_MAX_TOKENS,
        "{} tokens",
        job.tokens()
    );
}

fn ask(text: &str) -> Vec<Message> {
    vec![Message::User(text.into())]
}

/// A dropped call (a client gone) stops its job mid-answer, and the next call
/// starts only once that job's work has stopped.
#[tokio::test]
async fn a_dropped_call_stops_its_work_before_the_next_one_starts() {
    let provider = provider_of_the_test_model();
    // The model is loaded first, so the only job below is the answer's.
    let hello = ask("Say hello in one short sentence.");
    let warm = ChatRequest {
        messages: &hello,
        tools: &[],
        temperature: None,
        max_tokens: None,
        tool_choice: &riverse_llm::ToolChoice::Auto,
        parallel_tool_calls: None,
    };
    provider.complete(warm, None).await.unwrap();
    let counting = ask("Count from 1 to 500, one number per line.");
    let request = ChatRequest {
        messages: &counting,
        tools: &[],
        temperature: None,
        max_tokens: None,
        tool_choice: &riverse_llm::ToolChoice::Auto,
        parallel_tool_calls: None,
    };
    // A generated reply is given whole once checked, so the call is dropped
    // as soon as its job runs: mid-answer, far from its last token.
    // Boxed, so that dropping it drops the call itself.
    let mut answering = Box::pin(provider.complete(request, None));
    let mut polls = 0;
    loop {
        tokio::select! {
            biased;
            answered = &mut answering => {
                panic!("answered before the test saw its job run: {answered:?}");
            }
            _ = tokio::time::sleep(Duration::from_millis(5)) => {}
        }
        if provider.running_jobs() == 1 {
            break;
        }
        polls += 1;
        assert!(polls < 20_000, "the answer's job never ran");
    }
    drop(answering);
    // The call is dropped now, its job mid-generation. A job is counted as
    // cancelled before it gives its slot back, and the provider runs one job
    // at a time, so the next call's reply (given once its job has run) can
    // only come with the dropped job counted as stopped.
    let mut seen_by_the_next = None;
    let mut on_text = |_: &str| {
        seen_by_the_next.get_or_insert((provider.cancelled_jobs(), provider.running_jobs()));
    };
    let next = ChatRequest {
        messages: &ask("Say hello in one short sentence."),
        tools: &[],
        temperature: None,
        max_tokens: None,
        tool_choice: &riverse_llm::ToolChoice::Auto,
        parallel_tool_calls: None,
    };
    provider.complete(next, Some(&mut on_text)).await.unwrap();
    let (cancelled, running) = seen_by_the_next.expect("the next call replied");
    assert_eq!(cancelled, 1, "the dropped job had stopped");
    assert!(running <= MODEL_JOBS, "{running} jobs ran at once");
    until_idle(&provider).await;
}

/// A call that runs out of time (a turn's `turn_timeout`) on a megabyte
/// message stops its routing, and the provider is left idle.
#[tokio::test]
async fn a_timed_out_call_on_a_megabyte_message_stops_its_work() {
    let provider = provider_of_the_test_model();
    let tools = template_tools();
    let warm = ask("What time is it in Tokyo?");
    let request = ChatRequest {
        messages: &warm,
        tools: &tools,
        temperature: None,
        max_tokens: None,
        tool_choice: &riverse_llm::ToolChoice::Auto,
        parallel_tool_calls: None,
    };
    provider.complete(request, None).await.unwrap();
    assert_eq!(provider.cancelled_jobs(), 0);

    let huge = ask(&megabyte_after("What's the weather in Oslo?"));
    let request = ChatRequest {
        messages: &huge,
        tools: &tools,
        temperature: None,
        max_tokens: None,
        tool_choice: &riverse_llm::ToolChoice::Auto,
        parallel_tool_calls: None,
    };
    let timed_out =
        tokio::time::timeout(Duration::from_millis(1), provider.complete(request, None)).await;
    assert!(
        timed_out.is_err(),
        "routing takes longer than a millisecond"
    );
    until_idle(&provider).await;
    assert_eq!(provider.cancelled_jobs(), 1);
}
