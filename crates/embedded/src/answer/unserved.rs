//! The parts of a message that asked for several things which no call of
//! the turn served: the answer says it did not do them, rather than answer
//! one part as if it were the whole.

use riverse_route::{Purpose, request_parts};
use riverse_tool::ToolManifest;

use super::asked::TurnResult;
use super::replies::Language;

/// The requests `question` joins that no tool called in `results` is about
/// (by the subjects its texts name, [`Purpose::covers`]); none when the
/// question asks one thing or no tool was called.
pub(super) fn unserved<'a>(
    question: &'a str,
    results: &[TurnResult<'_>],
    tools: &[ToolManifest],
) -> Vec<&'a str> {
    let parts = request_parts(question);
    if parts.len() < 2 {
        return Vec::new();
    }
    let called: Vec<Purpose> = tools
        .iter()
        .filter(|tool| results.iter().any(|result| result.tool == tool.name))
        .map(Purpose::of)
        .collect();
    if called.is_empty() {
        return Vec::new();
    }
    parts
        .into_iter()
        .filter(|part| !called.iter().any(|purpose| purpose.covers(part)))
        .collect()
}

/// One sentence in `language` saying that `part` was not done.
pub(super) fn not_done(language: Language, part: &str) -> String {
    let part = part
        .trim()
        .trim_end_matches(['.', '?', '!', '。', '？', '！']);
    match language {
        Language::English => {
            format!("I didn't do this part: \"{part}\"; none of my tools does that.")
        }
        Language::Japanese => format!("「{part}」はできませんでした。対応するツールがありません。"),
        Language::Chinese => format!("“{part}”这部分没有完成：没有能做这件事的工具。"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_tools::tool;
    use pretty_assertions::assert_eq;

    fn called(tool: &str) -> TurnResult<'_> {
        TurnResult {
            tool,
            content: "done",
            failed: false,
        }
    }

    #[test]
    fn a_part_no_called_tool_is_about_is_named() {
        let tools = [
            tool(
                "set_lights",
                "Turn the lights of a room on or off, or dim them.",
                &[("room", "Room name"), ("brightness", "Percent, 0 to 100")],
            ),
            tool(
                "clock",
                "The current time in a time zone.",
                &[("timezone", "IANA zone")],
            ),
        ];
        let message = "Set the bedroom lights to 20% and close the blinds";
        assert_eq!(
            unserved(message, &[called("set_lights")], &tools),
            ["close the blinds"]
        );
        assert_eq!(
            not_done(Language::English, "close the blinds"),
            "I didn't do this part: \"close the blinds\"; none of my tools does that."
        );
        // One request, or every part served: nothing to say.
        assert!(
            unserved(
                "Set the bedroom lights to 20%",
                &[called("set_lights")],
                &tools
            )
            .is_empty()
        );
        assert!(unserved(message, &[], &tools).is_empty());
    }
}
