//! The ways a secret's value gets written in a tool's output.

use base64::Engine;
use base64::engine::general_purpose::{STANDARD_NO_PAD, URL_SAFE_NO_PAD};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

/// Characters a URL carries as they are (RFC 3986's unreserved).
const ESCAPED_IN_URLS: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// The shortest form looked for: a shorter cut of an encoding would be
/// found in unrelated text.
const MIN_PATTERN_BYTES: usize = 6;

/// `value` as written, and as base64 (both alphabets, each alignment), hex,
/// URL escapes and JSON escapes write it; line breaks taken out of each,
/// as the text they are looked for in has its own taken out.
pub(crate) fn variants(value: &str) -> Vec<String> {
    let mut found = vec![value.to_owned(), json_escaped(value)];
    found.extend([false, true].map(|upper| unicode_escaped(value, upper)));
    let url = utf8_percent_encode(value, ESCAPED_IN_URLS).to_string();
    found.push(url.replace(' ', "+").replace("%20", "+"));
    found.push(lowercase_escapes(&url));
    found.push(url);
    let hex: String = value.bytes().map(|byte| format!("{byte:02x}")).collect();
    found.push(hex.to_uppercase());
    found.push(hex);
    found.extend(base64_cuts(value.as_bytes()));
    let mut found: Vec<String> = found
        .into_iter()
        .map(|pattern| pattern.replace(['\r', '\n'], ""))
        .filter(|pattern| pattern.len() >= MIN_PATTERN_BYTES)
        .collect();
    found.sort();
    found.dedup();
    found
}

/// As JSON writes the value inside a string (`"`, `\` and control
/// characters escaped).
fn json_escaped(value: &str) -> String {
    let quoted = serde_json::to_string(value).expect("a string serializes");
    quoted[1..quoted.len() - 1].to_owned()
}

/// Every character as `\uXXXX` (surrogate pairs past the first plane).
fn unicode_escaped(value: &str, upper: bool) -> String {
    let mut units = [0u16; 2];
    value
        .chars()
        .flat_map(|char| char.encode_utf16(&mut units).to_vec())
        .map(|unit| {
            if upper {
                format!("\\u{unit:04X}")
            } else {
                format!("\\u{unit:04x}")
            }
        })
        .collect()
}

fn lowercase_escapes(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    let mut rest = url;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        let escape = rest.get(at..at + 3).unwrap_or(&rest[at..]);
        out.push_str(&escape.to_lowercase());
        rest = &rest[at + escape.len()..];
    }
    out.push_str(rest);
    out
}

/// The base64 characters that only the value decides, however many bytes
/// come before it in what was encoded: for each of the three alignments,
/// the characters whose six bits all fall within the value's bytes.
fn base64_cuts(bytes: &[u8]) -> Vec<String> {
    let mut cuts = Vec::new();
    for before in 0..3 {
        let mut padded = vec![0u8; before];
        padded.extend_from_slice(bytes);
        let first = (8 * before).div_ceil(6);
        let end = 8 * (before + bytes.len()) / 6;
        for engine in [&STANDARD_NO_PAD, &URL_SAFE_NO_PAD] {
            let encoded = engine.encode(&padded);
            if first < end {
                cuts.push(encoded[first..end].to_owned());
            }
        }
    }
    cuts
}
