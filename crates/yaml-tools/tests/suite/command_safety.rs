//! Command agents against values that try to become options, script or a
//! protected path (issue 21: H3, H4, C2).

use std::path::PathBuf;

use pretty_assertions::assert_eq;
use riverse_tool::{Registry, Status, ToolResult};
use riverse_yaml_tools::AgentsOptions;
use serde_json::json;

use super::support::{call, options, project, registry, write};

/// A project with `scripts/args.py` (prints its arguments as JSON) and the
/// agents `yaml`.
fn agents(yaml: &str) -> (tempfile::TempDir, Registry) {
    let project = project(yaml);
    write(
        project.path(),
        "scripts/args.py",
        "import json, sys\nprint(json.dumps(sys.argv[1:]))\n",
    );
    let registry = registry(&options(project.path(), "en"));
    (project, registry)
}

fn git_repo(root: &std::path::Path) {
    let git = |args: &[&str]| {
        let status = std::process::Command::new("git")
            .args(args)
            .current_dir(root)
            .output()
            .unwrap();
        assert!(status.status.success(), "git {args:?}: {status:?}");
    };
    git(&["init", "-q", "."]);
    write(root, "notes.txt", "hello\n");
    git(&["add", "notes.txt"]);
    git(&[
        "-c",
        "user.email=a@b",
        "-c",
        "user.name=a",
        "commit",
        "-qm",
        "init",
    ]);
}

const GIT_AGENTS: &str = r#"
agents:
  - {name: gitlog, type: command, parameters: {ref: branch}, command: {template: "git log -n 3 --oneline {ref}"}}
  - {name: gitgrep, type: command, parameters: {pattern: p, dir: d}, command: {template: "git grep -n {pattern} -- {dir}"}}
  - {name: gitlog_shell, type: command, parameters: {ref: branch}, command: {template: "git log -n 3 --oneline {ref}", shell: true}}
"#;

#[tokio::test]
async fn a_value_that_would_be_an_option_is_refused_in_every_form() {
    let (project, registry) = agents(GIT_AGENTS);
    git_repo(project.path());
    let written = project.path().join("written");
    let ran = project.path().join("ran");
    for (tool, params) in [
        (
            "gitlog",
            json!({"ref": format!("--output={}", written.display())}),
        ),
        (
            "gitlog",
            json!({"ref": format!("--output {}", written.display())}),
        ),
        (
            "gitlog_shell",
            json!({"ref": format!("--output={}", written.display())}),
        ),
        (
            "gitgrep",
            json!({"pattern": format!("-Otouch {};", ran.display()), "dir": "."}),
        ),
        (
            "gitgrep",
            json!({"pattern": format!("--open-files-in-pager=touch {}", ran.display())}),
        ),
        ("gitgrep", json!({"pattern": "-e", "dir": "."})),
    ] {
        let result = call(&registry, tool, params.clone()).await;
        assert!(!result.success, "{tool} {params}: {result:?}");
        assert!(
            result.error.contains("would be read as an option"),
            "{tool} {params}: {}",
            result.error
        );
    }
    assert!(!written.exists());
    assert!(!ran.exists());
    // The ordinary use still works, and after a literal `--` a dash is an
    // operand: git searches the path "-x" rather than reading an option.
    let log = call(&registry, "gitlog", json!({"ref": "HEAD"})).await;
    assert!(log.success && log.data.ends_with("init"), "{log:?}");
    let grep = call(
        &registry,
        "gitgrep",
        json!({"pattern": "hello", "dir": "-x"}),
    )
    .await;
    assert_eq!(grep.error, "\"git\" exited with status 1");
}

#[tokio::test]
async fn an_option_split_over_two_placeholders_is_refused_at_its_first_word() {
    let (project, registry) = agents(
        r#"
agents:
  - {name: two, type: command, parameters: {a: a, b: b}, command: {template: "python3 scripts/args.py {a} {b}"}}
  - {name: glued, type: command, parameters: {a: a, b: b}, command: {template: "python3 scripts/args.py {a}{b}"}}
"#,
    );
    let out = project.path().join("out").display().to_string();
    let result = call(&registry, "two", json!({"a": "--output", "b": out})).await;
    assert!(result.error.contains("\"a\""), "{result:?}");
    // An empty first value leaves the second to begin the argument.
    let result = call(&registry, "glued", json!({"a": "", "b": "-xVALUE"})).await;
    assert!(result.error.contains("\"b\""), "{result:?}");
    // A dash inside a value, or a value that only looks like a negative
    // number without a dash, is an argument.
    assert_eq!(
        call(&registry, "two", json!({"a": "a-b", "b": "x -y"})).await,
        ToolResult::ok(r#"["a-b", "x -y"]"#)
    );
}

#[tokio::test]
async fn allow_options_lets_the_named_parameters_begin_with_a_dash() {
    let (_project, registry) = agents(
        r#"
agents:
  - {name: some, type: command, parameters: {flag: f, arg: a}, command: {template: "python3 scripts/args.py {flag} {arg}", allow_options: [flag]}}
  - {name: all, type: command, parameters: {flag: f, arg: a}, command: {template: "python3 scripts/args.py {flag} {arg}", allow_options: true}}
  - {name: listed, type: command, parameters: {flag: f}, command: {template: "python3 scripts/args.py {flag}", allowed_params: {flag: ["-v", "-q"]}}}
"#,
    );
    assert_eq!(
        call(&registry, "some", json!({"flag": "-v", "arg": "x"})).await,
        ToolResult::ok(r#"["-v", "x"]"#)
    );
    assert!(
        !call(&registry, "some", json!({"flag": "-v", "arg": "-x"}))
            .await
            .success
    );
    assert_eq!(
        call(&registry, "all", json!({"flag": "-v", "arg": "--x=1"})).await,
        ToolResult::ok(r#"["-v", "--x=1"]"#)
    );
    assert_eq!(
        call(&registry, "listed", json!({"flag": "-q"})).await,
        ToolResult::ok(r#"["-q"]"#)
    );
}

/// Values that try to leave the template's quotes in a shell.
fn shell_attacks(marker: &std::path::Path) -> Vec<String> {
    let m = marker.display();
    vec![
        format!("$(touch {m}1)"),
        format!("`touch {m}2`"),
        format!("\"; touch {m}3; echo \""),
        format!("'; touch {m}4; echo '"),
        format!("${{IFS}}touch${{IFS}}{m}5"),
        format!("x\ntouch {m}6"),
        format!("'\"$(touch {m}7)\"'"),
        format!("\\\"; touch {m}8 #"),
        "$((6*7)) ${HOME} * ~".to_owned(),
    ]
}

#[tokio::test]
async fn a_shell_template_passes_values_as_data_whatever_quotes_surround_them() {
    let (project, registry) = agents(
        r#"
agents:
  - {name: dq, type: command, parameters: {name: n}, command: {template: 'printf "%s\n" "Hello {name}!"', shell: true}}
  - {name: sq, type: command, parameters: {name: n}, command: {template: "printf '%s\\n' '<{name}>'", shell: true}}
  - {name: bare, type: command, parameters: {name: n}, command: {template: "printf '%s\\n' x{name}y", shell: true}}
  - {name: twice, type: command, parameters: {name: n}, command: {template: "printf '%s|%s\\n' {name} \"{name}\"; true", shell: true}}
"#,
    );
    let marker = project.path().join("PWNED");
    for value in shell_attacks(&marker) {
        for (tool, expected) in [
            ("dq", format!("Hello {value}!")),
            ("sq", format!("<{value}>")),
            ("bare", format!("x{value}y")),
            ("twice", format!("{value}|{value}")),
        ] {
            assert_eq!(
                call(&registry, tool, json!({"name": value})).await,
                ToolResult::ok(expected.trim()),
                "{tool} with {value:?}"
            );
        }
    }
    let created: Vec<_> = std::fs::read_dir(project.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .filter(|name| name.to_string_lossy().starts_with("PWNED"))
        .collect();
    assert!(created.is_empty(), "{created:?}");
    // A missing value's placeholder is removed, as before.
    assert_eq!(
        call(&registry, "dq", json!({})).await,
        ToolResult::ok("Hello !")
    );
}

fn load_errors(yaml: &str) -> Vec<(String, Status, Option<String>)> {
    let project = project(yaml);
    registry(&options(project.path(), "en"))
        .entries()
        .iter()
        .map(|entry| {
            (
                entry.name().unwrap_or_default().to_owned(),
                entry.status(),
                entry.error().map(str::to_owned),
            )
        })
        .collect()
}

#[test]
fn templates_that_hand_a_value_to_an_interpreter_are_refused_when_they_load() {
    let rows = load_errors(
        r#"
agents:
  - {name: shc, type: command, parameters: {x: x}, command: {template: "sh -c 'echo hi {x}'"}}
  - {name: envsh, type: command, parameters: {x: x}, command: {template: "env LANG=C /bin/bash -lc \"echo {x}\""}}
  - {name: pyc, type: command, parameters: {x: x}, command: {template: "python3 -c 'print({x})'"}}
  - {name: xargs, type: command, parameters: {x: x}, command: {template: "xargs -0 sh -c {x}"}}
  - {name: nested, type: command, parameters: {x: x}, command: {template: "bash -c 'echo {x}'", shell: true}}
  - {name: evals, type: command, parameters: {x: x}, command: {template: "eval echo {x}", shell: true}}
  - {name: piped, type: command, parameters: {x: x}, command: {template: "echo hi | sh -c {x}", shell: true}}
  - {name: subst, type: command, parameters: {x: x}, command: {template: "echo $(echo {x})", shell: true}}
  - {name: program, type: command, parameters: {x: x}, command: {template: "{x} --help"}}
  - {name: allowed, type: command, parameters: {x: x}, command: {template: "sh -c 'echo hi {x}'", allow_interpreter: true}}
  - {name: positional, type: command, parameters: {x: x}, command: {template: "sh -c 'echo \"$1\"' sh {x}"}}
"#,
    );
    let file = "agent/config/agents_en.yaml";
    for (index, (name, status, error)) in rows.iter().enumerate().take(9) {
        assert_eq!(*status, Status::Error, "{name}");
        let error = error.as_deref().unwrap();
        assert!(
            error.starts_with(&format!(
                "{file}: agents[{index}] \"{name}\": command.template: "
            )),
            "{error}"
        );
    }
    assert!(rows[0].2.as_deref().unwrap().ends_with(
        "sh runs its argument as code, and parameter \"x\" would reach it; set allow_interpreter: true if that is intended"
    ));
    assert_eq!(rows[9].1, Status::Available);
    assert_eq!(rows[10].1, Status::Available);
}

#[tokio::test]
async fn a_shell_run_with_its_value_as_a_positional_parameter_stays_data() {
    let (project, registry) = agents(
        "agents:\n  - {name: positional, type: command, parameters: {x: x}, command: {template: \"sh -c 'echo \\\"$1\\\"' sh {x}\"}}\n",
    );
    let marker = project.path().join("PWNED");
    let value = format!("$(touch {})", marker.display());
    assert_eq!(
        call(&registry, "positional", json!({"x": value})).await,
        ToolResult::ok(value.clone())
    );
    assert!(!marker.exists());
}

fn protected(project: &std::path::Path, yaml_agents: &str) -> Registry {
    write(project, "agent/config/agents_en.yaml", yaml_agents);
    let options = AgentsOptions {
        protected_paths: vec![
            PathBuf::from("settings.yaml"),
            PathBuf::from("agent/tools"),
            project.join(".riverse"),
        ],
        ..options(project, "en")
    };
    registry(&options)
}

#[tokio::test]
async fn a_value_naming_a_protected_path_is_refused_however_it_is_spelled() {
    let project = tempfile::tempdir().unwrap();
    let root = project.path();
    write(root, "settings.yaml", "serve: {token: secret}\n");
    write(root, "agent/tools/weather.py", "# a tool\n");
    write(root, ".riverse/riverse.db", "db");
    write(root, "notes/readme.txt", "notes\n");
    std::os::unix::fs::symlink(root.join("agent/tools"), root.join("notes/tools_link")).unwrap();
    std::os::unix::fs::symlink(root.join("settings.yaml"), root.join("notes/s")).unwrap();
    let registry = protected(
        root,
        r#"
agents:
  - {name: show, type: command, parameters: {file: f}, command: {template: "cat {file}"}}
  - {name: copy, type: command, parameters: {from: f, to: t}, command: {template: "cp {from} {to}"}}
  - {name: dd, type: command, parameters: {to: t}, command: {template: "dd if=notes/readme.txt {to} status=none"}}
  - {name: show_in, type: command, parameters: {dir: d}, command: {template: "cat {dir}/settings.yaml"}}
  - {name: show_shell, type: command, parameters: {file: f}, command: {template: "cat {file}", shell: true}}
  - {name: show_in_shell, type: command, parameters: {dir: d}, command: {template: "cat {dir}/settings.yaml", shell: true}}
  - {name: write_shell, type: command, parameters: {f: f}, command: {template: "echo pwned > notes/{f}", shell: true}}
"#,
    );
    let refused = |result: &ToolResult, what: &str| {
        assert!(!result.success, "{what}: {result:?}");
        assert!(
            result.error.contains("inside the protected path"),
            "{what}: {}",
            result.error
        );
    };
    for file in [
        "settings.yaml".to_owned(),
        "./settings.yaml".to_owned(),
        "notes/../settings.yaml".to_owned(),
        "notes/s".to_owned(),
        root.join("settings.yaml").display().to_string(),
        "agent/tools/weather.py".to_owned(),
        "notes/tools_link/weather.py".to_owned(),
        ".riverse/riverse.db".to_owned(),
    ] {
        refused(&call(&registry, "show", json!({"file": file})).await, &file);
        refused(
            &call(&registry, "show_shell", json!({"file": file})).await,
            &file,
        );
    }
    // Writing a new file into a protected folder, directly or through a
    // link, and a path after `=`.
    for to in [
        "agent/tools/pwn.py",
        "notes/tools_link/pwn.py",
        "nowhere/../agent/tools/pwn.py",
    ] {
        refused(
            &call(
                &registry,
                "copy",
                json!({"from": "notes/readme.txt", "to": to}),
            )
            .await,
            to,
        );
    }
    refused(
        &call(&registry, "dd", json!({"to": "of=agent/tools/pwn.py"})).await,
        "of=",
    );
    refused(
        &call(&registry, "show_in", json!({"dir": "."})).await,
        "the filled argument",
    );
    // With a shell, the word a value ends up in counts, redirection targets
    // included.
    refused(
        &call(&registry, "show_in_shell", json!({"dir": "."})).await,
        "the filled shell word",
    );
    refused(
        &call(
            &registry,
            "write_shell",
            json!({"f": "../agent/tools/pwn.py"}),
        )
        .await,
        "the redirection target",
    );
    assert!(!root.join("agent/tools/pwn.py").exists());
    // Other paths are not affected.
    assert_eq!(
        call(&registry, "show", json!({"file": "notes/readme.txt"})).await,
        ToolResult::ok("notes")
    );
    assert_eq!(
        call(
            &registry,
            "copy",
            json!({"from": "notes/readme.txt", "to": "notes/copy.txt"})
        )
        .await,
        ToolResult::ok("")
    );
}

#[test]
fn a_value_behind_a_literal_code_option_or_a_wrapper_operand_is_refused_when_it_loads() {
    let rows = load_errors(
        r#"
agents:
  - {name: sed2, type: command, parameters: {x: x}, command: {template: "sed -e s/a/b/ -e {x} file"}}
  - {name: perl2, type: command, parameters: {x: x}, command: {template: "perl -e1 -e {x}"}}
  - {name: awk2, type: command, parameters: {x: x}, command: {template: "awk -f a.awk -f {x}"}}
  - {name: watch, type: command, parameters: {x: x}, command: {template: "watch -n 1 echo {x}"}}
  - {name: flock, type: command, parameters: {x: x}, command: {template: "flock /tmp/lock -c {x}"}}
  - {name: chroot, type: command, parameters: {x: x}, command: {template: "chroot / sh -c {x}"}}
  - {name: prog, type: command, parameters: {prog: p, x: x}, command: {template: "{prog} -c {x}", allowed_params: {prog: [ls, bash]}}}
  - {name: sed_ok, type: command, parameters: {x: x}, command: {template: "sed -e s/a/b/ {x}"}}
  - {name: flock_ok, type: command, parameters: {x: x}, command: {template: "flock /tmp/lock grep -n {x} file"}}
  - {name: prog_ok, type: command, parameters: {prog: p, x: x}, command: {template: "{prog} -l {x}", allowed_params: {prog: [ls, cat]}}}
"#,
    );
    for (name, status, error) in &rows[..7] {
        assert_eq!(*status, Status::Error, "{name}");
        assert!(
            error
                .as_deref()
                .unwrap()
                .contains("runs its argument as code"),
            "{name}: {error:?}"
        );
    }
    for (name, status, error) in &rows[7..] {
        assert_eq!(*status, Status::Available, "{name}: {error:?}");
    }
}

#[tokio::test]
async fn a_dash_after_finds_double_dash_is_still_an_option() {
    let (project, registry) = agents(
        "agents:\n  - {name: find, type: command, parameters: {x: x}, command: {template: \"find -- {x}\"}}\n",
    );
    let result = call(&registry, "find", json!({"x": "-delete"})).await;
    assert!(
        result.error.contains("would be read as an option"),
        "{result:?}"
    );
    assert!(project.path().join("scripts/args.py").exists());
    assert_eq!(
        call(&registry, "find", json!({"x": "scripts"})).await,
        ToolResult::ok("scripts\nscripts/args.py")
    );
}

#[tokio::test]
async fn a_value_longer_than_any_path_is_left_to_the_program_and_one_at_the_limit_is_checked() {
    let project = tempfile::tempdir().unwrap();
    write(project.path(), "settings.yaml", "serve: {token: secret}\n");
    let registry = protected(
        project.path(),
        "agents:\n  - {name: show, type: command, parameters: {file: f}, command: {template: \"cat {file}\"}}\n",
    );
    // Longer than any path the kernel opens (resolving it name by name
    // would cost minutes, so it is not resolved): the program can't open
    // it, even when it spells a protected file.
    for file in [
        "a/".repeat(50_000),
        format!("{}settings.yaml", "./".repeat(3_000)),
    ] {
        let result = call(&registry, "show", json!({"file": file})).await;
        assert!(
            result.error.starts_with("\"cat\" exited with status 1")
                && !result.data.contains("secret"),
            "{}",
            &result.error[..200.min(result.error.len())]
        );
    }
    // A value at the limit is still resolved and refused.
    let file = format!("{}settings.yaml", "./".repeat(2_000));
    assert!(file.len() <= 4096);
    let result = call(&registry, "show", json!({"file": file})).await;
    assert!(
        result.error.contains("inside the protected path"),
        "{}",
        &result.error[..200.min(result.error.len())]
    );
}

#[tokio::test]
async fn a_shell_template_that_rebinds_its_positional_parameters_is_refused_when_it_loads() {
    let project = project(
        r#"
agents:
  - {name: rebind, type: command, parameters: {x: x}, command: {template: "set -- -n; printf '%s' {x}", shell: true}}
  - {name: function, type: command, parameters: {x: x}, command: {template: "f() { printf '%s' \"$1\"; }; f other; printf '%s' {x}", shell: true}}
  - {name: plain, type: command, parameters: {x: x}, command: {template: "set -e; printf '%s' {x}", shell: true}}
"#,
    );
    let registry = registry(&options(project.path(), "en"));
    let entries = registry.entries();
    for (index, name) in ["rebind", "function"].iter().enumerate() {
        assert_eq!(entries[index].status(), Status::Error, "{name}");
        let error = entries[index].error().unwrap();
        assert!(
            error.starts_with(&format!(
                "agent/config/agents_en.yaml: agents[{index}] \"{name}\": command.template: the script sets the positional parameters"
            )),
            "{error}"
        );
    }
    assert_eq!(
        call(&registry, "plain", json!({"x": "a b"})).await,
        ToolResult::ok("a b")
    );
}
