use super::*;
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
