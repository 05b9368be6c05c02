use std::path::Path;

use pretty_assertions::assert_eq;
use riverse_protocol::SecretValue;

use super::super::Settings;
use super::*;

fn parse(project: &Path, text: &str) -> Result<Settings, String> {
    Settings::from_yaml(project, Some("settings.yaml".into()), text).map_err(|err| err.to_string())
}

#[test]
fn a_file_secret_is_read_without_its_newline_and_given_to_the_tools_naming_it() {
    let project = tempfile::tempdir().unwrap();
    std::fs::create_dir(project.path().join("keys")).unwrap();
    std::fs::write(project.path().join("keys/gh"), "ghp-file-value-123\n").unwrap();
    let settings = parse(
        project.path(),
        "secrets:\n  GH: {file: keys/gh}\n  MISSING: {env: RIVERSE_TEST_NEVER_SET_VARIABLE}\n\
         tools:\n  gh: {secrets: [GH, MISSING]}\n  other: {timeout: 3}\n",
    )
    .unwrap();
    assert_eq!(
        settings.tool_secrets(),
        BTreeMap::from([(
            "gh".to_owned(),
            BTreeMap::from([
                (
                    "GH".to_owned(),
                    SecretValue::Value("ghp-file-value-123".into())
                ),
                (
                    "MISSING".to_owned(),
                    SecretValue::Unreadable {
                        error: "environment variable RIVERSE_TEST_NEVER_SET_VARIABLE is not set"
                            .into()
                    }
                ),
            ])
        )])
    );
    assert!(
        settings.warnings.iter().any(|warning| warning.ends_with(
            "secrets.MISSING: environment variable RIVERSE_TEST_NEVER_SET_VARIABLE is not set; \
             the tools that name it can't use it"
        )),
        "{:?}",
        settings.warnings
    );
    assert_eq!(riverse_secrets::scrub("ghp-file-value-123"), "[secret:GH]");
}

#[test]
fn a_short_value_is_kept_from_the_tools_with_why() {
    let project = tempfile::tempdir().unwrap();
    std::fs::write(project.path().join("pin"), "1234").unwrap();
    let settings = parse(project.path(), "secrets:\n  PIN: {file: pin}\n").unwrap();
    assert_eq!(
        settings.secrets["PIN"].value,
        Err("secret \"PIN\" is 4 characters long; a secret needs at least 8 to be told apart from ordinary output".into())
    );
}

#[test]
fn malformed_entries_name_their_key() {
    let cases = [
        (
            "secrets: [a]",
            "secrets: expected a mapping of names to {env: VARIABLE} or {file: PATH}",
        ),
        (
            "secrets:\n  A: {env: X, file: y}",
            "secrets.A: expected {env: VARIABLE} or {file: PATH}",
        ),
        (
            "secrets:\n  A: {env: 3}",
            "secrets.A: env: expected text, got 3",
        ),
        (
            "secrets:\n  \"a b\": {env: X}",
            "secrets.a b: a secret's name is letters",
        ),
        (
            "tools:\n  t: {secrets: [NOPE]}",
            "tools.t.secrets: \"NOPE\" is not a secret under `secrets`",
        ),
        (
            "secrets:\n  A: {env: X}\nmcp:\n  servers:\n    - {name: s, command: c, env: {K: \"${secret:B}\"}}",
            "mcp.servers[0].env.K: no secret \"B\" under `secrets`",
        ),
    ];
    for (text, expected) in cases {
        let error = parse(Path::new("/project"), text).unwrap_err();
        assert!(error.contains(expected), "{text}: {error}");
    }
}

#[test]
fn riverse_own_keys_and_the_secrets_variables_are_withheld_unless_allowed() {
    let settings = parse(
        Path::new("/project"),
        "secrets:\n  A: {env: WEATHER_KEY}\npython: {env_allow: [OPENAI_API_KEY]}\n",
    )
    .unwrap();
    assert_eq!(
        settings.python.env,
        riverse_python::EnvPolicy::Inherit {
            withheld: vec!["RIVERSE_TOKEN".into(), "WEATHER_KEY".into()]
        }
    );
}

#[test]
fn references_expand_to_values() {
    let secrets = BTreeMap::from([(
        "K".to_owned(),
        Secret {
            source: SecretSource::Env("K".into()),
            value: Ok("value-of-k-123".into()),
        },
    )]);
    assert_eq!(
        expand_secrets("Bearer ${secret:K}!", &secrets),
        Ok("Bearer value-of-k-123!".into())
    );
    assert_eq!(
        expand_secrets("${secret:K", &secrets),
        Err("`${secret:` is not closed by `}`".into())
    );
}
