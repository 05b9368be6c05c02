//! The tool environment: packages that tool files declare (PEP 723 blocks,
//! `requirements.txt`) installed by real uv and pip into `.riverse/venv`
//! from a loopback package index, before the tools load.

use std::path::{Path, PathBuf};
use std::time::Duration;

use riverse_test_support::index::{PackageIndex, unreachable_index_url};
use riverse_test_support::{McpProcess, Project, eventually};
use serde_json::{Value, json};

use super::command::{Ran, riverse, riverse_in, riverse_with_index, run};

/// A tool file `name.py` whose tool `name` answers with what `body` (Python
/// statements ending in `return ...`) returns, under `header` (a block, or
/// nothing).
fn tool(header: &str, name: &str, body: &str) -> String {
    format!(
        r#"{header}
from agent.tools import BaseTool, ToolManifest, ToolResult


class Tool_{name}(BaseTool):
    def manifest(self):
        return ToolManifest(name="{name}", description="reports what it imports", parameters={{}})

    def execute(self, params):
        return ToolResult(success=True, data=self.answer())

    def answer(self):
{body}
"#
    )
}

fn block(dependencies: &[&str]) -> String {
    let quoted: Vec<String> = dependencies.iter().map(|d| format!("{d:?}")).collect();
    format!(
        "# /// script\n# dependencies = [{}]\n# ///",
        quoted.join(", ")
    )
}

/// A tool whose answer is `module.__version__` and where `module` was found.
fn version_tool(header: &str, name: &str, module: &str) -> String {
    let body = format!(
        "        import {module}\n        return {module}.__version__ + ' ' + {module}.__file__"
    );
    tool(header, name, &body)
}

fn plain_tool(name: &str) -> String {
    tool("", name, "        return 'plain'")
}

fn tools_json(ran: &Ran) -> Vec<Value> {
    let listing: Value = serde_json::from_str(&ran.stdout).expect("tools --json is JSON");
    listing["tools"].as_array().expect("a tools array").clone()
}

fn entry<'a>(tools: &'a [Value], file: &str) -> &'a Value {
    tools
        .iter()
        .find(|entry| {
            entry["source"]["file"]
                .as_str()
                .is_some_and(|shown| shown.ends_with(file))
        })
        .unwrap_or_else(|| panic!("no entry for {file} in {tools:#?}"))
}

fn status(tools: &[Value], file: &str) -> String {
    entry(tools, file)["status"]
        .as_str()
        .unwrap_or("")
        .to_owned()
}

fn error(tools: &[Value], file: &str) -> String {
    entry(tools, file)["error"]
        .as_str()
        .unwrap_or("")
        .to_owned()
}

fn in_environment(project: &Project, answer: &str) -> bool {
    let venv = project.path().join(".riverse/venv");
    let venv = venv.canonicalize().unwrap_or(venv);
    answer.contains(&venv.display().to_string()) || answer.contains(".riverse/venv/")
}

#[test]
fn declared_packages_are_installed_and_a_second_start_installs_nothing() {
    let project = Project::new();
    project
        .tool(
            "dates.py",
            &version_tool(
                &block(&["python-dateutil==2.9.0.post0"]),
                "dates",
                "dateutil",
            ),
        )
        .tool(
            "markup.py",
            &version_tool(&block(&["markupsafe==3.0.2"]), "markup", "markupsafe"),
        )
        .tool("plain.py", &plain_tool("plain"));
    let first = riverse(&project, &["tools", "--json"]);
    first.exits(0);
    let tools = tools_json(&first);
    for file in ["dates.py", "markup.py", "plain.py"] {
        assert_eq!(status(&tools, file), "available", "{file}: {first:#?}");
    }
    assert!(
        first
            .stderr
            .contains("syncing the tool environment .riverse/venv")
            && first.stderr.contains("dates.py, markup.py"),
        "{}",
        first.stderr
    );
    let dates = riverse(&project, &["call", "dates"]);
    assert!(
        dates.stdout.starts_with("2.9.0") && in_environment(&project, &dates.stdout),
        "{dates:#?}"
    );
    // The C extension was installed as its wheel, and is what was imported.
    let speedups = tool(
        "",
        "speedups",
        "        import markupsafe._speedups as s\n        return s.__file__",
    );
    project.tool("speedups.py", &speedups);
    let ran = riverse(&project, &["call", "speedups"]);
    assert!(
        ran.stdout.contains(".so") && in_environment(&project, &ran.stdout),
        "{ran:#?}"
    );

    // Nothing declared changed: no installer runs, so an index that can't be
    // reached changes nothing.
    let again = run(riverse_with_index(
        project.path(),
        &["tools", "--json"],
        &unreachable_index_url(),
    ));
    let tools = tools_json(&again);
    for file in ["dates.py", "markup.py", "plain.py", "speedups.py"] {
        assert_eq!(status(&tools, file), "available", "{file}: {again:#?}");
    }
    assert!(!again.stderr.contains("syncing"), "{}", again.stderr);
}

#[test]
fn a_package_the_index_refuses_fails_only_the_file_that_asked() {
    let project = Project::new();
    project
        .tool(
            "typo.py",
            &version_tool(&block(&["reqeusts-no-such-package"]), "typo", "requests"),
        )
        .tool(
            "six_user.py",
            &version_tool(&block(&["six==1.17.0"]), "six_user", "six"),
        )
        .tool("plain.py", &plain_tool("plain"));
    let ran = riverse(&project, &["tools", "--json"]);
    let tools = tools_json(&ran);
    assert_eq!(status(&tools, "typo.py"), "error", "{ran:#?}");
    let why = error(&tools, "typo.py");
    assert!(
        why.starts_with("can't install reqeusts-no-such-package (typo.py)\n")
            && why
                .lines()
                .skip(1)
                .any(|line| line.contains("reqeusts-no-such-package")),
        "{why}"
    );
    assert_eq!(status(&tools, "six_user.py"), "available", "{ran:#?}");
    assert_eq!(status(&tools, "plain.py"), "available", "{ran:#?}");
    let six = riverse(&project, &["call", "six_user"]);
    assert!(six.stdout.starts_with("1.17.0"), "{six:#?}");

    // `riverse sync` says the same and fails; the next start tries again.
    let sync = riverse(&project, &["sync"]);
    sync.exits(1);
    assert!(
        sync.stderr
            .contains("typo.py: can't install reqeusts-no-such-package"),
        "{sync:#?}"
    );
    assert!(sync.stdout.contains("1 file not met"), "{sync:#?}");
}

#[test]
fn of_two_files_asking_for_versions_that_cannot_go_together_the_second_fails_naming_the_first() {
    let project = Project::new();
    project
        .tool(
            "a_old.py",
            &version_tool(&block(&["six==1.16.0"]), "old", "six"),
        )
        .tool(
            "b_new.py",
            &version_tool(&block(&["six==1.17.0"]), "new", "six"),
        );
    let ran = riverse(&project, &["tools", "--json"]);
    let tools = tools_json(&ran);
    assert_eq!(status(&tools, "a_old.py"), "available", "{ran:#?}");
    assert_eq!(status(&tools, "b_new.py"), "error", "{ran:#?}");
    let why = error(&tools, "b_new.py");
    assert!(
        why.starts_with("can't install six==1.17.0 beside what a_old.py declares (b_new.py)")
            && why.contains("six==1.16.0"),
        "{why}"
    );
    assert!(
        riverse(&project, &["call", "old"])
            .stdout
            .starts_with("1.16.0")
    );
}

#[test]
fn an_unreachable_index_fails_the_declaring_tools_and_the_rest_load() {
    let project = Project::new();
    project
        .tool(
            "needs.py",
            &version_tool(&block(&["six==1.17.0"]), "needs", "six"),
        )
        .tool("plain.py", &plain_tool("plain"));
    let ran = run(riverse_with_index(
        project.path(),
        &["tools", "--json"],
        &unreachable_index_url(),
    ));
    let tools = tools_json(&ran);
    assert_eq!(status(&tools, "plain.py"), "available", "{ran:#?}");
    assert_eq!(status(&tools, "needs.py"), "error", "{ran:#?}");
    let why = error(&tools, "needs.py");
    assert!(
        why.starts_with("can't install six==1.17.0 (needs.py)\n"),
        "{why}"
    );
    assert!(
        why.to_lowercase().contains("refused"),
        "the reason says the index refused: {why}"
    );
    // Once the index is back, the next start installs what was missing.
    let ran = riverse(&project, &["tools", "--json"]);
    assert_eq!(
        status(&tools_json(&ran), "needs.py"),
        "available",
        "{ran:#?}"
    );
}

#[test]
fn requirements_txt_beside_the_tools_is_installed_for_all_of_them() {
    let project = Project::new();
    project
        .file(
            "agent/tools/requirements.txt",
            "# shared by the tools\nsix==1.16.0\n",
        )
        .tool("uses_six.py", &version_tool("", "uses_six", "six"));
    let ran = riverse(&project, &["call", "uses_six"]);
    assert!(
        ran.stdout.starts_with("1.16.0") && in_environment(&project, &ran.stdout),
        "{ran:#?}"
    );
    // A requirement that can't be met is an error row of its own.
    project.file(
        "agent/tools/requirements.txt",
        "six==1.16.0\nno-such-package-here\n",
    );
    let ran = riverse(&project, &["tools", "--json"]);
    let tools = tools_json(&ran);
    let why = error(&tools, "requirements.txt");
    assert!(
        why.starts_with("can't install the packages of requirements.txt"),
        "{ran:#?}"
    );
    assert!(why.contains("no-such-package-here"), "{why}");
}

#[test]
fn pip_makes_the_environment_when_asked_to() {
    let project = Project::new();
    project.settings("python: {installer: pip}\n").tool(
        "dates.py",
        &version_tool(
            &block(&["python-dateutil==2.9.0.post0"]),
            "dates",
            "dateutil",
        ),
    );
    let ran = riverse(&project, &["call", "dates"]);
    assert!(
        ran.stdout.starts_with("2.9.0") && in_environment(&project, &ran.stdout),
        "{ran:#?}"
    );
    assert!(
        ran.stderr.contains("with pip for dates.py"),
        "{}",
        ran.stderr
    );
    let tools = riverse(&project, &["tools"]);
    assert!(
        tools.stdout.contains(
            "tool environment .riverse/venv (pip): python-dateutil==2.9.0.post0 (dates.py)"
        ),
        "{tools:#?}"
    );
}

/// Makes `project` run its tools on a fresh interpreter of its own, with no
/// package beyond the standard library (`clean/`), and returns its
/// site-packages directory.
fn clean_interpreter(project: &Project, settings: &str) -> PathBuf {
    let clean = project.path().join("clean");
    let made = std::process::Command::new("python3")
        .args(["-m", "venv", "--without-pip"])
        .arg(&clean)
        .output()
        .unwrap();
    assert!(made.status.success(), "{made:?}");
    project.settings(&format!(
        "python: {{interpreter: clean/bin/python{settings}}}\n"
    ));
    let lib = std::fs::read_dir(clean.join("lib"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    lib.path().join("site-packages")
}

#[test]
fn a_missing_import_names_the_package_and_the_block_to_paste_and_installs_nothing() {
    let project = Project::new();
    clean_interpreter(&project, "");
    project.tool("page.py", "import bs4\nfrom agent.tools import BaseTool\n");
    let ran = riverse(&project, &["tools", "--json"]);
    let why = error(&tools_json(&ran), "page.py");
    assert_eq!(
        why,
        "import failed: ModuleNotFoundError: No module named 'bs4' (page.py:1)\n\
         'bs4' is most likely in the package beautifulsoup4: declare it at the top of page.py, and Riverse installs it:\n\
         # /// script\n\
         # dependencies = [\"beautifulsoup4\"]\n\
         # ///"
    );
    assert!(!project.path().join(".riverse/venv").exists());

    // A tool that imports at its call is told the same in its failure.
    project.tool(
        "chat_bot.py",
        &tool(
            "",
            "chat_bot",
            "        import telegram\n        return 'sent'",
        ),
    );
    let ran = riverse(&project, &["call", "chat_bot"]);
    ran.exits(1);
    assert!(
        ran.stderr.contains(
            "'telegram' is most likely in the package python-telegram-bot: declare it at the top of chat_bot.py"
        ),
        "{ran:#?}"
    );
}

#[test]
fn with_dependencies_off_nothing_is_installed() {
    let project = Project::new();
    clean_interpreter(&project, ", dependencies: off");
    project.tool(
        "needs.py",
        &format!(
            "{}\nimport six\nfrom agent.tools import BaseTool\n",
            block(&["six==1.17.0"])
        ),
    );
    let ran = riverse(&project, &["tools"]);
    assert!(
        ran.stdout
            .contains("python.dependencies is off: what the tool files declare is not installed"),
        "{ran:#?}"
    );
    assert!(
        ran.stdout.contains(
            "needs.py declares six: Riverse installs it when python.dependencies is auto (riverse sync)"
        ),
        "{ran:#?}"
    );
    assert!(!project.path().join(".riverse/venv").exists());
}

#[test]
fn the_interpreters_own_packages_stay_importable_beneath_the_environment() {
    let project = Project::new();
    let site = clean_interpreter(&project, "");
    // A package of the interpreter's, and one its own `.pth` file adds (as an
    // editable install does).
    std::fs::write(site.join("base_only.py"), "WHERE = 'base'\n").unwrap();
    let linked = project.path().join("linked");
    std::fs::create_dir_all(&linked).unwrap();
    std::fs::write(linked.join("from_pth.py"), "WHERE = 'pth'\n").unwrap();
    std::fs::write(site.join("linked.pth"), format!("{}\n", linked.display())).unwrap();
    let body = "        import base_only, from_pth, six\n        \
                return base_only.WHERE + ' ' + from_pth.WHERE + ' ' + six.__file__";
    project
        .tool(
            "six_user.py",
            &version_tool(&block(&["six==1.17.0"]), "six_user", "six"),
        )
        .tool("undeclared.py", &tool("", "undeclared", body));
    let ran = riverse(&project, &["call", "undeclared"]);
    assert!(
        ran.stdout.starts_with("base pth ") && in_environment(&project, &ran.stdout),
        "{ran:#?}"
    );
}

#[test]
fn the_seed_weather_tool_gets_requests_on_a_fresh_project() {
    let project = Project::new();
    riverse(&project, &["init", "demo"]).exits(0);
    let demo = project.path().join("demo");
    let ran = run(riverse_in(&demo, &["tools", "--json"]));
    let tools = tools_json(&ran);
    assert_eq!(status(&tools, "weather.py"), "available", "{ran:#?}");
    assert!(
        demo.join(".riverse/venv/riverse-environment.json")
            .is_file(),
        "{ran:#?}"
    );
    let requests = run(python_in(
        &demo,
        "import requests; print(requests.__file__)",
    ));
    assert!(requests.stdout.contains(".riverse/venv/"), "{requests:#?}");
}

/// The environment's interpreter running `code`.
fn python_in(project: &Path, code: &str) -> std::process::Command {
    let mut command = std::process::Command::new(project.join(".riverse/venv/bin/python"));
    command.args(["-c", code]);
    command
}

/// The text of a `tools/call` answer.
fn call(session: &mut McpProcess, name: &str) -> String {
    session.call(name, json!({})).1
}

#[test]
fn hot_reload_syncs_a_changed_declaration_before_the_new_tools_start() {
    let project = Project::new();
    let file =
        |version: &str| version_tool(&block(&[&format!("six=={version}")]), "six_version", "six");
    project.tool("six_version.py", &file("1.16.0"));
    let mut command = riverse_in(project.path(), &["mcp"]);
    command.env("UV_INDEX_URL", PackageIndex::shared().url());
    let mut session = McpProcess::start(command);
    assert!(call(&mut session, "six_version").starts_with("1.16.0"));
    project.tool("six_version.py", &file("1.17.0"));
    eventually(Duration::from_secs(60), "six 1.17.0 after the edit", || {
        let answer = call(&mut session, "six_version");
        if answer.starts_with("1.17.0") {
            Ok(())
        } else {
            Err(format!("{answer:?}"))
        }
    });
    session.close();
}

/// The inode of the environment's `pyvenv.cfg`, which making it again replaces.
/// Leaves a file in the environment, which a rebuild (from an empty
/// directory) removes: an inode number may be reused, a file can't come back.
fn mark_venv(project: &Project) -> PathBuf {
    let mark = project.path().join(".riverse/venv/riverse-test-mark");
    std::fs::write(&mark, "made before").expect("the environment was made");
    mark
}

/// Issue 49: `riverse mcp` started by a host whose `PATH` finds another
/// `python3` rebuilt the environment, and `serve` rebuilt it back. It keeps
/// the interpreter it was made from until `python.interpreter` names another.
#[test]
fn the_environment_keeps_its_interpreter_under_another_path_until_the_setting_names_another() {
    let project = Project::new();
    project.tool(
        "markup.py",
        &version_tool(&block(&["markupsafe==3.0.2"]), "markup", "markupsafe"),
    );
    riverse(&project, &["tools", "--json"]).exits(0);
    let mark = mark_venv(&project);
    // Another interpreter first on `PATH`: a virtual environment's `python3`.
    let other = project.path().join("other");
    let created = std::process::Command::new("python3")
        .args(["-m", "venv", "--without-pip"])
        .arg(&other)
        .output()
        .unwrap();
    assert!(created.status.success(), "{created:?}");
    let path = std::env::join_paths(std::iter::once(other.join("bin")).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let mut command = riverse_in(project.path(), &["call", "markup"]);
    command.env("PATH", &path);
    let ran = run(command);
    assert!(
        ran.stdout.starts_with("3.0.2") && in_environment(&project, &ran.stdout),
        "{ran:#?}"
    );
    assert!(!ran.stderr.contains("syncing"), "{}", ran.stderr);
    assert!(mark.exists(), "the environment was made again");

    project.settings("python: {interpreter: other/bin/python3}\n");
    let ran = riverse(&project, &["call", "markup"]);
    assert!(
        ran.stdout.starts_with("3.0.2") && in_environment(&project, &ran.stdout),
        "{ran:#?}"
    );
    assert!(ran.stderr.contains("syncing"), "{}", ran.stderr);
    assert!(!mark.exists(), "the environment was not made again");
}
