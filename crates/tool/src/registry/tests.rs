use super::*;
use crate::{
    Approval, ApprovalMode, ApprovalRecord, ApprovalRequest, ArgumentPattern, CallContext,
    Decision, FailureKind, Params, ToolResult, ToolSource,
};
use pretty_assertions::assert_eq;
use serde_json::json;

/// A tool compiled into the test: echoes its parameters.
struct Echo {
    manifest: ToolManifest,
    source: ToolSource,
}

#[async_trait::async_trait]
impl Tool for Echo {
    fn manifest(&self) -> &ToolManifest {
        &self.manifest
    }
    fn source(&self) -> &ToolSource {
        &self.source
    }
    async fn call(&self, params: Params, timeout: Duration, _context: &CallContext) -> ToolResult {
        let text = params
            .get("text")
            .and_then(|v| v.as_str())
            .unwrap_or_default();
        ToolResult::ok(format!(
            "{} {:?} {}",
            text,
            params.get("n"),
            timeout.as_secs()
        ))
    }
}

fn echo(name: &str, file: &str) -> Found {
    found(name, file, true)
}

fn found(name: &str, file: &str, available: bool) -> Found {
    let manifest = serde_json::from_value(json!({
        "name": name, "description": "echo",
        "parameters": {"text": "what to say", "n": "a count"},
        "parameter_types": {"n": "int"}
    }))
    .unwrap();
    Found::Tool {
        tool: Arc::new(Echo {
            manifest,
            source: ToolSource::Python { file: file.into() },
        }),
        available,
    }
}

fn statuses(registry: &Registry) -> Vec<(Option<&str>, Status)> {
    registry
        .entries()
        .iter()
        .map(|e| (e.name(), e.status()))
        .collect()
}

#[test]
fn the_first_available_tool_of_a_name_wins() {
    let registry = Registry::new(
        vec![echo("same", "a.py"), echo("same", "b.py")],
        RegistryOptions::default(),
    );
    assert_eq!(
        statuses(&registry),
        vec![
            (Some("same"), Status::Available),
            (Some("same"), Status::Conflict)
        ]
    );
    assert_eq!(
        registry.entries()[1].error(),
        Some("name \"same\" is already taken by a.py")
    );
}

#[test]
fn an_unavailable_tool_does_not_claim_its_name() {
    let registry = Registry::new(
        vec![found("same", "a.py", false), echo("same", "b.py")],
        RegistryOptions::default(),
    );
    assert_eq!(
        statuses(&registry),
        vec![
            (Some("same"), Status::Unavailable),
            (Some("same"), Status::Available)
        ]
    );
}

#[test]
fn invalid_names_and_disabled_tools_are_reported_not_registered() {
    let mut options = RegistryOptions::default();
    options.policies.insert(
        "off".into(),
        ToolPolicy {
            disabled: Some("switched off by the caller".into()),
            timeout: None,
            ..ToolPolicy::default()
        },
    );
    let registry = Registry::new(vec![echo("bad name", "a.py"), echo("off", "b.py")], options);
    assert_eq!(
        statuses(&registry),
        vec![
            (Some("bad name"), Status::Error),
            (Some("off"), Status::Unavailable)
        ]
    );
    assert_eq!(
        registry.entries()[1].error(),
        Some("switched off by the caller")
    );
    assert!(registry.get("off").is_none());
}

#[tokio::test]
async fn calls_coerce_parameters_apply_the_deadline_and_cap_output() {
    let mut options = RegistryOptions {
        limits: CallLimits {
            max_output_bytes: 8,
            ..CallLimits::default()
        },
        ..RegistryOptions::default()
    };
    options.policies.insert(
        "echo".into(),
        ToolPolicy {
            disabled: None,
            timeout: Some(Duration::from_secs(5)),
            ..ToolPolicy::default()
        },
    );
    let registry = Registry::new(vec![echo("echo", "a.py")], options);
    let params = json!({"text": "hi", "n": "3"}).as_object().unwrap().clone();
    let result = registry.call("echo", params).await.unwrap();
    assert_eq!(
        result.data,
        "hi Some(\n[output truncated: showing the first 8 of 20 bytes]"
    );
    assert_eq!(registry.timeout("echo"), Duration::from_secs(5));
    assert_eq!(registry.timeout("other"), Duration::from_secs(30));

    let bad = json!({"n": "x"}).as_object().unwrap().clone();
    let result = registry.call("echo", bad).await.unwrap();
    assert_eq!(result.failure_kind(), Some(FailureKind::BadParameters));
    insta::assert_snapshot!(result.error, @r#"parameter "n": expected an integer, got "x""#);
}

#[tokio::test]
async fn unknown_and_unavailable_tools_are_call_errors() {
    let registry = Registry::new(
        vec![found("sleepy", "a.py", false)],
        RegistryOptions::default(),
    );
    assert_eq!(
        registry.call("nope", Params::new()).await,
        Err(CallError::UnknownTool("nope".into()))
    );
    assert_eq!(
        registry.call("sleepy", Params::new()).await,
        Err(CallError::Unavailable {
            name: "sleepy".into(),
            reason: "is_available() returned False".into()
        })
    );
}

/// A front end whose person gives one answer to every approval, and counts
/// what it was asked.
struct Person {
    answer: Approval,
    asked: parking_lot::Mutex<Vec<ApprovalRequest>>,
}

#[async_trait::async_trait]
impl crate::CallListener for Person {
    async fn approve(&self, request: ApprovalRequest) -> Approval {
        self.asked.lock().push(request);
        self.answer.clone()
    }
}

const ECHO_APPROVAL: &str = "tools.echo.approval";

fn guarded(approval: ApprovalPolicy) -> Registry {
    let mut options = RegistryOptions::default();
    options.policies.insert(
        "echo".into(),
        ToolPolicy {
            approval,
            ..ToolPolicy::default()
        },
    );
    Registry::new(vec![echo("echo", "a.py")], options)
}

async fn call_answered(registry: &Registry, text: &str, answer: Approval) -> (ToolResult, usize) {
    let person = Arc::new(Person {
        answer,
        asked: parking_lot::Mutex::new(Vec::new()),
    });
    let context = CallContext::new(person.clone());
    let params = json!({"text": text}).as_object().unwrap().clone();
    let result = registry.call_with("echo", params, &context).await.unwrap();
    let asked = person.asked.lock().len();
    (result, asked)
}

#[tokio::test]
async fn a_call_that_asks_runs_on_a_yes_and_is_refused_on_a_no() {
    let registry = guarded(ApprovalPolicy::mode(ECHO_APPROVAL, ApprovalMode::Ask));
    let (approved, asked) = call_answered(&registry, "hi", Approval::Approved).await;
    assert_eq!((approved.success, asked), (true, 1));
    assert_eq!(
        approved.approval,
        Some(ApprovalRecord {
            decision: Decision::Approved,
            rule: "tools.echo.approval".into()
        })
    );
    let (declined, _) = call_answered(&registry, "hi", Approval::Declined).await;
    assert_eq!(declined.failure_kind(), Some(FailureKind::Denied));
    assert_eq!(declined.error, "echo was not run: the user declined it");
    assert_eq!(declined.approval.unwrap().decision, Decision::Declined);
    let (unanswered, _) = call_answered(
        &registry,
        "hi",
        Approval::Unanswered("nobody is there".into()),
    )
    .await;
    assert_eq!(
        unanswered.error,
        "echo was not run: it needs approval (tools.echo.approval is ask) and nobody is there"
    );
    // A call that nobody watches has nobody to ask.
    let params = json!({"text": "hi"}).as_object().unwrap().clone();
    let unwatched = registry.call("echo", params).await.unwrap();
    assert_eq!(unwatched.approval.unwrap().decision, Decision::Unanswered);
}

#[tokio::test]
async fn rules_let_some_calls_run_refuse_others_and_ask_for_the_rest() {
    let text = |pattern| vec![("text".to_owned(), pattern)];
    let registry = guarded(
        ApprovalPolicy::mode(ECHO_APPROVAL, ApprovalMode::Ask)
            .with_rule(ApprovalMode::Auto, text(ArgumentPattern::prefix("hello")))
            .with_rule(
                ApprovalMode::Deny,
                text(ArgumentPattern::regex(".*secret.*").unwrap()),
            ),
    );
    let (allowed, asked) = call_answered(&registry, "hello there", Approval::Declined).await;
    assert_eq!((allowed.success, asked), (true, 0));
    assert_eq!(
        allowed.approval,
        Some(ApprovalRecord {
            decision: Decision::Allowed,
            rule: "tools.echo.approval.auto[0]".into()
        })
    );
    let (denied, asked) = call_answered(&registry, "hello secret", Approval::Approved).await;
    assert_eq!((denied.success, asked), (false, 0));
    assert_eq!(
        denied.error,
        "echo was not run: tools.echo.approval.deny[0] matched (deny)"
    );
    let (asked_first, asked) = call_answered(&registry, "bye", Approval::Approved).await;
    assert_eq!((asked_first.success, asked), (true, 1));
}

#[tokio::test]
async fn a_tool_without_a_policy_runs_and_records_nothing() {
    let registry = guarded(ApprovalPolicy::mode(ECHO_APPROVAL, ApprovalMode::Auto));
    let (result, asked) = call_answered(&registry, "hi", Approval::Declined).await;
    assert_eq!((result.success, asked, result.approval), (true, 0, None));
}
