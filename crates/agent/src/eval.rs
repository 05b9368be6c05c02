//! `riverse eval`: how well the configured model routes to the tools.
//!
//! Cases come from every manifest's `examples` (each expects its own tool) and
//! from case files: `agent/tools/<tool>.eval.yaml` beside a tool, or files the
//! caller names. Each case is routed with [`Agent::route`] (the model's
//! decision only; no tool runs), and [`Report::of`] turns the outcomes into
//! per-tool counts, where the misses went, and the pairs of tools the model
//! confuses.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use futures_util::StreamExt;
use riverse_tool::{Params, Registry, coerce_params};
use serde::{Deserialize, Serialize};
use serde_json::{Number, Value};

use crate::{Agent, RoutedCall};

pub mod skills;

/// The name that stands for "no tool" in case files and reports.
pub const NO_TOOL: &str = "none";

/// One message and the call it should lead to.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Case {
    pub message: String,
    /// The tool expected, or [`NO_TOOL`].
    pub tool: String,
    /// Parameters the call must have (a subset of what it has), if given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params: Option<Params>,
    /// Where the case comes from: `example of weather`, or a file.
    pub origin: String,
}

#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    #[error("can't read {}: {cause}", path.display())]
    Unreadable { path: PathBuf, cause: String },
    #[error("{}: {message}", path.display())]
    Malformed { path: PathBuf, message: String },
}

/// A case file: a list of cases, or `cases:` holding one.
#[derive(Deserialize)]
#[serde(untagged)]
enum CaseFile {
    List(Vec<RawCase>),
    Wrapped { cases: Vec<RawCase> },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCase {
    message: String,
    tool: String,
    #[serde(default)]
    params: Option<Params>,
}

/// Every available tool's examples, as cases expecting that tool.
pub fn example_cases(registry: &Registry) -> Vec<Case> {
    registry
        .available_manifests()
        .flat_map(|manifest| {
            manifest.examples.iter().map(|example| Case {
                message: example.clone(),
                tool: manifest.name.clone(),
                params: None,
                origin: format!("example of {}", manifest.name),
            })
        })
        .collect()
}

/// The `*.eval.yaml` files directly in `tools_dir`, in name order.
pub fn case_files_beside_tools(tools_dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(tools_dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.ends_with(".eval.yaml") && !name.starts_with('_'))
        })
        .collect();
    files.sort();
    files
}

pub fn load_case_file(path: &Path) -> Result<Vec<Case>, EvalError> {
    let text = std::fs::read_to_string(path).map_err(|err| EvalError::Unreadable {
        path: path.to_owned(),
        cause: err.to_string(),
    })?;
    let malformed = |message: String| EvalError::Malformed {
        path: path.to_owned(),
        message,
    };
    let file: CaseFile = serde_yaml_ng::from_str(&text).map_err(|err| {
        malformed(format!(
            "expected a list of cases with message, tool and optional params ({err})"
        ))
    })?;
    let (CaseFile::List(cases) | CaseFile::Wrapped { cases }) = file;
    cases
        .into_iter()
        .enumerate()
        .map(|(index, case)| {
            if case.message.trim().is_empty() || case.tool.trim().is_empty() {
                return Err(malformed(format!(
                    "case {}: message and tool must not be empty",
                    index + 1
                )));
            }
            Ok(Case {
                message: case.message,
                tool: case.tool,
                params: case.params,
                origin: path.display().to_string(),
            })
        })
        .collect()
}

/// What the model did with one case.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Outcome {
    pub case: Case,
    /// Every call the model made, in order.
    pub calls: Vec<RoutedCall>,
    /// Set when the model could not be asked; the case counts as a miss.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub tool_right: bool,
    /// `None` when the case gives no parameters to check.
    pub params_right: Option<bool>,
    /// Whether the expected tool was among those the model was shown; `None`
    /// when every tool is shown, or when the case expects no tool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shown: Option<bool>,
}

impl Outcome {
    /// The tool the model went to: the first call's, or [`NO_TOOL`].
    pub fn chosen(&self) -> &str {
        self.calls
            .first()
            .map_or(NO_TOOL, |call| call.tool.as_str())
    }

    /// The call the case is judged by: the first to the expected tool, else
    /// the first call.
    pub fn judged_call(&self) -> Option<&RoutedCall> {
        self.calls
            .iter()
            .find(|call| call.tool == self.case.tool)
            .or(self.calls.first())
    }

    /// The tool and every expected parameter right.
    pub fn call_right(&self) -> bool {
        self.tool_right && self.params_right != Some(false)
    }
}

/// Routes every case, `jobs` at a time, calling `on_done` after each.
pub async fn run(
    agent: &Agent,
    cases: Vec<Case>,
    jobs: usize,
    on_done: &mut (dyn FnMut(&Outcome) + Send),
) -> Vec<Outcome> {
    let mut routed = futures_util::stream::iter(cases.into_iter().enumerate().map(
        |(index, case)| async move {
            let shown = agent.is_selecting().then(|| {
                agent
                    .tools_shown(&[], &case.message)
                    .iter()
                    .any(|manifest| manifest.name == case.tool)
            });
            let routed = agent.route(&case.message).await;
            let mut outcome = judge(&agent.registry(), case, routed);
            outcome.shown = shown.filter(|_| outcome.case.tool != NO_TOOL);
            (index, outcome)
        },
    ))
    .buffer_unordered(jobs.max(1));
    let mut outcomes = Vec::new();
    while let Some((index, outcome)) = routed.next().await {
        on_done(&outcome);
        outcomes.push((index, outcome));
    }
    outcomes.sort_by_key(|(index, _)| *index);
    outcomes.into_iter().map(|(_, outcome)| outcome).collect()
}

fn judge(
    registry: &Registry,
    case: Case,
    routed: Result<Vec<RoutedCall>, crate::TurnError>,
) -> Outcome {
    let (calls, error) = match routed {
        Ok(calls) => (calls, None),
        Err(err) => (Vec::new(), Some(err.to_string())),
    };
    let matching = calls.iter().find(|call| call.tool == case.tool);
    let tool_right = error.is_none()
        && if case.tool == NO_TOOL {
            calls.is_empty()
        } else {
            matching.is_some()
        };
    let params_right = case.params.as_ref().map(|expected| {
        matching.is_some_and(|call| params_match(registry, &case.tool, expected, &call.params))
    });
    Outcome {
        case,
        calls,
        error,
        tool_right,
        params_right,
        shown: None,
    }
}

/// Every expected parameter is in `got` with the same value, both converted
/// to the tool's declared types first.
fn params_match(registry: &Registry, tool: &str, expected: &Params, got: &Value) -> bool {
    let Value::Object(got) = got else {
        return false;
    };
    let convert = |params: &Params| match registry.get(tool) {
        Some(tool) => coerce_params(tool.manifest(), params.clone()).unwrap_or(params.clone()),
        None => params.clone(),
    };
    let (expected, got) = (convert(expected), convert(got));
    expected
        .iter()
        .all(|(key, want)| got.get(key).is_some_and(|value| same_value(want, value)))
}

/// Text compares without regard to case or surrounding spaces, numbers by
/// value (`300000` is `300000.0`), lists and objects member by member.
fn same_value(want: &Value, got: &Value) -> bool {
    match (want, got) {
        (Value::String(want), Value::String(got)) => {
            want.trim().to_lowercase() == got.trim().to_lowercase()
        }
        (Value::Number(want), Value::Number(got)) => same_number(want, got),
        (Value::Array(want), Value::Array(got)) => {
            want.len() == got.len() && want.iter().zip(got).all(|(w, g)| same_value(w, g))
        }
        (Value::Object(want), Value::Object(got)) => {
            want.len() == got.len()
                && want
                    .iter()
                    .all(|(key, w)| got.get(key).is_some_and(|g| same_value(w, g)))
        }
        (want, got) => want == got,
    }
}

/// `Number`s keep the text they were written in (`arbitrary_precision`), so
/// `300000` and `300000.0` are unequal as `Number`s. Two integers compare by
/// their digits, which stay exact past 64 bits; anything else as `f64`.
fn same_number(want: &Number, got: &Number) -> bool {
    let (want_text, got_text) = (want.to_string(), got.to_string());
    let integer = |text: &str| {
        let digits = text.strip_prefix('-').unwrap_or(text);
        !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
    };
    if integer(&want_text) && integer(&got_text) {
        return want_text == got_text;
    }
    want.as_f64().is_some_and(|want| got.as_f64() == Some(want))
}

/// The counts of one expected tool.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ToolReport {
    pub tool: String,
    pub cases: usize,
    pub tool_right: usize,
    /// Cases that give parameters to check, and how many of those were right.
    pub params_checked: usize,
    pub params_right: usize,
    /// Where the misses went (another tool, or [`NO_TOOL`]), with counts.
    pub misses: BTreeMap<String, usize>,
}

/// Two tools whose cases go to each other: their descriptions overlap.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Confusion {
    pub tools: [String; 2],
    /// Cases of the first that went to the second, and the other way.
    pub counts: [usize; 2],
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub tools: Vec<ToolReport>,
    pub cases: usize,
    pub tool_right: usize,
    /// Cases whose tool and every expected parameter were right.
    pub call_right: usize,
    /// `call_right / cases`; what `--min-accuracy` is compared with.
    pub accuracy: f64,
    /// Cases that expect no call ([`NO_TOOL`]), and how many got none:
    /// restraint, beside tool accuracy on the cases that expect a tool.
    pub no_call_cases: usize,
    pub no_call_right: usize,
    pub confusions: Vec<Confusion>,
    /// Available tools no case exercises.
    pub without_cases: Vec<String>,
    /// With more tools than a turn shows (`agent.max_tools_shown`): the share
    /// of cases whose expected tool was among those shown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selection_recall: Option<f64>,
    pub outcomes: Vec<Outcome>,
}

impl Report {
    pub fn of(outcomes: Vec<Outcome>, registry: &Registry) -> Report {
        let mut tools: BTreeMap<String, ToolReport> = BTreeMap::new();
        for outcome in &outcomes {
            let expected = &outcome.case.tool;
            let row = tools.entry(expected.clone()).or_insert_with(|| ToolReport {
                tool: expected.clone(),
                ..ToolReport::default()
            });
            row.cases += 1;
            if outcome.tool_right {
                row.tool_right += 1;
            } else {
                let went = match &outcome.error {
                    Some(_) => "error",
                    None => outcome.chosen(),
                };
                *row.misses.entry(went.to_owned()).or_default() += 1;
            }
            if let Some(right) = outcome.params_right {
                row.params_checked += 1;
                row.params_right += usize::from(right);
            }
        }
        let misses = |from: &str, to: &str| {
            tools
                .get(from)
                .and_then(|row| row.misses.get(to))
                .copied()
                .unwrap_or(0)
        };
        let names: Vec<&String> = tools.keys().filter(|name| *name != NO_TOOL).collect();
        let mut confusions = Vec::new();
        for (i, first) in names.iter().enumerate() {
            for second in &names[i + 1..] {
                let counts = [misses(first, second), misses(second, first)];
                if counts[0] > 0 && counts[1] > 0 {
                    confusions.push(Confusion {
                        tools: [(*first).clone(), (*second).clone()],
                        counts,
                    });
                }
            }
        }
        let exercised: BTreeSet<&str> = outcomes.iter().map(|o| o.case.tool.as_str()).collect();
        let without_cases = registry
            .available_manifests()
            .map(|manifest| manifest.name.clone())
            .filter(|name| !exercised.contains(name.as_str()))
            .collect();
        let cases = outcomes.len();
        let tool_right = outcomes.iter().filter(|o| o.tool_right).count();
        let call_right = outcomes.iter().filter(|o| o.call_right()).count();
        let no_call = outcomes.iter().filter(|o| o.case.tool == NO_TOOL);
        let (no_call_cases, no_call_right) = no_call.fold((0, 0), |(cases, right), outcome| {
            (cases + 1, right + usize::from(outcome.tool_right))
        });
        let selected: Vec<bool> = outcomes.iter().filter_map(|o| o.shown).collect();
        let selection_recall = (!selected.is_empty()).then(|| {
            selected.iter().filter(|shown| **shown).count() as f64 / selected.len() as f64
        });
        Report {
            tools: tools.into_values().collect(),
            cases,
            tool_right,
            call_right,
            accuracy: if cases == 0 {
                0.0
            } else {
                call_right as f64 / cases as f64
            },
            no_call_cases,
            no_call_right,
            confusions,
            without_cases,
            selection_recall,
            outcomes,
        }
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use riverse_tool::RegistryOptions;
    use serde_json::json;

    use super::*;

    fn case(message: &str, tool: &str, params: Option<Value>) -> Case {
        Case {
            message: message.into(),
            tool: tool.into(),
            params: params.map(|p| p.as_object().unwrap().clone()),
            origin: "test".into(),
        }
    }

    fn routed(tool: &str, params: Value) -> RoutedCall {
        RoutedCall {
            tool: tool.into(),
            params,
        }
    }

    #[test]
    fn outcomes_are_counted_per_tool_with_misses_and_confusions() {
        let registry = Registry::new(Vec::new(), RegistryOptions::default());
        let outcomes = vec![
            judge(
                &registry,
                case("a", "clock", None),
                Ok(vec![routed("clock", json!({}))]),
            ),
            judge(
                &registry,
                case("b", "clock", None),
                Ok(vec![routed("weather", json!({}))]),
            ),
            judge(
                &registry,
                case("c", "weather", Some(json!({"city": "Tokyo"}))),
                Ok(vec![routed("weather", json!({"city": " tokyo"}))]),
            ),
            judge(
                &registry,
                case("d", "weather", None),
                Ok(vec![routed("clock", json!({}))]),
            ),
            judge(&registry, case("e", NO_TOOL, None), Ok(vec![])),
            judge(
                &registry,
                case("f", NO_TOOL, None),
                Ok(vec![routed("clock", json!({}))]),
            ),
        ];
        let report = Report::of(outcomes, &registry);
        assert_eq!(
            (report.cases, report.tool_right, report.call_right),
            (6, 3, 3)
        );
        assert_eq!(report.accuracy, 0.5);
        assert_eq!((report.no_call_cases, report.no_call_right), (2, 1));
        assert_eq!(
            report.tools,
            vec![
                ToolReport {
                    tool: "clock".into(),
                    cases: 2,
                    tool_right: 1,
                    misses: BTreeMap::from([("weather".into(), 1)]),
                    ..ToolReport::default()
                },
                ToolReport {
                    tool: NO_TOOL.into(),
                    cases: 2,
                    tool_right: 1,
                    misses: BTreeMap::from([("clock".into(), 1)]),
                    ..ToolReport::default()
                },
                ToolReport {
                    tool: "weather".into(),
                    cases: 2,
                    tool_right: 1,
                    params_checked: 1,
                    params_right: 1,
                    misses: BTreeMap::from([("clock".into(), 1)]),
                },
            ]
        );
        assert_eq!(
            report.confusions,
            vec![Confusion {
                tools: ["clock".into(), "weather".into()],
                counts: [1, 1]
            }]
        );
    }

    #[test]
    fn wrong_or_missing_parameters_fail_the_call_not_the_tool() {
        let registry = Registry::new(Vec::new(), RegistryOptions::default());
        let expected = Some(json!({"city": "Tokyo"}));
        let wrong = judge(
            &registry,
            case("a", "weather", expected.clone()),
            Ok(vec![routed("weather", json!({"city": "Osaka"}))]),
        );
        let missing = judge(
            &registry,
            case("a", "weather", expected),
            Ok(vec![routed("weather", json!("not an object"))]),
        );
        for outcome in [wrong, missing] {
            assert!(outcome.tool_right && !outcome.call_right(), "{outcome:?}");
        }
    }

    #[test]
    fn numbers_compare_by_value_not_by_how_they_are_written() {
        let registry = Registry::new(Vec::new(), RegistryOptions::default());
        let expected = Some(json!({"value": 300000, "to": [1.5, "Mi"]}));
        let outcome = judge(
            &registry,
            case("a", "convert_units", expected),
            Ok(vec![routed(
                "convert_units",
                json!({"value": 300000.0, "to": [1.50, "mi"]}),
            )]),
        );
        assert!(outcome.call_right(), "{outcome:?}");
        let big: Value = serde_json::from_str("123456789012345678901234567890").unwrap();
        let next: Value = serde_json::from_str("123456789012345678901234567891").unwrap();
        assert!(same_value(&big, &big.clone()));
        assert!(!same_value(&big, &next), "integers stay exact past 64 bits");
        assert!(!same_value(&json!(300000), &json!(300000.5)));
        assert!(!same_value(&json!(300000), &json!("300000")));
    }

    #[test]
    fn case_files_are_lists_or_hold_one_under_cases() {
        let dir = tempfile::tempdir().unwrap();
        let list = dir.path().join("weather.eval.yaml");
        std::fs::write(
            &list,
            "- {message: Rain in Oslo?, tool: weather, params: {city: Oslo}}\n- {message: hi, tool: none}\n",
        )
        .unwrap();
        let cases = load_case_file(&list).unwrap();
        assert_eq!(cases.len(), 2);
        assert_eq!(
            cases[0].params,
            Some(json!({"city": "Oslo"}).as_object().unwrap().clone())
        );
        let wrapped = dir.path().join("more.yaml");
        std::fs::write(
            &wrapped,
            "cases:\n  - {message: What time is it?, tool: clock}\n",
        )
        .unwrap();
        assert_eq!(load_case_file(&wrapped).unwrap()[0].tool, "clock");
        let bad = dir.path().join("bad.eval.yaml");
        std::fs::write(&bad, "- {message: hi, tool: weather, city: Oslo}\n").unwrap();
        let err = load_case_file(&bad).unwrap_err().to_string();
        assert!(
            err.starts_with(&format!("{}: expected a list of cases", bad.display())),
            "{err}"
        );
        assert_eq!(case_files_beside_tools(dir.path()), vec![bad, list]);
    }
}
