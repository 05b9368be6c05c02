//! `riverse init`, then the example tools it writes, offline.

use std::net::TcpListener;

use pretty_assertions::assert_eq;
use riverse_test_support::Project;
use riverse_tool::ToolManifest;
use serde_json::Value;

use super::command::{riverse, riverse_in, run};

/// A project made by `riverse init` in a fresh directory; what it created
/// comes before the line saying it is ready (issue 49).
fn initialised() -> Project {
    let project = Project::new();
    let ran = riverse(&project, &["init", "demo"]);
    let demo = project.path().join("demo");
    assert_eq!(
        ran.exits(0).stdout,
        "created demo/settings.yaml\n\
         created demo/agent/tools/weather.py\n\
         created demo/agent/tools/clock.py\n\
         created demo/agent/tools/units.py\n\
         Riverse project ready in demo. Next: riverse --dir demo tools\n"
    );
    assert!(demo.join("settings.yaml").is_file());
    project
}

fn demo(project: &Project, args: &[&str]) -> super::command::Ran {
    let mut full = vec!["--dir", "demo"];
    full.extend_from_slice(args);
    riverse(project, &full)
}

#[test]
fn init_writes_a_project_whose_three_tools_are_available() {
    let project = initialised();
    let listed: Value =
        serde_json::from_str(&demo(&project, &["tools", "--json"]).exits(0).stdout).unwrap();
    let rows: Vec<(&str, &str, &str)> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| {
            (
                tool["name"].as_str().unwrap(),
                tool["status"].as_str().unwrap(),
                tool["source"]["file"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("clock", "available", "agent/tools/clock.py"),
            ("convert_units", "available", "agent/tools/units.py"),
            ("weather", "available", "agent/tools/weather.py"),
        ]
    );
}

/// The templates are the one source of their manifests: the copy that the
/// embedded model's routing evaluation and tests read
/// (`crates/embedded/eval/template-tools.json`) must be what they declare.
#[test]
fn the_embedded_evaluations_template_manifests_are_those_the_templates_declare() {
    let project = initialised();
    let listed: Value =
        serde_json::from_str(&demo(&project, &["tools", "--json"]).exits(0).stdout).unwrap();
    let declared: Vec<ToolManifest> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| serde_json::from_value(tool.clone()).unwrap())
        .collect();
    let copy: Vec<ToolManifest> =
        serde_json::from_str(include_str!("../../../embedded/eval/template-tools.json")).unwrap();
    assert_eq!(
        copy, declared,
        "regenerate template-tools.json from `riverse tools --json`"
    );
}

#[test]
fn init_refuses_to_overwrite_without_force() {
    let project = initialised();
    let ran = riverse(&project, &["init", "demo"]);
    assert_eq!(
        ran.exits(2).stderr,
        "riverse: demo already has settings.yaml, agent/tools/weather.py, agent/tools/clock.py, agent/tools/units.py; use --force to overwrite\n"
    );
    riverse(&project, &["init", "demo", "--force"]).exits(0);
}

#[test]
fn the_clock_answers_offline_for_zones_and_cities() {
    let project = initialised();
    let pattern = regex_lite::Regex::new(
        r"^[A-Z][a-z]+day \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \(Asia/Tokyo, UTC\+0900\)\n$",
    )
    .unwrap();
    for zone in ["Asia/Tokyo", "Tokyo", "東京"] {
        let ran = demo(&project, &["call", "clock", &format!("timezone={zone}")]);
        assert!(pattern.is_match(&ran.exits(0).stdout), "{zone}: {ran:?}");
    }
    let ran = demo(&project, &["call", "clock"]);
    assert!(
        ran.exits(0).stdout.ends_with("(UTC, UTC+0000)\n"),
        "{ran:?}"
    );
    let ran = demo(&project, &["call", "clock", "timezone=Mars/Olympus"]);
    assert_eq!(
        ran.exits(1).stderr,
        "riverse: unknown time zone 'Mars/Olympus'\n"
    );
}

#[test]
fn the_unit_converter_answers_offline() {
    let project = initialised();
    let cases = [
        (
            ["value=10", "from_unit=km", "to_unit=mi"],
            "10 km = 6.21371 mi\n",
        ),
        (
            ["value=100", "from_unit=F", "to_unit=C"],
            "100 f = 37.7778 c\n",
        ),
        (
            ["value=5", "from_unit=pounds", "to_unit=kg"],
            "5 lb = 2.26796 kg\n",
        ),
    ];
    for (params, expected) in cases {
        let mut args = vec!["call", "convert_units"];
        args.extend(params);
        assert_eq!(
            demo(&project, &args).exits(0).stdout,
            expected,
            "{params:?}"
        );
    }
    let ran = demo(
        &project,
        &[
            "call",
            "convert_units",
            "value=ten",
            "from_unit=km",
            "to_unit=mi",
        ],
    );
    assert_eq!(
        ran.exits(1).stderr,
        "riverse: parameter \"value\": expected a number, got \"ten\"\n"
    );
    let ran = demo(
        &project,
        &[
            "call",
            "convert_units",
            "value=1",
            "from_unit=km",
            "to_unit=kg",
        ],
    );
    assert_eq!(ran.exits(1).stderr, "riverse: can't convert 'km' to 'kg'\n");
}

#[test]
fn the_weather_tool_fails_cleanly_without_network() {
    let project = initialised();
    // `requests`, which the tool declares, is installed while the network
    // (the loopback index) can be reached.
    demo(&project, &["sync"]).exits(0);
    // Every request goes through a proxy on a loopback port nobody listens on,
    // so the tool sees the network fail at once, with or without `requests`.
    let closed = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let proxy = format!("http://{closed}");
    let mut command = riverse_in(
        project.path(),
        &["--dir", "demo", "call", "weather", "city=Tokyo"],
    );
    for name in [
        "HTTPS_PROXY",
        "https_proxy",
        "HTTP_PROXY",
        "http_proxy",
        "ALL_PROXY",
        "all_proxy",
    ] {
        command.env(name, &proxy);
    }
    command.env_remove("NO_PROXY").env_remove("no_proxy");
    let ran = run(command);
    ran.exits(1);
    assert_eq!(ran.stdout, "");
    let unreachable = "riverse: weather service unreachable: ";
    assert!(
        ran.stderr.starts_with(unreachable) && ran.stderr.lines().count() == 1,
        "{ran:?}"
    );
    let ran = demo(&project, &["call", "weather", "city= "]);
    assert_eq!(ran.exits(1).stderr, "riverse: missing city\n");
}
