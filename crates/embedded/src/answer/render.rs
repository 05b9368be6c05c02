//! The results of a turn written out plainly: the answer wherever the model
//! cannot be trusted to state them (see [`super::plan`]).

use riverse_tool::Content;
use serde_json::Value;

use super::asked::TurnResult;
use super::failure;
use super::replies::Language;

/// This turn's results as an answer: each success's content, laid out (a
/// JSON object as `key: value` lines, a JSON list one item a line), then
/// each failure in one sentence of `language` ([`failure::sentence`]). With
/// one result the content stands alone; with several, each success is
/// introduced by its tool's name.
pub(crate) fn render(results: &[TurnResult<'_>], language: Language) -> String {
    let named = results.len() > 1;
    let (successes, failures): (Vec<_>, Vec<_>) = results.iter().partition(|result| !result.failed);
    let mut parts: Vec<String> = successes
        .iter()
        .map(|result| {
            let content = layout(&without_block_lines(result.content));
            match (named, content.contains('\n')) {
                (false, _) => content,
                (true, false) => format!("{}: {content}", result.tool),
                (true, true) => format!("{}:\n{}", result.tool, indent(&content)),
            }
        })
        .collect();
    parts.extend(
        failures
            .iter()
            .map(|result| failure::sentence(language, result.tool, result.content)),
    );
    parts.join("\n")
}

/// `content` without the lines that stand for its content blocks
/// (`[image image/png, 633 B]`): the front end shows the blocks themselves.
/// They stay when they are all there is to say.
fn without_block_lines(content: &str) -> String {
    let kept: Vec<&str> = content
        .lines()
        .filter(|line| !Content::is_summary(line))
        .collect();
    if kept.iter().all(|line| line.trim().is_empty()) {
        return content.to_owned();
    }
    kept.join("\n")
}

/// A result's content laid out for reading: JSON as lines, other text
/// trimmed, with trailing spaces and runs of blank lines removed.
fn layout(content: &str) -> String {
    let content = content.trim();
    match serde_json::from_str::<Value>(content) {
        Ok(value @ (Value::Object(_) | Value::Array(_))) => json_lines(&value),
        _ => tidy(content),
    }
}

/// `value` as lines. Each value is laid out once: a nested one's lines are
/// reused, not recomputed, so a deep result costs its size, not twice per
/// level.
fn json_lines(value: &Value) -> String {
    match value {
        Value::Object(fields) if !fields.is_empty() => fields
            .iter()
            .map(|(key, value)| {
                let lines = json_lines(value);
                let nested = matches!(value, Value::Object(_) | Value::Array(_));
                if nested && lines.contains('\n') {
                    format!("{key}:\n{}", indent(&lines))
                } else {
                    format!("{key}: {lines}")
                }
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Array(items) if !items.is_empty() => {
            let scalars = items
                .iter()
                .all(|item| !matches!(item, Value::Object(_) | Value::Array(_)));
            let lines: Vec<String> = items.iter().map(json_lines).collect();
            if scalars && lines.iter().map(String::len).sum::<usize>() <= 80 {
                lines.join(", ")
            } else {
                lines
                    .iter()
                    .map(|line| format!("- {}", line.replace('\n', "\n  ")))
                    .collect::<Vec<_>>()
                    .join("\n")
            }
        }
        Value::String(text) => text.clone(),
        Value::Null => "none".to_owned(),
        other => other.to_string(),
    }
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|line| match line.is_empty() {
            true => String::new(),
            false => format!("  {line}"),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `text` without trailing spaces on its lines and with at most one blank
/// line in a row.
fn tidy(text: &str) -> String {
    let mut lines: Vec<&str> = Vec::new();
    for line in text.lines().map(str::trim_end) {
        if line.is_empty() && lines.last().is_none_or(|last| last.is_empty()) {
            continue;
        }
        lines.push(line);
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result<'a>(tool: &'a str, content: &'a str, failed: bool) -> TurnResult<'a> {
        TurnResult {
            tool,
            content,
            failed,
        }
    }

    #[test]
    fn one_result_is_its_content() {
        let results = [result("clock", "  Tokyo: 17:32, Tuesday  \n\n\n", false)];
        assert_eq!(render(&results, Language::English), "Tokyo: 17:32, Tuesday");
    }

    #[test]
    fn several_results_are_named_and_failures_come_last() {
        let results = [
            result("clock", "tool clock failed: unknown time zone", true),
            result("weather", "Oslo: 7°C", false),
            result("read_file", "a = 1\n\n\n\nb = 2", false),
        ];
        assert_eq!(
            render(&results, Language::English),
            "weather: Oslo: 7°C\nread_file:\n  a = 1\n\n  b = 2\nThe clock tool failed: unknown time zone."
        );
    }

    #[test]
    fn the_line_standing_for_a_content_block_is_left_to_the_block() {
        let drawn = [result(
            "paint",
            "A blue square.\n[image image/png, 633 B]",
            false,
        )];
        assert_eq!(render(&drawn, Language::English), "A blue square.");
        let json = [result(
            "chart",
            "{\"points\": 3}\n[image image/png, 1.2 KB]",
            false,
        )];
        assert_eq!(render(&json, Language::English), "points: 3");
        // Alone, it is all there is to say.
        let only = [result("paint", "[image image/png, 633 B]", false)];
        assert_eq!(render(&only, Language::English), "[image image/png, 633 B]");
    }

    #[test]
    fn json_is_laid_out_as_lines() {
        let results = [result(
            "quote",
            r#"{"symbol": "AAPL", "price": 231.5, "tags": ["tech", "us"], "news": [{"title": "A", "url": "https://a.example"}]}"#,
            false,
        )];
        assert_eq!(
            render(&results, Language::English),
            "symbol: AAPL\nprice: 231.5\ntags: tech, us\nnews:\n  - title: A\n    url: https://a.example"
        );
        // As deep as serde_json reads (its limit is 128 levels): each level
        // is laid out once, so this ends at once rather than after 2^100
        // layouts.
        let deep = format!("{}1{}", "{\"a\": ".repeat(100), "}".repeat(100));
        let laid_out = render(&[result("t", &deep, false)], Language::English);
        assert_eq!(laid_out.lines().count(), 1, "{laid_out}");
        assert!(laid_out.ends_with("a: 1"));
        assert_eq!(
            render(&[result("t", "[1, 2]", false)], Language::English),
            "1, 2",
            "a short list on one line"
        );
        assert_eq!(
            render(&[result("t", "\"quoted\"", false)], Language::English),
            "\"quoted\"",
            "a JSON string is text as it came"
        );
    }
}
