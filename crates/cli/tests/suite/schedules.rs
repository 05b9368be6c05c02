//! `riverse schedules`: the listing without a server, and `run NAME`, a
//! turn in the terminal (issue 46).

use std::process::Output;

use chrono::{DateTime, Datelike, Duration, Timelike, Utc, Weekday};
use pretty_assertions::assert_eq;
use riverse_test_support::openai::{OpenAiServer, ev_text, ev_tool_call};
use riverse_test_support::{Project, simple_tool};
use serde_json::{Value, json};

use super::ask::{project_for, riverse, text};

/// Riverse's bundled `weekly_summary`, as its skills file writes it.
const WEEKLY_SUMMARY: &str = r#"skills:
  - name: weekly_summary
    description: A Sunday evening greeting
    trigger:
      type: schedule
      cron: "0 20 * * 0"
    steps:
      - respond: Write a short, friendly weekend greeting.
"#;

fn schedules(project: &Project, args: &[&str]) -> Output {
    riverse(project)
        .arg("schedules")
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn schedules_lists_both_sources_with_next_runs_and_errors_without_a_server() {
    let project = Project::new();
    project
        .settings(
            r#"schedules:
  - {name: tokyo_evening, cron: "30 20 * * 0", timezone: Asia/Tokyo, message: "Good evening"}
  - {name: broken, cron: "0 25 * * *", message: hi}
  - {name: nightly, cron: "0 1 * * *", skill: nightly_report, approval: auto}
"#,
        )
        .file("agent/skills/weekly.yaml", WEEKLY_SUMMARY);
    let before = Utc::now();
    let output = schedules(&project, &["--json"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    let listed = document["schedules"].as_array().unwrap();
    let names: Vec<&str> = listed.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["tokyo_evening", "broken", "nightly", "weekly_summary"]
    );

    let tokyo = &listed[0];
    assert_eq!(tokyo["source"], json!({"kind": "settings", "index": 0}));
    assert_eq!(tokyo["timezone"], "Asia/Tokyo");
    assert_eq!(tokyo["runs"], json!({"message": "Good evening"}));
    assert_eq!(tokyo["errors"], json!([]));
    let next = DateTime::parse_from_rfc3339(tokyo["next_run"].as_str().unwrap()).unwrap();
    assert_eq!(next.offset().local_minus_utc(), 9 * 3600, "{next}");
    assert_eq!(
        (next.weekday(), next.hour(), next.minute()),
        (Weekday::Sun, 20, 30)
    );
    let next = next.with_timezone(&Utc);
    assert!(
        next > before && next <= before + Duration::days(7),
        "{next}"
    );

    assert_eq!(listed[1]["next_run"], Value::Null);
    let broken = listed[1]["errors"][0].as_str().unwrap();
    assert!(
        broken.starts_with("schedule \"broken\": cron \"0 25 * * *\": "),
        "{broken}"
    );
    assert_eq!(
        listed[2]["errors"],
        json!([format!(
            "schedule \"nightly\": skill \"nightly_report\" does not exist in agent/skills (or is turned off)"
        )])
    );
    assert_eq!(listed[2]["approval"], "auto");

    let weekly = &listed[3];
    assert_eq!(weekly["source"]["kind"], "skill");
    assert_eq!(weekly["cron"], "0 20 * * 0");
    assert_eq!(weekly["runs"], json!({"skill": "weekly_summary"}));
    assert_eq!(weekly["catch_up"], "skip");
    assert_eq!(weekly["errors"], json!([]));
    assert!(weekly["next_run"].is_string(), "{weekly}");

    let table = text(&schedules(&project, &[]).stdout);
    assert!(
        table.contains("    └ schedule \"broken\": cron \"0 25 * * *\": "),
        "{table}"
    );
    assert!(table.ends_with("2 of 4 usable\n"), "{table}");
}

#[test]
fn run_sends_a_message_schedules_message_as_a_turn() {
    let server = OpenAiServer::start([
        ev_tool_call("c1", "weather", json!({"city": "Tokyo"})),
        ev_text("It is 21°C and sunny in Tokyo."),
    ]);
    let project = project_for(
        &server,
        "schedules:\n  - {name: tokyo_weather, cron: \"0 7 * * *\", message: \"What's the weather in Tokyo?\"}\n",
    );
    let output = schedules(&project, &["run", "tokyo_weather"]);
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(text(&output.stdout), "It is 21°C and sunny in Tokyo.\n");
    let requests = server.requests();
    let user = requests[0]
        .roles_and_contents()
        .into_iter()
        .rfind(|(role, _)| role == "user")
        .unwrap();
    assert_eq!(user.1, "What's the weather in Tokyo?");
    assert_eq!(
        requests[1].tool_results(),
        vec![("c1".into(), "Tokyo: 21°C, sunny".into())]
    );
}

#[test]
fn run_applies_a_skill_schedule_explicitly_and_its_steps_run() {
    // The respond step's reply, then the turn's answer from it.
    let server = OpenAiServer::start([
        ev_text("Happy Sunday!"),
        ev_text("Have a lovely Sunday evening!"),
    ]);
    let project = project_for(&server, "");
    project.file("agent/skills/weekly.yaml", WEEKLY_SUMMARY);
    let output = schedules(&project, &["run", "weekly_summary", "--json"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(document["answer"], "Have a lovely Sunday evening!");
    assert_eq!(
        document["skills"][0]["name"], "weekly_summary",
        "{document}"
    );
    let requests = server.requests();
    assert_eq!(
        requests[0].roles_and_contents()[1].1,
        "Write a short, friendly weekend greeting."
    );
    let system = serde_json::to_string(&requests[1].messages()[0]).unwrap();
    assert!(system.contains("Happy Sunday!"), "{system}");
}

/// A tool whose calls ask for approval, leaving `stamps/stamped` when run.
const STAMP_SETTINGS: &str = "tools:\n  stamp: {approval: ask}\n";

fn stamping_project(server: &OpenAiServer, approval: &str) -> Project {
    let project = project_for(
        server,
        &format!(
            "{STAMP_SETTINGS}schedules:\n  - {{name: stamper, cron: \"0 * * * *\", message: \"Stamp it\"{approval}}}\n"
        ),
    );
    project.tool(
        "stamp.py",
        &simple_tool(
            "stamp",
            r#"
import os
os.makedirs("stamps", exist_ok=True)
open(os.path.join("stamps", "stamped"), "w").close()
return ToolResult(True, "stamped")
"#,
        ),
    );
    project
}

#[test]
fn a_call_that_asks_is_denied_by_default_and_approved_by_approval_auto() {
    for (approval, runs, told) in [
        (
            "",
            false,
            "stamp was not run: it needs approval (tools.stamp.approval is ask) and a scheduled run asks nobody and the schedule's approval is deny",
        ),
        (", approval: auto", true, "stamped"),
    ] {
        let server =
            OpenAiServer::start([ev_tool_call("c1", "stamp", json!({})), ev_text("Done.")]);
        let project = stamping_project(&server, approval);
        let output = schedules(&project, &["run", "stamper"]);
        let stderr = text(&output.stderr);
        assert!(output.status.success(), "{stderr}");
        assert_eq!(
            project.file_names("stamps").len(),
            usize::from(runs),
            "{stderr}"
        );
        let (_, result) = &server.requests()[1].tool_results()[0];
        assert!(result.contains(told), "{approval:?}: {result}");
        if runs {
            assert!(
                stderr.contains("stamp approved (the schedule's approval is auto)"),
                "{stderr}"
            );
        }
    }
}

#[test]
fn run_refuses_an_unknown_or_broken_schedule_naming_it() {
    let project = Project::new();
    project
        .settings("schedules:\n  - {name: broken, cron: \"0 8 * * *\", message: hi, skill: x}\n");
    let unknown = schedules(&project, &["run", "nope"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert_eq!(
        text(&unknown.stderr),
        "riverse: no schedule named \"nope\"; there are broken\n"
    );
    let broken = schedules(&project, &["run", "broken"]);
    assert_eq!(broken.status.code(), Some(2));
    assert_eq!(
        text(&broken.stderr),
        "riverse: schedule \"broken\" can't run:\n  schedule \"broken\": has both message and skill; give one\n"
    );
}

/// `riverse serve` runs the schedules it reads: its start line counts them,
/// and one run now through the API is kept with its answer.
#[test]
fn serve_runs_a_schedule_now_through_the_api() {
    let llm = OpenAiServer::start([ev_text("Served on schedule.")]);
    let project = project_for(
        &llm,
        "schedules:\n  - {name: digest, cron: \"0 8 * * 1\", message: \"Summarise\"}\n",
    );
    let server = super::serve::Server::start(&project, &[]);
    let (status, body) = super::serve::http(&server.url, "POST", "/v1/schedules/digest/run", None);
    assert_eq!(status, 202, "{body}");
    let runs = riverse_test_support::eventually(
        std::time::Duration::from_secs(30),
        "the run's end",
        || {
            let (_, body) =
                super::serve::http(&server.url, "GET", "/v1/schedules/digest/runs", None);
            let runs: Value = serde_json::from_str(&body).unwrap();
            (runs["data"][0]["status"] == "done").then_some(runs)
        },
    );
    assert_eq!(runs["data"][0]["answer"], "Served on schedule.");
    let (status, body) = super::serve::http(&server.url, "GET", "/v1/schedules/nightly/runs", None);
    assert_eq!(status, 404);
    assert!(body.contains(r#"no schedule named \"nightly\""#), "{body}");
    let (status, _) = server.stop(nix::sys::signal::Signal::SIGTERM);
    assert!(status.success(), "{status:?}");
}
