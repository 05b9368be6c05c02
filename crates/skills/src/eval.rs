//! Which skill a message gets, scored: per skill, how often a skill chosen
//! was the one expected (precision) and how often an expected skill was
//! chosen (recall), and where the others went.
//!
//! Cases come from each skill's `examples` (each expects its skill) and from
//! case files (`agent/skills/*.eval.yaml`: a list of `{message, skill}`,
//! `skill: none` for a message that should apply none). The choosing is the
//! caller's (keywords, `/NAME`, or the LLM); [`SkillReport::of`] only counts.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::load::CASE_FILE_SUFFIX;
use crate::set::SkillSet;

/// The name that stands for "no skill" in case files and reports.
pub const NO_SKILL: &str = "none";

/// One message and the skill it should apply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkillCase {
    pub message: String,
    /// The skill expected, or [`NO_SKILL`].
    pub skill: String,
    /// `example of explain_code`, or the case file.
    pub origin: String,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CaseFileError {
    #[error("can't read {}: {cause}", path.display())]
    Unreadable { path: PathBuf, cause: String },
    #[error("{}: {message}", path.display())]
    Malformed { path: PathBuf, message: String },
}

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
    skill: String,
}

/// Every enabled skill's examples, as cases expecting that skill.
pub fn example_cases(set: &SkillSet) -> Vec<SkillCase> {
    set.skills()
        .flat_map(|skill| {
            skill.examples.iter().map(|example| SkillCase {
                message: example.clone(),
                skill: skill.name.clone(),
                origin: format!("example of {}", skill.name),
            })
        })
        .collect()
}

/// The `*.eval.yaml` files directly in `dir`, in name order.
pub fn case_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| {
                    name.ends_with(CASE_FILE_SUFFIX) && !name.starts_with(['_', '.'])
                })
        })
        .collect();
    files.sort();
    files
}

pub fn load_case_file(path: &Path) -> Result<Vec<SkillCase>, CaseFileError> {
    let text = std::fs::read_to_string(path).map_err(|err| CaseFileError::Unreadable {
        path: path.to_owned(),
        cause: err.to_string(),
    })?;
    let malformed = |message: String| CaseFileError::Malformed {
        path: path.to_owned(),
        message,
    };
    let file: CaseFile = serde_yaml_ng::from_str(&text).map_err(|err| {
        malformed(format!(
            "expected a list of cases with message and skill ({err})"
        ))
    })?;
    let (CaseFile::List(cases) | CaseFile::Wrapped { cases }) = file;
    cases
        .into_iter()
        .enumerate()
        .map(|(index, case)| {
            if case.message.trim().is_empty() || case.skill.trim().is_empty() {
                return Err(malformed(format!(
                    "case {}: message and skill must not be empty",
                    index + 1
                )));
            }
            Ok(SkillCase {
                message: case.message,
                skill: case.skill.trim().to_owned(),
                origin: path.display().to_string(),
            })
        })
        .collect()
}

/// What was chosen for one case.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkillOutcome {
    pub case: SkillCase,
    /// Every skill chosen; none is [`NO_SKILL`].
    pub chosen: Vec<String>,
    /// The expected skill was chosen (for [`NO_SKILL`]: nothing was).
    pub right: bool,
}

/// Each case's outcome under `choose`, which names the skills a message
/// applies.
pub fn choose_each(
    cases: Vec<SkillCase>,
    mut choose: impl FnMut(&str) -> Vec<String>,
) -> Vec<SkillOutcome> {
    cases
        .into_iter()
        .map(|case| {
            let chosen = choose(&case.message);
            SkillOutcome::new(case, chosen)
        })
        .collect()
}

impl SkillOutcome {
    pub fn new(case: SkillCase, chosen: Vec<String>) -> SkillOutcome {
        let right = match case.skill.as_str() {
            NO_SKILL => chosen.is_empty(),
            expected => chosen.iter().any(|name| name == expected),
        };
        SkillOutcome {
            case,
            chosen,
            right,
        }
    }
}

/// The counts of one skill.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SkillScore {
    pub skill: String,
    /// Cases that expect it.
    pub cases: usize,
    /// Cases it was chosen for.
    pub chosen: usize,
    /// Cases that expect it and chose it.
    pub right: usize,
    /// `right / chosen`; `None` when it was never chosen.
    pub precision: Option<f64>,
    /// `right / cases`; `None` when no case expects it.
    pub recall: Option<f64>,
}

/// Cases expecting one skill that went to another (or to none).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Confusion {
    pub expected: String,
    pub chosen: String,
    pub count: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SkillReport {
    /// By name; [`NO_SKILL`] is a row of its own when cases expect it.
    pub skills: Vec<SkillScore>,
    pub cases: usize,
    pub right: usize,
    /// `right / cases`.
    pub accuracy: f64,
    /// Most frequent first.
    pub confusions: Vec<Confusion>,
    /// Skills (of `names`) that no case expects.
    pub without_cases: Vec<String>,
    pub outcomes: Vec<SkillOutcome>,
}

impl SkillReport {
    /// The report of `outcomes`; `names` are the skills that could be chosen.
    pub fn of(outcomes: Vec<SkillOutcome>, names: &[String]) -> SkillReport {
        let mut scores: BTreeMap<String, SkillScore> = BTreeMap::new();
        let mut confusions: BTreeMap<(String, String), usize> = BTreeMap::new();
        for outcome in &outcomes {
            let expected = outcome.case.skill.as_str();
            let row = score_of(&mut scores, expected);
            row.cases += 1;
            row.right += usize::from(outcome.right);
            let chosen: Vec<&str> = match outcome.chosen.is_empty() {
                true => vec![NO_SKILL],
                false => outcome.chosen.iter().map(String::as_str).collect(),
            };
            for name in chosen {
                score_of(&mut scores, name).chosen += 1;
                if name != expected {
                    *confusions
                        .entry((expected.to_owned(), name.to_owned()))
                        .or_default() += 1;
                }
            }
        }
        let skills: Vec<SkillScore> = scores
            .into_values()
            .map(|mut row| {
                row.precision = ratio(row.right, row.chosen);
                row.recall = ratio(row.right, row.cases);
                row
            })
            .collect();
        let mut confusions: Vec<Confusion> = confusions
            .into_iter()
            .map(|((expected, chosen), count)| Confusion {
                expected,
                chosen,
                count,
            })
            .collect();
        confusions.sort_by_key(|confusion| std::cmp::Reverse(confusion.count));
        let without_cases = names
            .iter()
            .filter(|name| !outcomes.iter().any(|o| &o.case.skill == *name))
            .cloned()
            .collect();
        let cases = outcomes.len();
        let right = outcomes.iter().filter(|o| o.right).count();
        SkillReport {
            skills,
            cases,
            right,
            accuracy: ratio(right, cases).unwrap_or(0.0),
            confusions,
            without_cases,
            outcomes,
        }
    }
}

fn score_of<'a>(scores: &'a mut BTreeMap<String, SkillScore>, name: &str) -> &'a mut SkillScore {
    scores.entry(name.to_owned()).or_insert_with(|| SkillScore {
        skill: name.to_owned(),
        ..SkillScore::default()
    })
}

fn ratio(part: usize, whole: usize) -> Option<f64> {
    (whole > 0).then(|| part as f64 / whole as f64)
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn case(message: &str, skill: &str) -> SkillCase {
        SkillCase {
            message: message.into(),
            skill: skill.into(),
            origin: "test".into(),
        }
    }

    /// A chooser that reads the skill off the message: `a`, `b`, `a+b`.
    fn chooser(message: &str) -> Vec<String> {
        message
            .split('+')
            .filter(|name| !name.is_empty() && *name != "x")
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn precision_recall_and_confusions_are_counted_per_skill() {
        let cases = vec![
            case("a", "a"),
            case("a", "a"),
            case("b", "a"),
            case("b", "b"),
            case("a+b", "b"),
            case("x", "b"),
            case("x", NO_SKILL),
            case("a", NO_SKILL),
        ];
        let names = vec!["a".to_owned(), "b".to_owned(), "c".to_owned()];
        let report = SkillReport::of(choose_each(cases, chooser), &names);
        let row = |name: &str| {
            report
                .skills
                .iter()
                .find(|row| row.skill == name)
                .unwrap()
                .clone()
        };
        // a: chosen for 4 cases (its own twice, beside b once, on a none once), right twice.
        assert_eq!(
            row("a"),
            SkillScore {
                skill: "a".into(),
                cases: 3,
                chosen: 4,
                right: 2,
                precision: Some(0.5),
                recall: Some(2.0 / 3.0),
            }
        );
        assert_eq!(row("b").precision, Some(2.0 / 3.0));
        assert_eq!(row("b").recall, Some(2.0 / 3.0));
        assert_eq!(row(NO_SKILL).cases, 2);
        assert_eq!(row(NO_SKILL).right, 1);
        assert_eq!(row(NO_SKILL).chosen, 2);
        assert_eq!(report.cases, 8);
        assert_eq!(report.right, 5);
        assert_eq!(report.without_cases, ["c"]);
        assert_eq!(
            report.confusions,
            vec![
                Confusion {
                    expected: "a".into(),
                    chosen: "b".into(),
                    count: 1
                },
                Confusion {
                    expected: "b".into(),
                    chosen: "a".into(),
                    count: 1
                },
                Confusion {
                    expected: "b".into(),
                    chosen: NO_SKILL.into(),
                    count: 1
                },
                Confusion {
                    expected: NO_SKILL.into(),
                    chosen: "a".into(),
                    count: 1
                },
            ]
        );
    }

    #[test]
    fn a_skill_never_chosen_has_no_precision() {
        let report = SkillReport::of(choose_each(vec![case("x", "a")], chooser), &[]);
        assert_eq!(report.skills[0].precision, None);
        assert_eq!(report.skills[0].recall, Some(0.0));
        assert_eq!(report.accuracy, 0.0);
    }

    #[test]
    fn case_files_hold_messages_and_skills() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("explain.eval.yaml");
        std::fs::write(&path, "- {message: \"explain this code\", skill: explain_code}\n- {message: hello, skill: none}\n").unwrap();
        std::fs::write(dir.path().join("_draft.eval.yaml"), "[]").unwrap();
        assert_eq!(case_files(dir.path()), vec![path.clone()]);
        let cases = load_case_file(&path).unwrap();
        assert_eq!(cases.len(), 2);
        assert_eq!(cases[1].skill, NO_SKILL);
        std::fs::write(&path, "- {message: hi, tool: x}\n").unwrap();
        assert!(matches!(
            load_case_file(&path),
            Err(CaseFileError::Malformed { .. })
        ));
    }
}
