//! Skill choice, scored beside tool routing: each case is given the skills
//! a turn would apply to its message, and `riverse_skills::eval` counts.
//!
//! The choice is the turn's, made without the LLM where the turn makes it so:
//! `/NAME` at the start of the message names one skill, else every keyword
//! skill the message matches. Skills offered to the LLM (those without
//! keywords) are chosen by the model, so a case that `/NAME` and keywords
//! leave without a skill is routed with [`Agent::route`] when the project
//! offers any: a call of the built-in `skill` tool in the model's first
//! reply chooses the skill it names. Nothing runs: no tool, no step.

use std::path::Path;

use riverse_skills::SkillSet;
use riverse_skills::eval::{
    CaseFileError, SkillCase, SkillOutcome, case_files, example_cases, load_case_file,
};

use crate::{Agent, RoutedCall};

/// The built-in tool through which the model loads a skill it was offered.
const SKILL_TOOL: &str = "skill";

/// Every enabled skill's examples, then the cases of the `*.eval.yaml`
/// files in `dir`, the skills folder (`riverse_skills::SkillsOptions::dir`).
pub fn skill_cases(set: &SkillSet, dir: &Path) -> Result<Vec<SkillCase>, CaseFileError> {
    let mut cases = example_cases(set);
    for file in case_files(dir) {
        cases.extend(load_case_file(&file)?);
    }
    Ok(cases)
}

/// What choosing the skills of every case came to.
pub struct SkillChoices {
    pub outcomes: Vec<SkillOutcome>,
    /// Why the model could not be asked, once per case it could not; those
    /// cases count as choosing no skill.
    pub errors: Vec<String>,
}

/// Chooses the skills of each case as a turn would (see the module's text).
pub async fn choose_skills(
    agent: &Agent,
    set: &SkillSet,
    cases: Vec<SkillCase>,
    on_done: &mut (dyn FnMut(&SkillOutcome) + Send),
) -> SkillChoices {
    let offers = set.offered().next().is_some();
    let mut choices = SkillChoices {
        outcomes: Vec::with_capacity(cases.len()),
        errors: Vec::new(),
    };
    for case in cases {
        let mut chosen: Vec<String> = set
            .choose(&case.message)
            .iter()
            .map(|skill| skill.name.clone())
            .collect();
        if chosen.is_empty() && offers {
            match agent.route(&case.message).await {
                Ok(calls) => chosen = model_choice(set, &calls),
                Err(err) => choices.errors.push(err.to_string()),
            }
        }
        let outcome = SkillOutcome::new(case, chosen);
        on_done(&outcome);
        choices.outcomes.push(outcome);
    }
    choices
}

/// The skills the model's calls of the `skill` tool name, as the set spells
/// them; a name that is no enabled skill is kept as the model wrote it, a
/// wrong choice.
fn model_choice(set: &SkillSet, calls: &[RoutedCall]) -> Vec<String> {
    let mut chosen: Vec<String> = Vec::new();
    for call in calls.iter().filter(|call| call.tool == SKILL_TOOL) {
        let Some(name) = call.params.get("name").and_then(|name| name.as_str()) else {
            continue;
        };
        let name = set
            .get(name)
            .map_or_else(|| name.to_owned(), |skill| skill.name.clone());
        if !chosen.contains(&name) {
            chosen.push(name);
        }
    }
    chosen
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn set_of(files: &[(&str, &str)]) -> (tempfile::TempDir, SkillSet) {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let options = riverse_skills::SkillsOptions {
            enabled: true,
            dir: dir.path().to_owned(),
            project_dir: dir.path().to_owned(),
            language: "en".into(),
        };
        let set = riverse_skills::load(&options);
        (dir, set)
    }

    #[test]
    fn the_model_chooses_by_the_skill_tool_and_the_set_spells_the_name() {
        let (_dir, set) = set_of(&[(
            "pdf-forms/SKILL.md",
            "---\nname: pdf-forms\ndescription: Fill in PDF forms\n---\nRead the form.\n",
        )]);
        let calls = [
            RoutedCall {
                tool: "weather".into(),
                params: json!({"name": "Oslo"}),
            },
            RoutedCall {
                tool: SKILL_TOOL.into(),
                params: json!({"name": "PDF-Forms"}),
            },
            RoutedCall {
                tool: SKILL_TOOL.into(),
                params: json!({"name": "pdf-forms", "file": "a.md"}),
            },
            RoutedCall {
                tool: SKILL_TOOL.into(),
                params: json!({"name": "made_up"}),
            },
            RoutedCall {
                tool: SKILL_TOOL.into(),
                params: json!("pdf-forms"),
            },
        ];
        assert_eq!(model_choice(&set, &calls), ["pdf-forms", "made_up"]);
    }

    #[test]
    fn cases_are_the_examples_then_the_case_files() {
        let (dir, set) = set_of(&[
            (
                "explain.yaml",
                "name: explain\ndescription: d\ntrigger: {type: keyword, keywords: [explain]}\n\
                 instruction: i\nexamples: [explain this]\n",
            ),
            ("b.eval.yaml", "- {message: hi, skill: none}\n"),
            (
                "a.eval.yaml",
                "cases:\n  - {message: explain it, skill: explain}\n",
            ),
        ]);
        let cases: Vec<(String, String)> = skill_cases(&set, dir.path())
            .unwrap()
            .into_iter()
            .map(|case| (case.message, case.skill))
            .collect();
        let expected = [
            ("explain this", "explain"),
            ("explain it", "explain"),
            ("hi", "none"),
        ]
        .map(|(message, skill)| (message.to_owned(), skill.to_owned()));
        assert_eq!(cases, expected);
    }
}
