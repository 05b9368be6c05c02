//! Skills served over MCP by the skills extension (SEP-2640, issue 44):
//! `riverse mcp` on stdio and over HTTP, and `riverse serve`'s `/mcp`, read
//! by the official MCP Python SDK's client (`mcp_skills_client.py`; the SDK
//! has no helper for `skills/list` and `skills/get`, so those go as plain
//! requests through its session).

use nix::sys::signal::Signal;
use pretty_assertions::assert_eq;
use riverse_test_support::openai::{OpenAiServer, ev_text, ev_tool_call, ev_tool_calls};
use riverse_test_support::venv::mcp_python;
use riverse_test_support::{Project, fixture};
use serde_json::{Value, json};

use super::serve::Server;

const SKILL_MD: &str = "---\nname: pdf-forms\ndescription: Fill in PDF forms\nlicense: MIT\nmetadata: {version: \"2\"}\n---\n\n# Filling forms\n\nRead references/fields.md first.\n";

/// A project with a SKILL.md folder (and a link in it that leads out), a
/// YAML skill, a skill named in Japanese, and one whose name the Agent
/// Skills rules refuse (`explain_code`).
fn project() -> Project {
    let project = Project::new();
    project
        .file("agent/skills/pdf-forms/SKILL.md", SKILL_MD)
        .file("agent/skills/pdf-forms/references/fields.md", "Name, date, signature.\n")
        .file(
            "agent/skills/packing.yaml",
            "name: packing\ndescription: What to pack for a trip\ninstruction: List what to pack.\n",
        )
        .file(
            "agent/skills/weather.yaml",
            "name: 天気\ndescription: 天気を答える\ninstruction: 天気を調べて答える。\n",
        )
        .file(
            "agent/skills/explain_code.yaml",
            "name: explain_code\ndescription: Explain code\ninstruction: Explain it.\n",
        )
        .file("secret.txt", "not for clients\n");
    std::os::unix::fs::symlink(
        project.path().join("secret.txt"),
        project
            .path()
            .join("agent/skills/pdf-forms/references/leak.md"),
    )
    .unwrap();
    project
}

/// Runs `mcp_skills_client.py` with `plan` from `project`'s directory.
fn skills_client(project: &Project, plan: &Value) -> Vec<Value> {
    let plan_file = project.path().join("skills-plan.json");
    std::fs::write(&plan_file, plan.to_string()).unwrap();
    let client = project.path().join("mcp_skills_client.py");
    std::fs::write(&client, fixture("mcp_skills_client.py")).unwrap();
    let output = std::process::Command::new(mcp_python())
        .arg(&client)
        .arg(&plan_file)
        .env("NO_PROXY", "127.0.0.1,localhost")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the sdk client failed:\n{stdout}\n{stderr}"
    );
    let seen: Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|err| panic!("{err}: {stdout}\n{stderr}"));
    seen.as_array().unwrap().clone()
}

fn stdio(project: &Project, mode: &str, steps: Value) -> Value {
    json!({
        "command": [env!("CARGO_BIN_EXE_riverse"), "--dir", project.path(), "mcp"],
        "mode": mode,
        "steps": steps,
    })
}

fn sha256(bytes: &[u8]) -> String {
    riverse_skills::digest(bytes)
}

/// The entry the extension lists for `pdf-forms`, computed from the files.
fn pdf_forms_entry() -> Value {
    let fields = b"Name, date, signature.\n";
    json!({
        "uri": "skill://pdf-forms/SKILL.md",
        "frontmatter": {
            "name": "pdf-forms",
            "description": "Fill in PDF forms",
            "license": "MIT",
            "metadata": {"version": "2"},
        },
        "resources": [
            {"uri": "skill://pdf-forms/SKILL.md", "digest": sha256(SKILL_MD.as_bytes()), "size": SKILL_MD.len()},
            {"uri": "skill://pdf-forms/references/fields.md", "digest": sha256(fields), "size": fields.len()},
        ],
    })
}

/// Lists the skills, gets one, and reads every listed file, checking its
/// digest and size as the extension asks of clients.
fn list_get_and_read(project: &Project, plan_of: impl Fn(Value) -> Value) {
    let seen = skills_client(
        project,
        &plan_of(json!([{"capabilities": true}, {"skills": true}])),
    );
    assert_eq!(
        seen[0]["extensions"],
        json!({"io.modelcontextprotocol/skills": {}, "io.modelcontextprotocol/tasks": {}})
    );
    assert_eq!(seen[0]["resources"], json!({"listChanged": true}));
    let skills = seen[1]["skills"].as_array().unwrap();
    let uris: Vec<&str> = skills.iter().map(|s| s["uri"].as_str().unwrap()).collect();
    // Load order: YAML files by name, then folders; explain_code's name is
    // not an Agent Skills name, so MCP does not serve it.
    assert_eq!(
        uris,
        [
            "skill://packing/SKILL.md",
            "skill://%E5%A4%A9%E6%B0%97/SKILL.md",
            "skill://pdf-forms/SKILL.md"
        ]
    );
    assert_eq!(skills[2], pdf_forms_entry());
    assert_eq!(skills[1]["frontmatter"]["name"], "天気");

    let mut steps = vec![
        json!({"get": "skill://pdf-forms/SKILL.md"}),
        json!({"get": "skill://nope/SKILL.md"}),
        json!({"get": "skill://explain_code/SKILL.md"}),
        json!({"resources": true}),
    ];
    for skill in skills {
        for file in skill["resources"].as_array().unwrap() {
            steps.push(json!({"read": file["uri"], "expect": file}));
        }
    }
    let seen = skills_client(project, &plan_of(Value::Array(steps)));
    assert_eq!(seen[0]["skill"], pdf_forms_entry());
    assert_eq!(seen[1]["error"]["code"], -32602, "{}", seen[1]);
    assert_eq!(seen[2]["error"]["code"], -32602, "{}", seen[2]);
    assert_eq!(seen[3]["resources"], json!(uris));
    let reads = &seen[4..];
    assert_eq!(reads.len(), 4);
    for read in reads {
        assert_eq!(read["verified"], true, "{read}");
    }
    assert_eq!(
        reads[0]["text"],
        "---\nname: packing\ndescription: What to pack for a trip\n---\n\nList what to pack.\n"
    );
    assert_eq!(reads[2]["text"], SKILL_MD);
    assert_eq!(reads[2]["mimeType"], "text/markdown");
}

#[test]
fn an_sdk_client_lists_gets_and_reads_skills_over_stdio() {
    let project = project();
    for mode in ["auto", "legacy"] {
        list_get_and_read(&project, |steps| stdio(&project, mode, steps));
    }
}

#[test]
fn a_skill_file_outside_the_folder_is_refused() {
    let project = project();
    let seen = skills_client(
        &project,
        &stdio(
            &project,
            "legacy",
            json!([
                {"read": "skill://pdf-forms/references/leak.md"},
                {"read": "skill://pdf-forms/%2E%2E/%2E%2E/%2E%2E/secret.txt"},
                {"read": "skill://pdf-forms/references/..%2F..%2F..%2F..%2Fsecret.txt"},
                {"read": "skill://pdf-forms/%2Fetc/passwd"},
                {"read": "skill://explain_code/SKILL.md"},
                {"read": "skill://pdf-forms/references/fields.md"},
            ]),
        ),
    );
    for refused in &seen[..5] {
        assert_eq!(refused["error"]["code"], -32602, "{refused}");
        assert!(
            !refused.to_string().contains("not for clients"),
            "{refused}"
        );
    }
    assert!(
        seen[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("leads out"),
        "{}",
        seen[0]
    );
    assert_eq!(seen[5]["text"], "Name, date, signature.\n");
}

#[test]
fn a_project_without_skills_declares_neither_skills_nor_resources() {
    let project = Project::new();
    let seen = skills_client(
        &project,
        &stdio(&project, "auto", json!([{"capabilities": true}])),
    );
    // The tasks extension is declared by every server.
    let extensions = json!({"io.modelcontextprotocol/tasks": {}});
    assert_eq!(seen[0]["extensions"], extensions, "{}", seen[0]);
    assert_eq!(seen[0].get("resources"), None, "{}", seen[0]);
    assert!(seen[0]["tools"].is_object(), "{}", seen[0]);
}

#[test]
fn skills_are_served_over_http_by_riverse_mcp_and_riverse_serve() {
    let project = project();
    let server = Server::start_with(&project, &["mcp", "--http", "127.0.0.1:0"], &[]);
    let url = format!("{}/mcp", server.url);
    list_get_and_read(
        &project,
        |steps| json!({"url": url, "mode": "auto", "steps": steps}),
    );
    let (status, stderr) = server.stop(Signal::SIGINT);
    assert_eq!(status.code(), Some(0), "{stderr}");

    let llm = OpenAiServer::start([]);
    project.settings(&format!(
        "llm_provider: openai\nopenai: {{api_base: \"{}\", api_key: sk-file, max_retries: 0}}\n",
        llm.url()
    ));
    let server = Server::start_with(&project, &["serve", "--addr", "127.0.0.1:0"], &[]);
    let url = format!("{}/mcp", server.url);
    list_get_and_read(
        &project,
        |steps| json!({"url": url, "mode": "legacy", "steps": steps}),
    );
    let (status, stderr) = server.stop(Signal::SIGINT);
    assert_eq!(status.code(), Some(0), "{stderr}");
}

#[test]
fn a_changed_skill_is_reloaded_and_the_client_told() {
    let project = project();
    let folder = project.path().join("agent/skills/haiku");
    let skill_md = "---\nname: haiku\ndescription: Answer in a haiku\n---\n\nFive, seven, five.\n";
    for mode in ["legacy", "auto"] {
        let _ = std::fs::remove_dir_all(&folder);
        let seen = skills_client(
            &project,
            &stdio(
                &project,
                mode,
                json!([
                    {"get": "skill://haiku/SKILL.md"},
                    {"save": folder.join("SKILL.md"), "text": skill_md},
                    {"await_change": true},
                    {"get": "skill://haiku/SKILL.md"},
                    {"read": "skill://haiku/SKILL.md"},
                    {"save": folder.join("notes.md"), "text": "syllables"},
                    {"await_change": true},
                    {"get": "skill://haiku/SKILL.md"},
                ]),
            ),
        );
        assert_eq!(seen[0]["error"]["code"], -32602, "{mode}: {}", seen[0]);
        assert_eq!(seen[2], json!({"notified": true}), "{mode}");
        assert_eq!(
            seen[3]["skill"]["resources"],
            json!([{"uri": "skill://haiku/SKILL.md", "digest": sha256(skill_md.as_bytes()), "size": skill_md.len()}]),
            "{mode}"
        );
        assert_eq!(seen[4]["text"], skill_md, "{mode}");
        assert_eq!(seen[6], json!({"notified": true}), "{mode}");
        let files: Vec<&str> = seen[7]["skill"]["resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|file| file["uri"].as_str().unwrap())
            .collect();
        assert_eq!(
            files,
            ["skill://haiku/SKILL.md", "skill://haiku/notes.md"],
            "{mode}"
        );
    }
}

/// `riverse skills --json` of `project`: the entries from MCP servers.
fn remote_entries(project: &Project) -> Vec<Value> {
    let listed = super::ask::riverse(project)
        .args(["skills", "--json"])
        .output()
        .unwrap();
    assert!(listed.status.success(), "{listed:?}");
    let listing: Value = serde_json::from_slice(&listed.stdout).unwrap();
    listing["skills"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|entry| entry["source"]["kind"] == "mcp")
        .cloned()
        .collect()
}

#[test]
fn a_riverse_client_sees_a_peer_servers_skills_named_after_the_server() {
    let first = project();
    let server = Server::start_with(&first, &["mcp", "--http", "127.0.0.1:0"], &[]);
    let second = Project::new();
    // A local skill holding peer__packing keeps it.
    second.file(
        "agent/skills/peer__packing.yaml",
        "name: peer__packing\ndescription: Ours\ninstruction: Keep ours.\n",
    );
    let stdio_peer = format!(
        "    - name: near\n      command: {}\n      args: [\"--dir\", \"{}\", \"mcp\"]\n",
        env!("CARGO_BIN_EXE_riverse"),
        first.path().display()
    );
    second.settings(&format!(
        "mcp:\n  enabled: true\n  servers:\n    - name: peer\n      url: {}/mcp\n{stdio_peer}",
        server.url
    ));
    let entries = remote_entries(&second);
    let seen: Vec<(&str, &str, &str)> = entries
        .iter()
        .map(|entry| {
            (
                entry["name"].as_str().unwrap(),
                entry["status"].as_str().unwrap(),
                entry["source"]["uri"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("peer__packing", "conflict", "skill://packing/SKILL.md"),
            (
                "peer__天気",
                "enabled",
                "skill://%E5%A4%A9%E6%B0%97/SKILL.md"
            ),
            ("peer__pdf-forms", "enabled", "skill://pdf-forms/SKILL.md"),
            ("near__packing", "enabled", "skill://packing/SKILL.md"),
            (
                "near__天気",
                "enabled",
                "skill://%E5%A4%A9%E6%B0%97/SKILL.md"
            ),
            ("near__pdf-forms", "enabled", "skill://pdf-forms/SKILL.md"),
        ]
    );
    assert_eq!(entries[2]["source"]["server"], "peer");
    assert_eq!(entries[2]["description"], "Fill in PDF forms");
    assert!(
        entries[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("a local skill holds the name peer__packing"),
        "{}",
        entries[0]
    );
    let table = super::ask::riverse(&second).arg("skills").output().unwrap();
    let table = String::from_utf8_lossy(&table.stdout);
    assert!(
        table.contains("near__pdf-forms  enabled  mcp server \"near\" skill://pdf-forms/SKILL.md"),
        "{table}"
    );
    let (status, stderr) = server.stop(Signal::SIGINT);
    assert_eq!(status.code(), Some(0), "{stderr}");
}

#[test]
fn the_model_applies_a_peer_servers_skill_read_from_the_server() {
    let first = project();
    let llm = OpenAiServer::start([
        ev_tool_call("c1", "skill", json!({"name": "near__pdf-forms"})),
        ev_tool_calls(&[
            (
                "c2",
                "skill",
                json!({"name": "near__pdf-forms", "file": "references/fields.md"}),
            ),
            (
                "c3",
                "skill",
                json!({"name": "near__pdf-forms", "file": "references/leak.md"}),
            ),
        ]),
        ev_text("Name, date and signature."),
    ]);
    let second = Project::new();
    second.settings(&format!(
        "llm_provider: openai\nopenai: {{api_base: \"{}\", api_key: sk-file, max_retries: 0}}\n\
         mcp:\n  enabled: true\n  servers:\n    - name: near\n      command: {}\n      args: [\"--dir\", \"{}\", \"mcp\"]\n",
        llm.url(),
        env!("CARGO_BIN_EXE_riverse"),
        first.path().display()
    ));
    let output = super::ask::riverse(&second)
        .args(["ask", "Help me fill in this form", "--json"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(document["answer"], "Name, date and signature.");
    assert_eq!(
        document["skills"],
        json!([{"name": "near__pdf-forms", "trigger": "model"}])
    );
    let requests = llm.requests();
    // Offered by name and description only: no body is fetched ahead of need.
    let tools = requests[0].body["tools"].as_array().unwrap();
    let tool = tools
        .iter()
        .map(|tool| &tool["function"])
        .find(|tool| tool["name"] == "skill")
        .unwrap_or_else(|| panic!("no skill tool: {tools:?}"));
    let description = tool["description"].as_str().unwrap();
    assert!(
        description.contains("\n- near__pdf-forms: Fill in PDF forms")
            && description.contains("\n- near__packing: What to pack for a trip"),
        "{description}"
    );
    assert!(!description.contains("Filling forms"), "{description}");
    // The instruction reaches the next request, marked with its server.
    assert_eq!(
        requests[1].tool_results()[0].1,
        "[From MCP server \"near\": skill near__pdf-forms (skill://pdf-forms/SKILL.md)]\n\
         # Filling forms\n\nRead references/fields.md first."
    );
    let results = requests[2].tool_results();
    assert_eq!(
        results[1].1,
        "[From MCP server \"near\": file references/fields.md of skill near__pdf-forms \
         (skill://pdf-forms/SKILL.md)]\nName, date, signature."
    );
    assert!(
        results[2]
            .1
            .contains("\"references/leak.md\" is not a file of the skill")
            && !results[2].1.contains("not for clients"),
        "{}",
        results[2].1
    );
}
