//! Reading a skills directory: every shape, the order, and what fails.

use pretty_assertions::assert_eq;
use riverse_skills::{SourceKind, Status, Step, Trigger, load};
use serde_json::json;

use super::{Project, summary};

fn entry(name: &str, status: &'static str, file: &str) -> (String, &'static str, String) {
    (name.to_owned(), status, file.to_owned())
}

#[test]
fn riverse_files_load_unchanged_and_project_files_override_bundled_ones() {
    let project = Project::new();
    project.riverse_files();
    // What else a copied agent/skills/ holds.
    project
        .file("__init__.py", "")
        .file("executor.py", "def run():\n    pass\n")
        .file("__pycache__/executor.cpython-312.pyc", "");
    let set = project.load("en");
    assert_eq!(
        summary(&set),
        [
            entry("explain_code", "enabled", "agent/skills/explain_code.yaml"),
            entry("outsource", "enabled", "agent/skills/outsource.yaml"),
            entry(
                "weekly_summary",
                "enabled",
                "agent/skills/weekly_summary.yaml"
            ),
            entry(
                "explain_code",
                "overridden",
                "agent/skills/skills_en.yaml skills[0]"
            ),
            entry(
                "weekly_summary",
                "overridden",
                "agent/skills/skills_en.yaml skills[1]"
            ),
        ]
    );
    let explain = set.get("explain_code").unwrap();
    assert_eq!(explain.source.kind, SourceKind::Yaml);
    assert_eq!(
        explain.trigger,
        Trigger::Keyword {
            keywords: vec![
                "explain code".into(),
                "what does this code do".into(),
                "walk me through this".into()
            ]
        }
    );
    assert!(
        explain
            .instruction
            .starts_with("The user wants a piece of code explained.")
    );
    let weekly = set.get("weekly_summary").unwrap();
    assert_eq!(
        weekly.trigger,
        Trigger::Schedule {
            cron: "0 20 * * 0".into()
        }
    );
    assert!(
        matches!(&weekly.steps[..], [Step::Respond { respond }] if respond.starts_with("以朋友的口吻"))
    );
    assert_eq!(set.scheduled().count(), 1);
    assert_eq!(
        set.entries()[3].overridden_by.as_deref(),
        Some(std::path::Path::new("agent/skills/explain_code.yaml"))
    );
}

#[test]
fn the_bundled_file_follows_the_language_then_english_then_japanese() {
    let project = Project::new();
    for name in ["skills_en.yaml", "skills_ja.yaml", "skills_zh.yaml"] {
        project.fixture(name);
    }
    let bundled = |language: &str| {
        let set = project.load(language);
        let skill = set.get("explain_code").unwrap().clone();
        assert_eq!(skill.source.kind, SourceKind::Bundled);
        assert_eq!(set.entries().len(), 2, "one bundled file only");
        skill.source.file.display().to_string()
    };
    assert_eq!(bundled("ja"), "agent/skills/skills_ja.yaml");
    assert_eq!(bundled("zh"), "agent/skills/skills_zh.yaml");
    assert_eq!(bundled("en"), "agent/skills/skills_en.yaml");
    std::fs::remove_file(project.skills_dir().join("skills_zh.yaml")).unwrap();
    assert_eq!(bundled("zh"), "agent/skills/skills_en.yaml");
    std::fs::remove_file(project.skills_dir().join("skills_en.yaml")).unwrap();
    assert_eq!(bundled("zh"), "agent/skills/skills_ja.yaml");
}

#[test]
fn a_yaml_file_may_hold_a_list_of_skills() {
    let project = Project::new();
    project.file(
        "travel.yaml",
        "skills:\n  - name: pack\n    instruction: List what to pack.\n    keywords: [pack]\n  - name: route\n    description: Plan a route\n    instruction: Plan the route.\n",
    );
    let set = project.load("en");
    assert_eq!(
        summary(&set),
        [
            entry("pack", "enabled", "agent/skills/travel.yaml skills[0]"),
            entry("route", "enabled", "agent/skills/travel.yaml skills[1]"),
        ]
    );
    // Without a trigger, the LLM chooses the skill by its description.
    assert_eq!(set.get("route").unwrap().trigger, Trigger::Model);
    assert_eq!(
        set.get("pack").unwrap().trigger,
        Trigger::Keyword {
            keywords: vec!["pack".into()]
        }
    );
}

#[test]
fn a_skill_md_folder_is_a_skill_with_its_files() {
    let project = Project::new();
    project
        .file(
            "pdf-forms/SKILL.md",
            "---\nname: pdf-forms\ndescription: Fill in PDF forms\nlicense: MIT\nmetadata: {version: \"1.2\"}\nexamples: [\"fill in this PDF form\"]\n---\n\n# Filling forms\n\nRead references/fields.md first.\n",
        )
        .file("pdf-forms/references/fields.md", "Every field has a name.\n")
        .file(
            "translate/SKILL.md",
            "---\nname: translate\ndescription: Translate text\nkeywords: [\"translate\", \"翻訳して\"]\nvariables: {lang: ja}\nsteps:\n  - tool: translator\n    params: {text: \"{message}\", to: \"{lang}\"}\n    save_as: translated\n  - respond: \"Give this translation: {translated}\"\n---\n",
        )
        .file("notes/README.md", "a folder without SKILL.md is not a skill\n");
    let set = project.load("en");
    assert_eq!(
        summary(&set),
        [
            entry("pdf-forms", "enabled", "agent/skills/pdf-forms/SKILL.md"),
            entry("translate", "enabled", "agent/skills/translate/SKILL.md"),
        ]
    );
    let pdf = set.get("pdf-forms").unwrap();
    assert_eq!(pdf.source.kind, SourceKind::Folder);
    assert_eq!(pdf.trigger, Trigger::Model);
    assert_eq!(
        pdf.instruction,
        "# Filling forms\n\nRead references/fields.md first."
    );
    assert_eq!(pdf.examples, ["fill in this PDF form"]);
    assert_eq!(
        serde_json::Value::Object(pdf.frontmatter().clone()),
        json!({"name": "pdf-forms", "description": "Fill in PDF forms", "license": "MIT",
               "metadata": {"version": "1.2"}, "examples": ["fill in this PDF form"]})
    );
    let translate = set.get("translate").unwrap();
    assert_eq!(
        translate.trigger,
        Trigger::Keyword {
            keywords: vec!["translate".into(), "翻訳して".into()]
        }
    );
    assert_eq!(translate.variables.get("lang"), Some(&json!("ja")));
    assert_eq!(
        translate.steps[0],
        Step::Tool {
            tool: "translator".into(),
            params: json!({"text": "{message}", "to": "{lang}"})
                .as_object()
                .unwrap()
                .clone(),
            save_as: Some("translated".into()),
        }
    );
}

#[test]
fn underscores_are_skipped_and_a_disabled_skill_keeps_its_name() {
    let project = Project::new();
    project
        .fixture("skills_en.yaml")
        .file("_draft.yaml", "name: draft\ninstruction: not yet\n")
        .file(
            "_wip/SKILL.md",
            "---\nname: wip\ndescription: not yet\n---\nbody\n",
        )
        .file(
            "explain.yaml",
            "name: explain_code\nenabled: false\ninstruction: off\n",
        )
        .file(
            "quiet.yaml",
            "name: quiet\nenabled: \"false\"\ninstruction: off too\n",
        );
    let set = project.load("en");
    assert_eq!(
        summary(&set),
        [
            entry("explain_code", "disabled", "agent/skills/explain.yaml"),
            entry("quiet", "disabled", "agent/skills/quiet.yaml"),
            entry(
                "explain_code",
                "overridden",
                "agent/skills/skills_en.yaml skills[0]"
            ),
            entry(
                "weekly_summary",
                "enabled",
                "agent/skills/skills_en.yaml skills[1]"
            ),
        ]
    );
    assert!(set.get("explain_code").is_none());
    assert!(set.keyword_matches("explain code please").is_empty());
}

#[test]
fn a_malformed_file_is_reported_at_its_line_and_key_and_the_others_load() {
    let project = Project::new();
    project
        .fixture("explain_code.yaml")
        .file("broken.yaml", "name: broken\ninstruction: [unclosed\n")
        .file(
            "list.yaml",
            "skills:\n  - name: first\n    instruction: one\n  - name: second\n    instruction: two\n    trigger:\n      type: keyword\n      keywords: 7\n  - name: third\n    trigger: {type: sometimes}\n    instruction: three\n  - name: fourth\n    instruction: four\n",
        )
        .file("nameless.yaml", "description: no name\ninstruction: x\n")
        .file("steps.yaml", "name: stepper\nsteps:\n  - tool: weather\n    save-as: w\n")
        .file("cron.yaml", "name: nightly\ntrigger:\n  type: schedule\n  cron: \"0 3 * *\"\ninstruction: x\n")
        .file("empty.yaml", "")
        .file("bad-front/SKILL.md", "---\nname: bad-front\ndescription: [oops\n---\nbody\n")
        .file("no-front/SKILL.md", "# Just a body\n")
        .file("same.yaml", "name: first\ninstruction: again\n");
    let set = project.load("en");
    let errors: Vec<String> = set
        .entries()
        .iter()
        .filter_map(|entry| entry.error.as_ref().map(ToString::to_string))
        .collect();
    assert_eq!(
        errors,
        [
            "agent/skills/broken.yaml:3: did not find expected ',' or ']'",
            "agent/skills/cron.yaml:3: trigger: cron \"0 3 * *\" is not five fields (minute hour day month weekday), as in \"0 20 * * 0\"",
            "agent/skills/empty.yaml:1: the file is empty: expected a skill (with name) or a skills: list",
            "agent/skills/list.yaml:8: skills[1].trigger.keywords: invalid type: integer `7`, expected a list of keywords",
            "agent/skills/list.yaml:10: skills[2].trigger: unknown trigger type \"sometimes\": use keyword or schedule",
            "agent/skills/nameless.yaml:1: missing field `name`",
            "agent/skills/same.yaml: name: the name \"first\" is already taken by agent/skills/list.yaml",
            "agent/skills/steps.yaml:4: steps[0]: unknown field `save-as`, expected one of `tool`, `params`, `save_as`, `respond`",
            "agent/skills/bad-front/SKILL.md:4: did not find expected ',' or ']'",
            "agent/skills/no-front/SKILL.md:1: SKILL.md must open with YAML front matter between --- lines (name, description)",
        ]
    );
    let error = set
        .entries()
        .iter()
        .find_map(|e| e.error.as_ref().filter(|e| e.line == Some(10)))
        .unwrap();
    assert_eq!(error.key.as_deref(), Some("skills[2].trigger"));
    let loaded: Vec<&str> = set.skills().map(|skill| skill.name.as_str()).collect();
    assert_eq!(loaded, ["explain_code", "first", "fourth"]);
    assert_eq!(
        set.entries()
            .iter()
            .find(|e| e.name.as_deref() == Some("first") && e.status == Status::Conflict)
            .map(|e| e.source.file.display().to_string()),
        Some("agent/skills/same.yaml".to_owned())
    );
}

#[test]
fn skills_turned_off_or_a_missing_directory_yield_none() {
    let project = Project::new();
    project.riverse_files();
    let mut options = project.options("en");
    options.enabled = false;
    let set = load(&options);
    assert!(!set.is_enabled());
    assert!(set.entries().is_empty());
    let mut options = project.options("en");
    options.dir = project.path().join("nowhere");
    assert!(load(&options).entries().is_empty());
}
