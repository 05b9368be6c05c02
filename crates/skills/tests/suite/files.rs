//! A SKILL.md skill's files: read inside its folder only, listed with
//! digests.

use std::os::unix::fs::symlink;

use pretty_assertions::assert_eq;
use riverse_skills::{FileError, SkillFile, digest};

use super::Project;

const SKILL_MD: &str =
    "---\nname: forms\ndescription: Fill in forms\n---\nSee references/guide.md.\n";

fn forms_project() -> (Project, tempfile::TempDir) {
    let project = Project::new();
    project
        .file("forms/SKILL.md", SKILL_MD)
        .file("forms/references/guide.md", "The guide.\n")
        .file("forms/templates/a.txt", "A\n");
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "secret\n").unwrap();
    let folder = project.skills_dir().join("forms");
    symlink(outside.path().join("secret.txt"), folder.join("leak.txt")).unwrap();
    symlink(outside.path(), folder.join("elsewhere")).unwrap();
    symlink(
        folder.join("references/guide.md"),
        folder.join("guide-link.md"),
    )
    .unwrap();
    std::fs::write(project.skills_dir().join("neighbour.txt"), "next door\n").unwrap();
    (project, outside)
}

#[test]
fn files_are_read_inside_the_folder_and_nowhere_else() {
    let (project, _outside) = forms_project();
    let set = project.load("en");
    let skill = set.get("forms").unwrap();
    assert_eq!(
        skill.read_file("references/guide.md").unwrap(),
        b"The guide.\n"
    );
    assert_eq!(skill.read_file("./templates/a.txt").unwrap(), b"A\n");
    assert_eq!(skill.read_file("SKILL.md").unwrap(), SKILL_MD.as_bytes());
    // A link that stays inside is followed.
    assert_eq!(skill.read_file("guide-link.md").unwrap(), b"The guide.\n");
    let outside = |path: &str| FileError::OutsidePath { path: path.into() };
    assert_eq!(
        skill.read_file("../neighbour.txt"),
        Err(outside("../neighbour.txt"))
    );
    assert_eq!(
        skill.read_file("references/../../neighbour.txt"),
        Err(outside("references/../../neighbour.txt"))
    );
    let absolute = project
        .skills_dir()
        .join("neighbour.txt")
        .display()
        .to_string();
    assert_eq!(skill.read_file(&absolute), Err(outside(&absolute)));
    assert_eq!(skill.read_file(""), Err(outside("")));
    let leads_out = |path: &str| FileError::LeadsOut { path: path.into() };
    assert_eq!(skill.read_file("leak.txt"), Err(leads_out("leak.txt")));
    assert_eq!(
        skill.read_file("elsewhere/secret.txt"),
        Err(leads_out("elsewhere/secret.txt"))
    );
    assert_eq!(
        skill.read_file("references"),
        Err(FileError::NotFound {
            path: "references".into()
        })
    );
    assert_eq!(
        skill.read_file("missing.md"),
        Err(FileError::NotFound {
            path: "missing.md".into()
        })
    );
}

#[test]
fn the_manifest_lists_every_file_inside_with_its_digest() {
    let (project, _outside) = forms_project();
    let set = project.load("en");
    let skill = set.get("forms").unwrap();
    let file = |path: &str, text: &str| SkillFile {
        path: path.into(),
        digest: digest(text.as_bytes()),
        size: text.len() as u64,
    };
    assert_eq!(
        skill.manifest().unwrap(),
        [
            file("SKILL.md", SKILL_MD),
            file("guide-link.md", "The guide.\n"),
            file("references/guide.md", "The guide.\n"),
            file("templates/a.txt", "A\n"),
        ]
    );
}

#[test]
fn a_yaml_skill_has_one_file_a_skill_md_made_from_its_entry() {
    let project = Project::new();
    project.fixture("explain_code.yaml");
    let set = project.load("en");
    let skill = set.get("explain_code").unwrap();
    let text = String::from_utf8(skill.read_file("SKILL.md").unwrap()).unwrap();
    let front = text
        .strip_prefix("---\n")
        .and_then(|rest| rest.split_once("---\n"))
        .map(|(front, _)| front)
        .unwrap();
    // What is listed is what the file says.
    let parsed: serde_json::Value = serde_yaml_ng::from_str(front).unwrap();
    assert_eq!(
        parsed,
        serde_json::Value::Object(skill.frontmatter().clone())
    );
    assert_eq!(parsed["name"], "explain_code");
    assert!(parsed.get("instruction").is_none());
    assert!(text.ends_with(&format!("{}\n", skill.instruction.trim())));
    let manifest = skill.manifest().unwrap();
    assert_eq!(manifest.len(), 1);
    assert_eq!(manifest[0].digest, digest(text.as_bytes()));
    assert_eq!(
        skill.read_file("other.md"),
        Err(FileError::NoFolder {
            skill: "explain_code".into()
        })
    );
}
