//! A configured MCP server's skills (the skills extension, SEP-2640) as
//! Riverse the client sees them: a real skills directory served at `/mcp`
//! on loopback by [`HttpEndpoint::with_skills`], listed by [`mcp_skills`]
//! under `SERVER__NAME`, and each file read back checked against its digest.

use std::collections::BTreeMap;
use std::time::Duration;

use pretty_assertions::assert_eq;
use riverse_mcp::{
    HttpEndpoint, HttpOptions, LiveSkills, McpOptions, ServerSpec, ServerTransport, mcp_skills,
};
use riverse_skills::{SkillSet, SkillsOptions};
use riverse_test_support::Project;
use riverse_tool::{CallLimits, LiveRegistry, Registry, RegistryOptions};

const SKILL_MD: &str =
    "---\nname: guide\ndescription: How to write a guide\n---\n\nRead refs/style.md.\n";

fn skills_of(project: &Project) -> SkillSet {
    riverse_skills::load(&SkillsOptions {
        enabled: true,
        dir: project.path().join("agent/skills"),
        project_dir: project.path().to_path_buf(),
        language: "en".into(),
    })
}

/// `project`'s skills at `/mcp` of a loopback port; the endpoint's URL.
async fn serve(project: &Project) -> String {
    let tools = LiveRegistry::new(Registry::new(Vec::new(), RegistryOptions::default()));
    let skills = LiveSkills::new(skills_of(project));
    let endpoint = HttpEndpoint::with_skills(tools, Some(skills), None, http_options());
    let app = axum::Router::new().route_service("/mcp", endpoint.service());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

fn http_options() -> HttpOptions {
    HttpOptions {
        max_body_bytes: 1024 * 1024,
        max_sessions: 8,
        session_timeout: Duration::from_secs(600),
    }
}

fn options(project: &Project, url: &str) -> McpOptions {
    McpOptions {
        servers: vec![ServerSpec {
            name: "docs".into(),
            transport: ServerTransport::Http {
                url: url.into(),
                headers: BTreeMap::new(),
            },
            opens_2026: false,
        }],
        startup_timeout: Duration::from_secs(30),
        project_dir: project.path().to_path_buf(),
        limits: CallLimits::default(),
        withheld_env: Vec::new(),
    }
}

#[tokio::test]
async fn a_servers_skills_are_named_server_name_and_their_files_checked_when_read() {
    let server = Project::new();
    server
        .file("agent/skills/guide/SKILL.md", SKILL_MD)
        .file("agent/skills/guide/refs/style.md", "Short sentences.\n")
        .file(
            "agent/skills/packing.yaml",
            "name: packing\ndescription: What to pack\ninstruction: List it.\n",
        );
    let url = serve(&server).await;
    let client = Project::new();
    client.file(
        "agent/skills/docs__packing.yaml",
        "name: docs__packing\ndescription: The local one\ninstruction: Keep me.\n",
    );
    let local = skills_of(&client);

    let remote = mcp_skills(options(&client, &url), &local).await;
    assert!(remote.failures.is_empty(), "{:?}", remote.failures);
    let names: Vec<(&str, bool)> = remote
        .skills
        .iter()
        .map(|skill| (skill.name.as_str(), skill.refused.is_none()))
        .collect();
    // The local docs__packing keeps its name: the server's is refused.
    assert_eq!(names, [("docs__packing", false), ("docs__guide", true)]);
    assert!(
        remote.skills[0]
            .refused
            .as_deref()
            .unwrap()
            .contains("a local skill holds the name docs__packing"),
        "{:?}",
        remote.skills[0]
    );
    let guide = remote.get("DOCS__guide").expect("docs__guide");
    assert_eq!(guide.server, "docs");
    assert_eq!(guide.description(), "How to write a guide");
    assert_eq!(guide.entry.uri, "skill://guide/SKILL.md");

    assert_eq!(
        guide.read_file("SKILL.md").await.unwrap(),
        SKILL_MD.as_bytes()
    );
    assert_eq!(
        guide.read_file("refs/style.md").await.unwrap(),
        b"Short sentences.\n"
    );
    let unlisted = guide.read_file("../packing.yaml").await.unwrap_err();
    assert!(
        unlisted.to_string().contains("is not a file of the skill"),
        "{unlisted}"
    );
    let refused = remote.skills[0].read_file("SKILL.md").await.unwrap_err();
    assert!(
        refused.to_string().contains("a local skill holds"),
        "{refused}"
    );

    // The file changes on the server after the listing: what comes back no
    // longer matches the entry held, and is not used.
    server.file(
        "agent/skills/guide/refs/style.md",
        "Long sentences, please.\n",
    );
    let changed = guide.read_file("refs/style.md").await.unwrap_err();
    assert!(
        changed.to_string().contains("the manifest says"),
        "{changed}"
    );
}

#[tokio::test]
async fn a_server_without_the_extension_has_no_skills() {
    let client = Project::new();
    let tools = LiveRegistry::new(Registry::new(Vec::new(), RegistryOptions::default()));
    let endpoint = HttpEndpoint::new(tools, None, http_options());
    let app = axum::Router::new().route_service("/mcp", endpoint.service());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    let remote = mcp_skills(options(&client, &url), &skills_of(&client)).await;
    assert!(
        remote.skills.is_empty() && remote.failures.is_empty(),
        "{remote:?}"
    );
}
