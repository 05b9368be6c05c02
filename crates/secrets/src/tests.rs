use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE};
use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

const KEY: &str = "sk-live-4f9a/b+c=Zq~7";

fn redactor() -> Redactor {
    Redactor::new([("API_KEY", KEY), ("OTHER", "hunter2-hunter2")]).unwrap()
}

fn scrubbed(text: &str) -> String {
    redactor().scrub(text).into_owned()
}

#[test]
fn the_value_as_written_is_replaced_and_the_rest_kept() {
    assert_eq!(
        scrubbed(&format!("key={KEY}; other=hunter2-hunter2.")),
        "key=[secret:API_KEY]; other=[secret:OTHER]."
    );
    assert!(matches!(redactor().scrub("nothing here"), Cow::Borrowed(_)));
}

#[test]
fn base64_is_found_at_every_alignment_in_both_alphabets() {
    for before in ["", "a", "ab", "abc", "abcd"] {
        for engine in [&STANDARD, &URL_SAFE] {
            let encoded = engine.encode(format!("{before}{KEY} and after"));
            let text = scrubbed(&format!("token: {encoded}"));
            assert!(text.contains("[secret:API_KEY]"), "{before:?}: {text}");
            assert!(!redactor().contains(&text), "{text}");
        }
    }
}

#[test]
fn hex_url_and_json_escapes_are_found() {
    let hex: String = KEY.bytes().map(|b| format!("{b:02x}")).collect();
    let url = "sk-live-4f9a%2Fb%2Bc%3DZq~7";
    let json = serde_json::to_string(&json!({"k": KEY})).unwrap();
    let unicode: String = KEY
        .chars()
        .map(|c| format!("\\u{:04x}", c as u32))
        .collect();
    for text in [
        hex.clone(),
        hex.to_uppercase(),
        url.to_owned(),
        "sk-live-4f9a%2fb%2bc%3dZq~7".to_owned(),
        json,
        unicode,
    ] {
        let out = scrubbed(&format!("<{text}>"));
        assert!(out.contains("[secret:API_KEY]"), "{text} -> {out}");
    }
}

#[test]
fn a_secret_cut_by_a_line_break_is_found_whole() {
    let (head, tail) = KEY.split_at(7);
    assert_eq!(
        scrubbed(&format!("first line\n{head}\r\n{tail} end\nlast")),
        "first line\n[secret:API_KEY] end\nlast"
    );
    let wrapped: String = STANDARD
        .encode(format!("xx{KEY}{KEY}"))
        .as_bytes()
        .chunks(10)
        .map(|line| format!("{}\n", std::str::from_utf8(line).unwrap()))
        .collect();
    assert!(!redactor().contains(&scrubbed(&wrapped)));
}

#[test]
fn a_secret_with_line_breaks_of_its_own_is_found() {
    let pem = "-----BEGIN KEY-----\nMIIBVwIBADANBgkqhkiG9w0BAQEF\n-----END KEY-----";
    let redactor = Redactor::new([("PEM", pem)]).unwrap();
    assert_eq!(
        redactor.scrub(&format!("read: {}\n", pem.replace('\n', "\r\n"))),
        "read: [secret:PEM]\n"
    );
}

#[test]
fn json_values_are_scrubbed_keys_included() {
    let mut value = json!({"a": [KEY, 1, {"b": format!("x{KEY}")}], KEY: true});
    redactor().scrub_value(&mut value);
    assert_eq!(
        value,
        json!({"a": ["[secret:API_KEY]", 1, {"b": "x[secret:API_KEY]"}], "[secret:API_KEY]": true})
    );
}

#[test]
fn short_values_are_refused_with_the_name() {
    let error = Redactor::new([("PIN", "1234")]).err().unwrap();
    assert_eq!(error.name, "PIN");
    assert!(error.to_string().contains("\"PIN\" is 4 characters"));
}

#[test]
fn the_process_redactor_only_grows() {
    let value = "process-wide-secret-value-1";
    assert_eq!(scrub(value), value);
    register([("FIRST", value)]).unwrap();
    register([("SECOND", "process-wide-secret-value-2")]).unwrap();
    register([("RENAMED", value)]).unwrap();
    assert_eq!(scrub(value), "[secret:FIRST]");
    assert_eq!(scrub("process-wide-secret-value-2"), "[secret:SECOND]");
    assert!(register([("SHORT", "abc")]).is_err());
}
