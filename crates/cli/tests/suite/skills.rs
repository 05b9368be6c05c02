//! `riverse skills [--json]` and `riverse new --skill` (issue 44).

use pretty_assertions::assert_eq;
use riverse_test_support::Project;
use serde_json::{Value, json};

use super::command::{Ran, project, riverse, riverse_in, run};

/// A project with skills in each of Riverse's shapes, and one that fails.
fn skills_project() -> Project {
    let project = project(&[]);
    project
        .file(
            "agent/skills/explain_code.yaml",
            "name: explain_code\ndescription: Walk through code the user sends\ntrigger:\n  type: keyword\n  keywords: [\"explain code\", \"コードを説明して\"]\ninstruction: |\n  Say what the code is for.\n  Then go through it.\nenabled: true\n",
        )
        .file(
            "agent/skills/skills_en.yaml",
            "skills:\n  - name: explain_code\n    description: The bundled one\n    trigger: {type: keyword, keywords: [explain]}\n    instruction: Explain.\n  - name: weekly_summary\n    description: A Sunday greeting\n    trigger: {type: schedule, cron: \"0 20 * * 0\"}\n    steps:\n      - respond: Write a short weekend greeting.\n",
        )
        .file("agent/skills/skills_ja.yaml", "skills: []\n")
        .file(
            "agent/skills/trip.yaml",
            "skills:\n  - name: packing\n    description: What to pack\n    variables: {city: Oslo}\n    steps:\n      - {tool: weather, params: {city: \"{city}\"}, save_as: forecast}\n      - respond: \"Packing list for {forecast}\"\n  - name: broken\n    trigger: {type: keyword, keywords: []}\n    instruction: never\n",
        )
        .file(
            "agent/skills/pdf-forms/SKILL.md",
            "---\nname: pdf-forms\ndescription: Fill in PDF forms\n---\nRead the form, then fill it in.\n",
        )
        .file("agent/skills/_draft.yaml", "name: draft\n");
    project
}

#[test]
fn skills_lists_each_skill_with_its_source_trigger_status_and_error() {
    let project = skills_project();
    let ran = riverse(&project, &["skills"]);
    assert_eq!(
        ran.exits(0).stdout,
        "\
NAME            STATUS      SOURCE                                 DESCRIPTION
explain_code    enabled     agent/skills/explain_code.yaml         Walk through code the user sends
                  trigger: keywords \"explain code\", \"コードを説明して\"
                  applies: instruction (2 lines)
packing         enabled     agent/skills/trip.yaml skills[0]       What to pack
                  trigger: chosen by the LLM
                  applies: steps: tool weather, respond
-               error       agent/skills/trip.yaml skills[1]
                  └ agent/skills/trip.yaml:9: skills[1].trigger: a keyword trigger needs keywords (leave trigger out to have the LLM choose the skill)
pdf-forms       enabled     agent/skills/pdf-forms/SKILL.md        Fill in PDF forms
                  trigger: chosen by the LLM
                  applies: instruction (1 line)
explain_code    overridden  agent/skills/skills_en.yaml skills[0]  The bundled one
                  overridden by agent/skills/explain_code.yaml
weekly_summary  enabled     agent/skills/skills_en.yaml skills[1]  A Sunday greeting
                  trigger: schedule \"0 20 * * 0\"
                  applies: steps: respond

4 of 6 enabled
"
    );
}

#[test]
fn skills_json_is_one_document_with_every_entry_whole() {
    let project = skills_project();
    let ran = riverse(&project, &["skills", "--json"]);
    let listed: Value = serde_json::from_str(&ran.exits(0).stdout).unwrap();
    assert_eq!(listed["dir"], "agent/skills");
    assert_eq!(listed["enabled"], true);
    let skills = listed["skills"].as_array().unwrap();
    assert_eq!(skills.len(), 6);
    assert_eq!(
        skills[0],
        json!({
            "name": "explain_code",
            "description": "Walk through code the user sends",
            "status": "enabled",
            "source": {"kind": "yaml", "file": "agent/skills/explain_code.yaml"},
            "trigger": {"type": "keyword", "keywords": ["explain code", "コードを説明して"]},
            "instruction": "Say what the code is for.\nThen go through it.\n",
            "steps": [],
            "variables": {},
            "examples": [],
            "error": null,
        })
    );
    assert_eq!(
        skills[1]["steps"],
        json!([{"tool": "weather", "params": {"city": "{city}"}, "save_as": "forecast"},
               {"respond": "Packing list for {forecast}"}])
    );
    assert_eq!(skills[1]["variables"], json!({"city": "Oslo"}));
    assert_eq!(
        skills[2],
        json!({
            "name": null,
            "description": null,
            "status": "error",
            "source": {"kind": "yaml", "file": "agent/skills/trip.yaml", "index": 1},
            "trigger": null,
            "instruction": null,
            "steps": [],
            "variables": null,
            "examples": [],
            "error": {
                "file": "agent/skills/trip.yaml",
                "line": 9,
                "key": "skills[1].trigger",
                "message": "a keyword trigger needs keywords (leave trigger out to have the LLM choose the skill)",
            },
        })
    );
    assert_eq!(
        skills[3]["source"],
        json!({"kind": "folder", "file": "agent/skills/pdf-forms/SKILL.md"})
    );
    assert_eq!(skills[3]["trigger"], json!({"type": "model"}));
    assert_eq!(skills[4]["status"], "overridden");
    assert_eq!(skills[4]["overridden_by"], "agent/skills/explain_code.yaml");
    assert_eq!(skills[5]["source"]["kind"], "bundled");
    assert_eq!(
        skills[5]["trigger"],
        json!({"type": "schedule", "cron": "0 20 * * 0"})
    );
}

fn skills_with(project: &Project, language: &str, skills_dir: Option<&str>) -> Ran {
    let mut command = riverse_in(project.path(), &["skills", "--json"]);
    command.env_remove("SKILLS_DIR");
    if let Some(dir) = skills_dir {
        command.env("SKILLS_DIR", dir);
    }
    project.settings(&format!("language: {language}\n"));
    run(command)
}

fn names(ran: &Ran) -> Vec<String> {
    let listed: Value = serde_json::from_str(&ran.stdout).unwrap();
    listed["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|skill| {
            format!(
                "{} {}",
                skill["name"].as_str().unwrap_or("-"),
                skill["source"]["file"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn the_language_picks_the_bundled_file_and_skills_dir_moves_the_folder() {
    let project = project(&[]);
    project
        .file(
            "agent/skills/skills_en.yaml",
            "skills:\n  - {name: hello, instruction: Say hello.}\n",
        )
        .file(
            "agent/skills/skills_ja.yaml",
            "skills:\n  - {name: konnichiwa, instruction: 挨拶する。}\n",
        )
        .file("elsewhere/mine.yaml", "name: mine\ninstruction: Mine.\n");
    assert_eq!(
        names(skills_with(&project, "ja", None).exits(0)),
        ["konnichiwa agent/skills/skills_ja.yaml"]
    );
    assert_eq!(
        names(skills_with(&project, "zh", None).exits(0)),
        ["hello agent/skills/skills_en.yaml"]
    );
    assert_eq!(
        names(skills_with(&project, "en", Some("elsewhere")).exits(0)),
        ["mine elsewhere/mine.yaml"]
    );

    project.settings("skills: {enabled: false}\n");
    assert_eq!(
        riverse(&project, &["skills"]).exits(0).stdout,
        "no skills: skills.enabled is false\n"
    );
    project.settings("skills: {dir: \"\"}\n");
    let ran = riverse(&project, &["skills"]);
    assert_eq!(
        ran.exits(1).stderr,
        format!(
            "riverse: {}: skills.dir: must not be empty at line 1 column 15\n",
            project.path().join("settings.yaml").display()
        )
    );
}

#[test]
fn new_skill_writes_a_commented_skill_md_that_loads() {
    let project = project(&[]);
    let ran = riverse(&project, &["new", "--skill", "release-notes"]);
    let file = project.path().join("agent/skills/release-notes/SKILL.md");
    assert!(
        ran.exits(0)
            .stdout
            .starts_with(&format!("created {}\nNext:\n", file.display())),
        "{ran:?}"
    );
    assert!(ran.stdout.contains("skills"), "{ran:?}");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.starts_with("---\n# A skill"), "{text}");
    assert!(text.contains("\nname: release-notes\n"), "{text}");

    let listed: Value =
        serde_json::from_str(&riverse(&project, &["skills", "--json"]).exits(0).stdout).unwrap();
    let skill = &listed["skills"][0];
    assert_eq!(skill["name"], "release-notes");
    assert_eq!(skill["status"], "enabled");
    assert_eq!(skill["trigger"], json!({"type": "model"}));
    assert_eq!(
        skill["description"],
        "Placeholder from riverse new, not written yet; never use it"
    );
    assert!(
        skill["instruction"]
            .as_str()
            .unwrap()
            .starts_with("# release-notes")
    );

    let again = riverse(&project, &["new", "--skill", "release-notes"]);
    assert!(
        again
            .exits(2)
            .stderr
            .contains("release-notes already exists"),
        "{again:?}"
    );
    for invalid in ["two words", "_helper", "a/b", "-x"] {
        riverse(&project, &["new", "--skill", invalid]).exits(2);
    }
    // Any script names a skill.
    riverse(&project, &["new", "--skill", "天気"]).exits(0);
    assert!(project.path().join("agent/skills/天気/SKILL.md").is_file());
}
