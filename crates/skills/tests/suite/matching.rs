//! Which skills a message applies: keywords in any script, and `/NAME`.

use pretty_assertions::assert_eq;

use super::Project;

fn names(skills: Vec<&riverse_skills::Skill>) -> Vec<&str> {
    skills
        .into_iter()
        .map(|skill| skill.name.as_str())
        .collect()
}

#[test]
fn a_keyword_skill_applies_in_english_japanese_and_chinese() {
    let project = Project::new();
    project.riverse_files();
    let english = project.load("en");
    assert_eq!(
        names(english.keyword_matches("Could you EXPLAIN CODE like this?")),
        ["explain_code"]
    );
    assert_eq!(
        names(english.keyword_matches("ＥＸＰＬＡＩＮ ＣＯＤＥ, please")),
        ["explain_code"]
    );
    // Riverse's own files mix languages: a Chinese skill with Japanese and English keywords.
    assert_eq!(
        names(english.keyword_matches("これを派遣してください")),
        ["outsource"]
    );
    assert_eq!(
        names(english.keyword_matches("请帮我外包这个任务")),
        ["outsource"]
    );
    assert_eq!(
        names(english.keyword_matches("Please Resume Task 7")),
        ["outsource"]
    );
    assert!(
        english
            .keyword_matches("What time is it in Tokyo?")
            .is_empty()
    );
    assert!(english.keyword_matches("").is_empty());

    // With only the bundled files, the language's own keywords.
    let bundled = Project::new();
    for name in ["skills_en.yaml", "skills_ja.yaml", "skills_zh.yaml"] {
        bundled.fixture(name);
    }
    let japanese = bundled.load("ja");
    assert_eq!(
        names(japanese.keyword_matches("この関数のコードを説明して")),
        ["explain_code"]
    );
    assert_eq!(
        names(japanese.keyword_matches("ｺｰﾄﾞを説明して")),
        ["explain_code"]
    );
    assert!(japanese.keyword_matches("コードを書いて").is_empty());
    let chinese = bundled.load("zh");
    assert_eq!(
        names(chinese.keyword_matches("请解释代码：print(1)")),
        ["explain_code"]
    );
    assert!(chinese.keyword_matches("请写代码").is_empty());
}

#[test]
fn every_matching_keyword_skill_applies_in_load_order() {
    let project = Project::new();
    project
        .file(
            "a.yaml",
            "name: tea\nkeywords: [tea]\ninstruction: Talk about tea.\n",
        )
        .file(
            "b.yaml",
            "name: green\nkeywords: [GREEN]\ninstruction: Talk about green.\n",
        );
    let set = project.load("en");
    assert_eq!(
        names(set.keyword_matches("I like green tea")),
        ["tea", "green"]
    );
}

#[test]
fn a_slash_name_picks_a_skill_explicitly_with_the_rest_of_the_message() {
    let project = Project::new();
    project
        .riverse_files()
        .file("off.yaml", "name: off\nenabled: false\ninstruction: x\n")
        .file(
            "天気/SKILL.md",
            "---\nname: 天気\ndescription: 天気を答える\n---\n天気を答えてください。\n",
        );
    let set = project.load("en");
    let explicit = set.explicit("/weekly_summary  for Sunday ").unwrap();
    assert_eq!(explicit.skill.name, "weekly_summary");
    assert_eq!(explicit.args, "for Sunday");
    let explicit = set.explicit("/Explain_Code fn main() {}").unwrap();
    assert_eq!(
        (explicit.skill.name.as_str(), explicit.args),
        ("explain_code", "fn main() {}")
    );
    let explicit = set.explicit("／天気　東京").unwrap();
    assert_eq!(
        (explicit.skill.name.as_str(), explicit.args),
        ("天気", "東京")
    );
    assert!(set.explicit("/nothing here").is_none());
    assert!(set.explicit("/off now").is_none());
    assert!(set.explicit("explain code /explain_code").is_none());
    // Named, a skill applies alone, whatever keywords the rest holds.
    assert_eq!(
        names(set.choose("/weekly_summary explain code")),
        ["weekly_summary"]
    );
    assert_eq!(
        names(set.choose("explain code /weekly_summary")),
        ["explain_code"]
    );
    assert_eq!(names(set.offered().collect()), ["天気"]);
}
