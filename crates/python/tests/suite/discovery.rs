//! What discovery makes of every kind of tool file, and that the well-behaved
//! tool beside a broken one still answers.

use std::time::Duration;

use pretty_assertions::assert_eq;
use riverse_tool::{CallError, ParamType, Status, ToolManifest, ToolPolicy, ToolResult};
use serde_json::json;

use super::support::{
    assert_echo_answers, available, call, failed, options, policy, project, registry,
    registry_beside_echo, registry_with, rows,
};

#[tokio::test]
async fn a_syntax_error_names_the_file_and_line() {
    registry_beside_echo(
        "syntax_error.py",
        failed(
            None,
            Status::Error,
            "syntax_error.py",
            "syntax error: invalid syntax (syntax_error.py:4)",
        ),
    )
    .await;
}

#[tokio::test]
async fn a_missing_module_is_named_with_the_line_importing_it() {
    registry_beside_echo(
        "missing_module.py",
        failed(
            None,
            Status::Error,
            "missing_module.py",
            "import failed: ModuleNotFoundError: No module named 'riverse_missing_module' (missing_module.py:3)\n\
             no installed package provides 'riverse_missing_module' (on PyPI its package is most often named so too): \
             declare it at the top of missing_module.py, and Riverse installs it:\n\
             # /// script\n\
             # dependencies = [\"riverse_missing_module\"]\n\
             # ///"
        ),
    )
    .await;
}

#[tokio::test]
async fn an_exception_in_init_names_the_class_and_line() {
    registry_beside_echo(
        "init_raises.py",
        failed(
            None,
            Status::Error,
            "init_raises.py",
            "InitRaises.__init__() raised RuntimeError: no API key configured (init_raises.py:8)",
        ),
    )
    .await;
}

#[tokio::test]
async fn an_exception_in_manifest_names_the_class_and_line() {
    registry_beside_echo(
        "manifest_raises.py",
        failed(
            None,
            Status::Error,
            "manifest_raises.py",
            "ManifestRaises.manifest() raised KeyError: 'description' (manifest_raises.py:8)",
        ),
    )
    .await;
}

#[tokio::test]
async fn an_exception_in_is_available_keeps_the_tool_name() {
    let (_project, registry) = registry_beside_echo(
        "is_available_raises.py",
        failed(
            Some("is_available_raises"),
            Status::Error,
            "is_available_raises.py",
            "IsAvailableRaises.is_available() raised KeyError: 'tools' (is_available_raises.py:14)",
        ),
    )
    .await;
    assert_eq!(
        registry.call("is_available_raises", Default::default()).await,
        Err(CallError::Unavailable {
            name: "is_available_raises".into(),
            reason: "IsAvailableRaises.is_available() raised KeyError: 'tools' (is_available_raises.py:14)"
                .into()
        })
    );
}

#[tokio::test]
async fn a_manifest_of_the_wrong_type_is_an_error_while_its_siblings_load() {
    let project = project(&["wrong_return_types.py"]);
    let registry = registry(options(&project)).await;
    assert_eq!(
        rows(&registry),
        [
            available("echo", "echo.py"),
            available("returns_dict", "wrong_return_types.py"),
            available("returns_none", "wrong_return_types.py"),
            available("returns_int_data", "wrong_return_types.py"),
            failed(
                None,
                Status::Error,
                "wrong_return_types.py",
                "ManifestIsDict.manifest() returned dict, expected ToolManifest (wrong_return_types.py:31)"
            ),
        ]
    );
    assert_echo_answers(&registry).await;
}

#[tokio::test]
async fn an_invalid_name_is_reported_not_registered() {
    let (_project, registry) = registry_beside_echo(
        "invalid_name.py",
        failed(
            Some("look up!"),
            Status::Error,
            "invalid_name.py",
            r#"invalid tool name "look up!": names must match ^[A-Za-z0-9_-]{1,64}$"#,
        ),
    )
    .await;
    assert!(registry.get("look up!").is_none());
}

#[tokio::test]
async fn the_first_of_two_tools_with_one_name_wins_and_the_second_is_a_conflict() {
    let project = project(&["duplicate_a.py", "duplicate_b.py"]);
    let registry = registry(options(&project)).await;
    assert_eq!(
        rows(&registry),
        [
            available("duplicate", "duplicate_a.py"),
            failed(
                Some("duplicate"),
                Status::Conflict,
                "duplicate_b.py",
                r#"name "duplicate" is already taken by agent/tools/duplicate_a.py"#
            ),
            available("echo", "echo.py"),
        ]
    );
    assert_eq!(
        call(&registry, "duplicate", json!({})).await,
        ToolResult::ok("from duplicate_a.py")
    );
}

#[tokio::test]
async fn an_abstract_intermediate_class_is_not_a_tool() {
    let project = project(&["abstract_intermediate.py"]);
    let registry = registry(options(&project)).await;
    assert_eq!(
        rows(&registry),
        [
            available("hello", "abstract_intermediate.py"),
            available("echo", "echo.py")
        ]
    );
    assert_eq!(
        call(&registry, "hello", json!({"name": "Riverse"})).await,
        ToolResult::ok("hello, Riverse")
    );
}

#[tokio::test]
async fn a_file_with_only_abstract_classes_says_what_they_lack() {
    let project = project(&[]);
    project.tool(
        "only_abstract.py",
        "from agent.tools import BaseTool\n\n\nclass Half(BaseTool):\n    def manifest(self):\n        pass\n",
    );
    let registry = registry(options(&project)).await;
    assert_eq!(
        rows(&registry),
        [
            available("echo", "echo.py"),
            failed(
                None,
                Status::Error,
                "only_abstract.py",
                "no tool: class Half is abstract; it lacks execute (only_abstract.py)"
            ),
        ]
    );
}

#[tokio::test]
async fn two_tools_in_one_file_are_both_registered() {
    let project = project(&["two_tools.py"]);
    let registry = registry(options(&project)).await;
    assert_eq!(
        rows(&registry),
        [
            available("echo", "echo.py"),
            available("upper", "two_tools.py"),
            available("lower", "two_tools.py"),
        ]
    );
    assert_eq!(
        call(&registry, "upper", json!({"text": "Mixed"})).await,
        ToolResult::ok("MIXED")
    );
    assert_eq!(
        call(&registry, "lower", json!({"text": "Mixed"})).await,
        ToolResult::ok("mixed")
    );
}

#[tokio::test]
async fn helpers_and_sibling_tool_files_are_importable_through_agent_tools() {
    let project = project(&["_helper.py", "uses_helper.py", "shout.py"]);
    let registry = registry(options(&project)).await;
    // `_helper.py` is not a tool file, and the EchoTool that shout.py imports
    // is registered once, from echo.py.
    assert_eq!(
        rows(&registry),
        [
            available("echo", "echo.py"),
            available("shout", "shout.py"),
            available("uses_helper", "uses_helper.py"),
        ]
    );
    assert_eq!(
        call(&registry, "uses_helper", json!({"text": "x"})).await,
        ToolResult::ok("helped: x")
    );
    assert_eq!(
        call(&registry, "shout", json!({"text": "hi"})).await,
        ToolResult::ok("HI!")
    );
}

#[tokio::test]
async fn a_tool_that_says_it_is_unavailable_is_listed_but_not_callable() {
    let (_project, registry) = registry_beside_echo(
        "unavailable.py",
        failed(
            Some("unavailable"),
            Status::Unavailable,
            "unavailable.py",
            "is_available() returned False",
        ),
    )
    .await;
    assert_eq!(
        registry.call("unavailable", Default::default()).await,
        Err(CallError::Unavailable {
            name: "unavailable".into(),
            reason: "is_available() returned False".into()
        })
    );
}

#[tokio::test]
async fn enabled_false_disables_a_tool_that_never_checks_its_config() {
    let project = project(&["two_tools.py"]);
    let mut options = options(&project);
    options.config = json!({"tools": {"echo": {"enabled": false}}});
    let disabled = ToolPolicy {
        disabled: Some("disabled by tools.echo.enabled: false".into()),
        timeout: None,
        ..ToolPolicy::default()
    };
    let registry = registry_with(options, policy("echo", disabled)).await;
    assert_eq!(
        rows(&registry),
        [
            failed(
                Some("echo"),
                Status::Unavailable,
                "echo.py",
                "disabled by tools.echo.enabled: false"
            ),
            available("upper", "two_tools.py"),
            available("lower", "two_tools.py"),
        ]
    );
    assert_eq!(
        registry.call("echo", Default::default()).await,
        Err(CallError::Unavailable {
            name: "echo".into(),
            reason: "disabled by tools.echo.enabled: false".into()
        })
    );
    assert_eq!(
        call(&registry, "upper", json!({"text": "on"})).await,
        ToolResult::ok("ON")
    );
}

#[tokio::test]
async fn the_whole_config_reaches_init_as_a_dict() {
    let project = project(&["config_reader.py"]);
    let config = json!({
        "language": "ja",
        "tools": {"config_reader": {"greeting": "やあ", "limit": 3}},
        "my_service": {"endpoints": ["a", "b"], "ratio": 2.5, "strict": true, "missing": null},
    });
    let mut options = options(&project);
    options.config = config.clone();
    let registry = registry(options).await;
    let result = call(&registry, "config_reader", json!({})).await;
    assert!(result.success, "{result:?}");
    let received: serde_json::Value = serde_json::from_str(&result.data).unwrap();
    assert_eq!(received, json!({"type": "dict", "config": config}));
}

#[tokio::test]
async fn japanese_manifests_arrive_intact() {
    let project = project(&["japanese.py"]);
    let registry = registry(options(&project)).await;
    let tool = registry.get("aisatsu").expect("aisatsu is registered");
    assert_eq!(
        tool.manifest(),
        &ToolManifest {
            name: "aisatsu".into(),
            description: "日本語で挨拶します".into(),
            parameters: [("namae".to_owned(), "挨拶する相手の名前".to_owned())]
                .into_iter()
                .collect(),
            examples: vec!["田中さんに挨拶して".into(), "こんにちはと言って".into()],
            parameter_types: Default::default(),
            input_schema: None,
            output_schema: None,
            annotations: None,
        }
    );
    assert_eq!(tool.manifest().param_type("namae"), ParamType::String);
}

#[tokio::test]
async fn an_import_that_never_finishes_times_out_while_the_rest_load() {
    let project = project(&["import_hangs.py", "two_tools.py"]);
    let mut options = options(&project);
    options.import_timeout = Duration::from_secs(1);
    let registry = registry(options).await;
    assert_eq!(
        rows(&registry),
        [
            available("echo", "echo.py"),
            failed(
                None,
                Status::Error,
                "import_hangs.py",
                "import timed out after 1s (import_hangs.py)"
            ),
            available("upper", "two_tools.py"),
            available("lower", "two_tools.py"),
        ]
    );
    assert_echo_answers(&registry).await;
    assert_eq!(
        call(&registry, "upper", json!({"text": "loaded"})).await,
        ToolResult::ok("LOADED")
    );
}

#[tokio::test]
async fn an_empty_tools_directory_yields_nothing() {
    let project = riverse_test_support::Project::new();
    let registry = registry(options(&project)).await;
    assert_eq!(rows(&registry), []);
}
