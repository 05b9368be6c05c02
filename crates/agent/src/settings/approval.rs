//! `tools.<name>.approval`: whether a call runs, asks first, or is refused.
//!
//! ```yaml
//! approval:
//!   default: ask
//!   auto: [{command: {prefix: "git status"}}, {command: {prefix: ls}}]
//!   deny: [{command: {regex: ".*rm\\s+-rf.*"}}]
//! ```
//!
//! A mode's name (`auto`, `ask`, `deny`) or a map of `default` and a list
//! of rules per mode. A rule maps parameters to patterns: a string (the
//! value equals it), `{prefix: …}`, `{regex: …}` (the whole value matches),
//! or a list of patterns (any matches). How a policy decides a call is
//! `riverse_tool::ApprovalPolicy`'s.

use riverse_tool::{ApprovalMode, ApprovalPolicy, ArgumentPattern};
use serde_json::{Map, Value};

/// What a fault names: the settings key at fault, and what is wrong there.
type Fault = (String, String);

/// The policy at `key` (`value`, from the settings document); `Err((key at
/// fault, why))`.
pub fn approval_at(key: &str, value: &Value) -> Result<ApprovalPolicy, Fault> {
    let map = match value {
        Value::String(name) => return Ok(ApprovalPolicy::mode(key, mode_named(key, name)?)),
        Value::Object(map) => map,
        other => {
            let why = format!("expected auto, ask, deny or a map of rules, got {other}");
            return Err(fault(key, why));
        }
    };
    let mut policy = ApprovalPolicy::mode(key, default_of(key, map)?);
    for (field, value) in map {
        if field == "default" {
            continue;
        }
        let field_key = format!("{key}.{field}");
        let Some(mode) = ApprovalMode::from_name(field) else {
            let why = "unknown key; an approval takes default, auto, ask and deny";
            return Err(fault(&field_key, why));
        };
        let Value::Array(rules) = value else {
            let why = format!("expected a list of rules ({{parameter: pattern}}), got {value}");
            return Err(fault(&field_key, why));
        };
        for (index, rule) in rules.iter().enumerate() {
            let when = rule_at(&format!("{field_key}[{index}]"), rule)?;
            policy = policy.with_rule(mode, when);
        }
    }
    Ok(policy)
}

/// `default`, `auto` when the map leaves it out.
fn default_of(key: &str, map: &Map<String, Value>) -> Result<ApprovalMode, Fault> {
    let Some(value) = map.get("default") else {
        return Ok(ApprovalMode::Auto);
    };
    let key = format!("{key}.default");
    let name = value
        .as_str()
        .ok_or_else(|| fault(&key, format!("expected auto, ask or deny, got {value}")))?;
    mode_named(&key, name)
}

fn mode_named(key: &str, name: &str) -> Result<ApprovalMode, Fault> {
    ApprovalMode::from_name(name.trim())
        .ok_or_else(|| fault(key, format!("expected auto, ask or deny, got {name:?}")))
}

/// One rule's parameters and their patterns.
fn rule_at(key: &str, value: &Value) -> Result<Vec<(String, ArgumentPattern)>, Fault> {
    let Value::Object(map) = value else {
        let why = format!("expected a map of parameters to patterns, got {value}");
        return Err(fault(key, why));
    };
    if map.is_empty() {
        let why = "a rule names at least one parameter (an empty rule would match every call)";
        return Err(fault(key, why));
    }
    map.iter()
        .map(|(param, pattern)| {
            let pattern = pattern_at(&format!("{key}.{param}"), pattern)?;
            Ok((param.clone(), pattern))
        })
        .collect()
}

fn pattern_at(key: &str, value: &Value) -> Result<ArgumentPattern, Fault> {
    const EXPECTED: &str = "expected a string, {prefix: ...}, {regex: ...} or a list of them";
    match value {
        Value::String(text) => Ok(ArgumentPattern::exact(text.clone())),
        Value::Number(_) | Value::Bool(_) => Ok(ArgumentPattern::exact(value.to_string())),
        Value::Array(items) => items
            .iter()
            .map(|item| pattern_at(key, item))
            .collect::<Result<_, _>>()
            .map(ArgumentPattern::any),
        Value::Object(map) if map.len() == 1 => {
            let (kind, text) = map.iter().next().expect("one entry");
            let Some(text) = text.as_str() else {
                let why = format!("expected a string, got {text}");
                return Err(fault(&format!("{key}.{kind}"), why));
            };
            match kind.as_str() {
                "prefix" if text.is_empty() => Err(fault(
                    &format!("{key}.prefix"),
                    "an empty prefix would match every value",
                )),
                "prefix" => Ok(ArgumentPattern::prefix(text)),
                "regex" => ArgumentPattern::regex(text)
                    .map_err(|err| fault(&format!("{key}.regex"), err.to_string())),
                _ => Err(fault(key, format!("unknown pattern {kind:?}; {EXPECTED}"))),
            }
        }
        other => Err(fault(key, format!("{EXPECTED}, got {other}"))),
    }
}

fn fault(key: &str, why: impl Into<String>) -> Fault {
    (key.to_owned(), why.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    const KEY: &str = "tools.shell_exec.approval";

    fn read(value: Value) -> ApprovalPolicy {
        approval_at(KEY, &value).unwrap()
    }

    fn when(param: &str, pattern: ArgumentPattern) -> Vec<(String, ArgumentPattern)> {
        vec![(param.to_owned(), pattern)]
    }

    #[test]
    fn a_mode_reads_as_a_policy_of_that_mode() {
        for mode in ApprovalMode::ALL {
            assert_eq!(read(json!(mode.as_str())), ApprovalPolicy::mode(KEY, mode));
        }
        assert_eq!(
            read(json!(" ask ")),
            ApprovalPolicy::mode(KEY, ApprovalMode::Ask)
        );
    }

    #[test]
    fn rules_read_in_order_with_their_patterns() {
        let policy = read(json!({
            "auto": [{"command": {"prefix": "git"}}, {"command": ["pwd", {"prefix": "ls"}]}],
            "deny": [{"command": {"regex": "git push.*"}}, {"force": true}],
            "default": "ask",
        }));
        let pwd_or_ls = ArgumentPattern::any(vec![
            ArgumentPattern::exact("pwd"),
            ArgumentPattern::prefix("ls"),
        ]);
        let expected = ApprovalPolicy::mode(KEY, ApprovalMode::Ask)
            .with_rule(
                ApprovalMode::Auto,
                when("command", ArgumentPattern::prefix("git")),
            )
            .with_rule(ApprovalMode::Auto, when("command", pwd_or_ls))
            .with_rule(
                ApprovalMode::Deny,
                when("command", ArgumentPattern::regex("git push.*").unwrap()),
            )
            .with_rule(
                ApprovalMode::Deny,
                when("force", ArgumentPattern::exact("true")),
            );
        assert_eq!(policy, expected);
        assert_eq!(policy.summary(), "ask, 4 rules");
        let git_push = json!({"command": "git push"});
        assert_eq!(
            policy.decide(git_push.as_object().unwrap()).to_string(),
            "tools.shell_exec.approval.deny[0] matched (deny)"
        );
    }

    #[test]
    fn a_bad_policy_names_the_key_at_fault() {
        let error = |value: Value| {
            let (key, why) = approval_at(KEY, &value).unwrap_err();
            format!("{key}: {why}")
        };
        assert_eq!(
            error(json!("sometimes")),
            "tools.shell_exec.approval: expected auto, ask or deny, got \"sometimes\""
        );
        assert_eq!(
            error(json!({"default": 1})),
            "tools.shell_exec.approval.default: expected auto, ask or deny, got 1"
        );
        assert_eq!(
            error(json!({"allow": []})),
            "tools.shell_exec.approval.allow: unknown key; an approval takes default, auto, ask and deny"
        );
        assert_eq!(
            error(json!({"auto": {"command": "ls"}})),
            "tools.shell_exec.approval.auto: expected a list of rules ({parameter: pattern}), got {\"command\":\"ls\"}"
        );
        assert_eq!(
            error(json!({"auto": [{}]})),
            "tools.shell_exec.approval.auto[0]: a rule names at least one parameter (an empty rule would match every call)"
        );
        assert_eq!(
            error(json!({"deny": [{"command": {"regex": "("}}]}))
                .lines()
                .next()
                .unwrap(),
            "tools.shell_exec.approval.deny[0].command.regex: found open group without closing ')'"
        );
        assert_eq!(
            error(json!({"auto": [{"command": {"glob": "*"}}]})),
            "tools.shell_exec.approval.auto[0].command: unknown pattern \"glob\"; expected a string, {prefix: ...}, {regex: ...} or a list of them"
        );
        assert_eq!(
            error(json!({"auto": [{"command": {"prefix": ""}}]})),
            "tools.shell_exec.approval.auto[0].command.prefix: an empty prefix would match every value"
        );
        assert_eq!(
            error(json!({"auto": [{"command": {"prefix": 3}}]})),
            "tools.shell_exec.approval.auto[0].command.prefix: expected a string, got 3"
        );
        assert_eq!(
            error(json!(3)),
            "tools.shell_exec.approval: expected auto, ask, deny or a map of rules, got 3"
        );
    }
}
