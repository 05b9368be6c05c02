use super::*;
use pretty_assertions::assert_eq;

#[derive(Default)]
struct Heard {
    logs: Mutex<Vec<LogLine>>,
    progress: Mutex<Vec<Progress>>,
}

#[async_trait::async_trait]
impl CallListener for Heard {
    fn progress(&self, progress: &Progress) {
        self.progress.lock().push(progress.clone());
    }
    fn log(&self, line: &LogLine) {
        self.logs.lock().push(line.clone());
    }
    async fn ask(&self, _question: Question) -> Answer {
        std::future::pending().await
    }
}

#[test]
fn a_flood_of_log_lines_is_cut_and_counted() {
    let heard = Arc::new(Heard::default());
    let context = CallContext::new(heard.clone());
    for n in 0..MAX_LOG_LINES + 250 {
        context.log(LogLevel::Info, &format!("line {n}"));
    }
    context.log(LogLevel::Info, &"x".repeat(10 * MAX_MESSAGE_CHARS));
    context.end();
    context.log(LogLevel::Info, "after the end");
    let logs = heard.logs.lock();
    assert_eq!(logs.len(), MAX_LOG_LINES + 1);
    assert_eq!(
        logs[MAX_LOG_LINES - 1].message,
        format!("line {}", MAX_LOG_LINES - 1)
    );
    assert_eq!(
        logs[MAX_LOG_LINES].message,
        "251 more log lines were not shown (a call shows at most 1000)"
    );
}

#[test]
fn a_long_line_is_shortened() {
    let heard = Arc::new(Heard::default());
    let context = CallContext::new(heard.clone());
    context.log(LogLevel::Info, &"x".repeat(10 * MAX_MESSAGE_CHARS));
    assert!(heard.logs.lock()[0].message.len() < 2 * MAX_MESSAGE_CHARS);
}

#[test]
fn progress_in_a_burst_passes_its_first_and_its_completion() {
    let heard = Arc::new(Heard::default());
    let context = CallContext::new(heard.clone());
    for step in 0..=10_000 {
        context.progress(Progress {
            progress: f64::from(step),
            total: Some(10_000.0),
            message: None,
        });
    }
    let progress = heard.progress.lock();
    assert_eq!(progress.first().unwrap().progress, 0.0);
    assert_eq!(progress.last().unwrap().progress, 10_000.0);
    assert!(progress.len() < 10_001, "{} updates passed", progress.len());
}

#[test]
fn completions_past_the_first_are_throttled_too() {
    let heard = Arc::new(Heard::default());
    let context = CallContext::new(heard.clone());
    for _ in 0..10_000 {
        context.progress(Progress {
            progress: 1.0,
            total: Some(1.0),
            message: Some("x".repeat(100)),
        });
    }
    assert!(
        heard.progress.lock().len() < 100,
        "{} passed",
        heard.progress.lock().len()
    );
    context.progress(Progress {
        progress: f64::NAN,
        total: None,
        message: None,
    });
    assert!(heard.progress.lock().iter().all(|p| p.progress == 1.0));
}

#[tokio::test]
async fn an_oversized_question_is_a_cancel_and_says_why() {
    let heard = Arc::new(Heard::default());
    let context = CallContext::new(heard.clone());
    let choices: Vec<String> = (0..20_000).map(|n| format!("choice {n}")).collect();
    let question = Question {
        message: "Which?".into(),
        schema: serde_json::json!({"type": "object", "properties": {"pick": {"enum": choices}}}),
        approval: None,
    };
    assert_eq!(context.ask(question).await, Answer::cancel());
    assert!(
        heard.logs.lock()[0]
            .message
            .starts_with("a question was not asked: its schema of")
    );
}

#[tokio::test]
async fn a_question_in_flight_is_cancelled_when_the_call_ends() {
    let context = CallContext::new(Arc::new(Heard::default()));
    let asking = tokio::spawn({
        let context = context.clone();
        async move {
            context
                .ask(Question {
                    message: "Overwrite?".into(),
                    schema: serde_json::json!({"type": "object", "properties": {}}),
                    approval: None,
                })
                .await
        }
    });
    tokio::task::yield_now().await;
    drop(EndOnDrop(context.clone()));
    assert_eq!(asking.await.unwrap(), Answer::cancel());
    assert!(context.has_ended());
}

#[tokio::test]
async fn nobody_cancels_questions_and_fails_samples() {
    let context = CallContext::none();
    let question = Question {
        message: "?".into(),
        schema: serde_json::json!({}),
        approval: None,
    };
    assert_eq!(context.ask(question).await.action, AnswerAction::Cancel);
    let sample = SampleRequest {
        prompt: "hi".into(),
        system: None,
        max_tokens: None,
    };
    assert!(context.sample(sample).await.is_err());
}

/// Says yes to every approval it is asked for, and counts them.
#[derive(Default)]
struct YesToAll(Mutex<usize>);

#[async_trait::async_trait]
impl CallListener for YesToAll {
    async fn approve(&self, _request: ApprovalRequest) -> Approval {
        *self.0.lock() += 1;
        Approval::Approved
    }
}

// Issue 41: a front end with its own way of showing a call is held to
// showing each argument too.
#[tokio::test]
async fn a_call_with_too_many_arguments_to_show_is_refused_without_asking() {
    let person = Arc::new(YesToAll::default());
    let context = CallContext::new(person.clone());
    let arguments: crate::Params = (0..200)
        .map(|n| (format!("a{n}"), serde_json::json!(n)))
        .collect();
    let request = ApprovalRequest {
        tool: "t".into(),
        arguments,
        rule: "tools.t.approval".into(),
    };
    let Approval::Unanswered(why) = context.approve(request).await else {
        panic!("a call with 200 arguments was approved");
    };
    assert!(
        why.starts_with("its 200 arguments are too many to show"),
        "{why}"
    );
    assert_eq!(*person.0.lock(), 0, "the person was asked");
}

#[test]
fn levels_read_by_name() {
    assert_eq!(LogLevel::from_name("WARN"), Some(LogLevel::Warning));
    assert_eq!(LogLevel::from_name("debug"), Some(LogLevel::Debug));
    assert_eq!(LogLevel::from_name("loud"), None);
    assert!(LogLevel::Error > LogLevel::Info);
}

/// Answers every question after a while.
struct Slow(Duration);

#[async_trait::async_trait]
impl CallListener for Slow {
    async fn ask(&self, _question: Question) -> Answer {
        tokio::time::sleep(self.0).await;
        Answer::decline()
    }
}

#[tokio::test]
async fn time_spent_waiting_on_the_front_end_is_not_the_calls() {
    let context = CallContext::new(Arc::new(Slow(Duration::from_millis(300))));
    let question = Question {
        message: "?".into(),
        schema: serde_json::json!({}),
        approval: None,
    };
    let asked = context
        .within(Duration::from_millis(100), context.ask(question))
        .await;
    assert_eq!(asked, Some(Answer::decline()));
    assert!(context.time_waiting() >= Duration::from_millis(300));
    let working = context
        .within(
            Duration::from_millis(100),
            tokio::time::sleep(Duration::from_secs(60)),
        )
        .await;
    assert_eq!(working, None, "the call's own time ran out");
}

#[test]
fn what_a_tool_says_is_passed_on_without_its_secrets() {
    let secret = "context-secret-value-42";
    riverse_secrets::register([("CTX", secret)]).unwrap();
    let heard = Arc::new(Heard::default());
    let context = CallContext::new(heard.clone());
    context.log(LogLevel::Info, &format!("key {secret}"));
    context.progress(Progress {
        progress: 1.0,
        total: None,
        message: Some(format!("using {secret}")),
    });
    let mut question = Question {
        message: format!("send {secret}?"),
        schema: serde_json::json!({"description": secret}),
        approval: None,
    };
    question.scrub_secrets();
    assert_eq!(heard.logs.lock()[0].message, "key [secret:CTX]");
    assert_eq!(
        heard.progress.lock()[0].message.as_deref(),
        Some("using [secret:CTX]")
    );
    assert_eq!(question.message, "send [secret:CTX]?");
    assert_eq!(
        question.schema,
        serde_json::json!({"description": "[secret:CTX]"})
    );
}
