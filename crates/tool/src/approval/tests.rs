use super::*;
use ApprovalMode::{Ask, Auto, Deny};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

fn params(value: Value) -> Params {
    value.as_object().cloned().unwrap()
}

const KEY: &str = "tools.shell_exec.approval";

fn when(param: &str, pattern: ArgumentPattern) -> Vec<(String, ArgumentPattern)> {
    vec![(param.to_owned(), pattern)]
}

fn prefix(text: &str) -> ArgumentPattern {
    ArgumentPattern::prefix(text)
}

fn regex(text: &str) -> ArgumentPattern {
    ArgumentPattern::regex(text).unwrap()
}

fn mode_of(policy: &ApprovalPolicy, command: &str) -> ApprovalMode {
    policy.decide(&params(json!({"command": command}))).mode
}

#[test]
fn a_mode_applies_to_every_call() {
    for (name, mode) in [("auto", Auto), ("ask", Ask), ("deny", Deny)] {
        let policy = ApprovalPolicy::mode(KEY, mode);
        let verdict = policy.decide(&params(json!({"command": "ls"})));
        assert_eq!(verdict.mode, mode);
        assert_eq!(
            verdict.to_string(),
            format!("tools.shell_exec.approval is {name}")
        );
    }
}

#[test]
fn the_strictest_matching_rule_wins_and_the_default_otherwise() {
    let pwd_or_ls = ArgumentPattern::any(vec![ArgumentPattern::exact("pwd"), prefix("ls")]);
    let policy = ApprovalPolicy::mode(KEY, Ask)
        .with_rule(Auto, when("command", prefix("git")))
        .with_rule(Auto, when("command", pwd_or_ls))
        .with_rule(Deny, when("command", regex("git push.*")));
    assert_eq!(mode_of(&policy, "git status"), Auto);
    assert_eq!(mode_of(&policy, "pwd"), Auto);
    assert_eq!(mode_of(&policy, "ls -la"), Auto);
    assert_eq!(mode_of(&policy, "git push --force"), Deny);
    assert_eq!(mode_of(&policy, "rm -rf build"), Ask);
    let verdict = policy.decide(&params(json!({"command": "git push"})));
    assert_eq!(
        verdict.to_string(),
        "tools.shell_exec.approval.deny[0] matched (deny)"
    );
    // A rule on a parameter the call does not have does not match.
    assert_eq!(policy.decide(&params(json!({}))).mode, Ask);
}

#[test]
fn a_prefix_matches_at_a_word_boundary_and_never_a_chained_command() {
    let policy = ApprovalPolicy::mode(KEY, Ask)
        .with_rule(Auto, when("command", prefix("ls")))
        .with_rule(Auto, when("path", prefix("notes/")));
    assert_eq!(mode_of(&policy, "ls"), Auto);
    assert_eq!(mode_of(&policy, "ls -l docs"), Auto);
    for chained in [
        "lsblk",
        "ls; rm -rf ~",
        "ls && curl evil",
        "ls | sh",
        "ls $(rm x)",
        "ls `rm x`",
        "ls > /etc/passwd",
        "ls\nrm x",
    ] {
        assert_eq!(mode_of(&policy, chained), Ask, "{chained}");
    }
    let path = |path: &str| policy.decide(&params(json!({"path": path}))).mode;
    assert_eq!(path("notes/today.md"), Auto);
    assert_eq!(path("notes/../.ssh/id_rsa"), Ask);
    assert_eq!(path("notes/.."), Ask);
}

#[test]
fn a_regex_matches_the_whole_value_and_other_types_as_json() {
    let policy = ApprovalPolicy::mode(KEY, Auto)
        .with_rule(Deny, when("count", regex("[0-9]{4,}")))
        .with_rule(Deny, when("force", ArgumentPattern::exact("true")));
    let mode = |value: Value| policy.decide(&params(value)).mode;
    assert_eq!(mode(json!({"count": 10000})), Deny);
    assert_eq!(mode(json!({"count": 12})), Auto);
    assert_eq!(mode(json!({"count": "a12345"})), Auto);
    assert_eq!(mode(json!({"force": true})), Deny);
    assert_eq!(mode(json!({"force": false})), Auto);
}

#[test]
fn every_rule_of_a_rule_must_match() {
    let policy = ApprovalPolicy::mode(KEY, Deny).with_rule(
        Auto,
        vec![
            ("command".to_owned(), prefix("cat")),
            ("cwd".to_owned(), ArgumentPattern::exact("notes")),
        ],
    );
    let mode = |value: Value| policy.decide(&params(value)).mode;
    assert_eq!(mode(json!({"command": "cat a", "cwd": "notes"})), Auto);
    assert_eq!(mode(json!({"command": "cat a", "cwd": "/"})), Deny);
}

/// A project for the spelling tests, in `root/project`, `root` being
/// the home directory: `notes/`, `scripts/`, `notes/link` a symlink to
/// `../scripts` and `notes/innocent.md` one to `../scripts/run.sh`.
struct Spelled {
    root: tempfile::TempDir,
}

impl Spelled {
    fn new() -> Spelled {
        let root = tempfile::tempdir().unwrap();
        let project = root.path().join("project");
        std::fs::create_dir_all(project.join("notes")).unwrap();
        std::fs::create_dir_all(project.join("scripts")).unwrap();
        std::fs::write(project.join("scripts/run.sh"), "echo hi\n").unwrap();
        std::os::unix::fs::symlink("../scripts", project.join("notes/link")).unwrap();
        std::os::unix::fs::symlink("../scripts/run.sh", project.join("notes/innocent.md")).unwrap();
        Spelled { root }
    }

    fn project(&self) -> std::path::PathBuf {
        self.root.path().join("project")
    }

    /// `policy` reading paths in this project.
    fn within(&self, mut policy: ApprovalPolicy) -> ApprovalPolicy {
        let home = self.root.path().to_str().unwrap().to_owned();
        policy.places = Places::with_home(&self.project(), Some(home));
        policy
    }

    /// Ways to spell `relative` (a path in the project, with a directory)
    /// that the standard tools act on as `relative`.
    fn spellings(&self, relative: &str) -> Vec<String> {
        let (dir, name) = relative.rsplit_once('/').unwrap();
        let (first, _) = relative.split_once('/').unwrap();
        let project = self.project().display().to_string();
        vec![
            relative.to_owned(),
            format!("{relative}/"),
            format!("{relative}/."),
            format!("{relative}//"),
            format!("{relative}/./"),
            relative.replace('/', "//"),
            format!("./{relative}"),
            format!("{dir}/./{name}"),
            format!("{dir}/new/../{name}"),
            format!("{first}/../{relative}"),
            format!(" {relative}\n"),
            format!("{relative}\u{3000}"),
            format!("{project}/{relative}"),
            format!("{project}//{dir}/./{name}/"),
            format!("~/project/{relative}"),
            format!("~//project/{relative}/"),
            format!("../project/{relative}"),
        ]
    }

    fn mode(&self, policy: &ApprovalPolicy, path: &str) -> ApprovalMode {
        policy.decide(&params(json!({"path": path}))).mode
    }
}

/// The policy of docs/security.md, "Approvals".
fn docs_policy() -> ApprovalPolicy {
    ApprovalPolicy::mode("tools.file_write.approval", Ask)
        .with_rule(Auto, when("path", prefix("notes/")))
        .with_rule(Deny, when("path", regex(".*\\.(sh|py)")))
}

// Issue 41, finding 2: `notes/b.sh/` passed the deny rule and the auto
// rule let it through, and the tool wrote `notes/b.sh`.
#[test]
fn every_spelling_of_a_denied_path_is_denied() {
    let spelled = Spelled::new();
    let policy = spelled.within(docs_policy());
    let mut paths = Vec::new();
    for relative in [
        "notes/b.sh",
        "notes/d.py",
        "scripts/run.sh",
        "notes/deep/e.py",
    ] {
        paths.extend(spelled.spellings(relative));
    }
    paths.extend(
        [
            "notes/f.PY",
            "NOTES/G.Sh/",
            "notes/link/h.sh/",
            "notes/link/../notes/i.py/",
            "notes/innocent.md",
            "./notes/innocent.md/",
        ]
        .map(str::to_owned),
    );
    for path in paths {
        assert_eq!(spelled.mode(&policy, &path), Deny, "{path:?}");
    }
}

#[test]
fn every_spelling_of_a_path_under_an_ask_rule_asks() {
    let spelled = Spelled::new();
    let policy = spelled.within(
        ApprovalPolicy::mode("tools.file_write.approval", Auto)
            .with_rule(Ask, when("path", prefix("scripts/")))
            .with_rule(Ask, when("path", ArgumentPattern::exact("settings.yaml"))),
    );
    let mut paths = spelled.spellings("scripts/x.txt");
    paths.extend(spelled.spellings("agent/../settings.yaml"));
    paths.extend(
        [
            "scripts/../scripts/y.txt",
            "SCRIPTS/z.txt",
            "notes/link/w.txt",
            "notes/innocent.md",
            "settings.yaml",
            "./Settings.YAML",
        ]
        .map(str::to_owned),
    );
    for path in paths {
        assert_eq!(spelled.mode(&policy, &path), Ask, "{path:?}");
    }
    assert_eq!(spelled.mode(&policy, "notes/a.md"), Auto);
}

#[test]
fn an_auto_rule_lets_through_only_a_plain_spelling_of_a_path_it_names() {
    let spelled = Spelled::new();
    let policy = spelled.within(docs_policy());
    for path in [
        "notes/a.md",
        "notes/a.md/",
        "notes/a.md/.",
        "notes//a.md",
        "notes/sub/a.md",
        "notes/café.md",
    ] {
        assert_eq!(spelled.mode(&policy, path), Auto, "{path:?}");
    }
    // Each of these falls to the default: it is spelled another way than
    // the rule's prefix, leads elsewhere, or does not read as it is.
    let mut elsewhere = spelled.spellings("notes/a.md");
    elsewhere.retain(|path| !path.starts_with("notes/") || path.contains(".."));
    elsewhere.extend(
        [
            "notes/../a.md",
            "notes/link/a.md",
            "notes/link/",
            "notes/cafe\u{301}.md",
            "notes/a\u{200B}.md",
            "notes/\u{202E}dm.a",
            "n\u{43E}tes/a.md",
            "notes",
            "NOTES/a.md",
        ]
        .map(str::to_owned),
    );
    for path in elsewhere {
        assert_eq!(spelled.mode(&policy, &path), Ask, "{path:?}");
    }
}

#[test]
fn a_rule_that_holds_back_matches_a_chained_command_and_any_case() {
    let policy = ApprovalPolicy::mode(KEY, Auto)
        .with_rule(Deny, when("command", prefix("rm")))
        .with_rule(Deny, when("command", regex("git push.*")));
    for command in [
        "rm -rf x; ls",
        "rm $(pwd)",
        "RM -rf x",
        "GIT PUSH --force",
        "rm",
    ] {
        assert_eq!(mode_of(&policy, command), Deny, "{command}");
    }
    assert_eq!(mode_of(&policy, "rmdir x"), Auto);
}

#[test]
fn a_prefix_reads_a_url_or_a_command_the_way_it_reads_the_value() {
    let spelled = Spelled::new();
    let policy = spelled.within(
        ApprovalPolicy::mode("tools.file_write.approval", Ask)
            .with_rule(Auto, when("url", prefix("https://docs.rs/")))
            .with_rule(Auto, when("command", prefix("ls"))),
    );
    let mode = |value: Value| policy.decide(&params(value)).mode;
    assert_eq!(mode(json!({"url": "https://docs.rs/regex"})), Auto);
    assert_eq!(mode(json!({"url": "https://docs.rs.evil/"})), Ask);
    assert_eq!(mode(json!({"command": "ls -la notes/"})), Auto);
    assert_eq!(mode(json!({"command": "ls /"})), Auto);
}
