//! Fixed replies to small talk, for the languages and the cases where the
//! model's own reply is worse (see [`super::plan`]): a greeting, thanks or
//! a goodbye gets its reply, anything else a friendly acknowledgement, each
//! in the message's language (`data/replies.txt`).

use std::sync::LazyLock;

use riverse_route::{MessageForm, message_form, requested_actions};

use crate::route::reach::implied_actions;

/// The languages fixed replies and failures are told in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Language {
    English,
    Japanese,
    Chinese,
}

impl Language {
    /// The language of `message`, told by its script: kana is Japanese,
    /// Han characters without kana Chinese, anything else English.
    pub fn of(message: &str) -> Self {
        use riverse_route::script::{has_kana, mostly_cjk};
        match (mostly_cjk(message), has_kana(message)) {
            (true, true) => Language::Japanese,
            (true, false) => Language::Chinese,
            (false, _) => Language::English,
        }
    }

    fn code(self) -> &'static str {
        match self {
            Language::English => "en",
            Language::Japanese => "ja",
            Language::Chinese => "zh",
        }
    }
}

struct Replies {
    /// `(language, kind, word)`: a message with `word` is of `kind`.
    markers: Vec<(&'static str, &'static str, &'static str)>,
    /// `(language, kind, reply)`.
    replies: Vec<(&'static str, &'static str, &'static str)>,
}

static REPLIES: LazyLock<Replies> = LazyLock::new(|| {
    let mut replies = Replies {
        markers: Vec::new(),
        replies: Vec::new(),
    };
    let lines = include_str!("../../data/replies.txt")
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'));
    for line in lines {
        let Some((language, rest)) = line.split_once(' ') else {
            continue;
        };
        if let Some((kind, word)) = rest.split_once("? ") {
            replies.markers.push((language, kind, word.trim()));
        } else if let Some((kind, reply)) = rest.split_once(": ") {
            replies.replies.push((language, kind, reply.trim()));
        }
    }
    replies
});

/// The fixed reply to `message` in `language`, `tools` being the names of
/// the tools on offer.
pub(crate) fn reply(message: &str, language: Language, tools: &[&str]) -> String {
    let code = language.code();
    let lower = message.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|word| !word.is_empty())
        .collect();
    let has = |marker: &str| match language {
        // A spaced script's marker is whole words ("hi" is not in "this").
        Language::English => {
            let wanted: Vec<&str> = marker.split_whitespace().collect();
            words
                .windows(wanted.len())
                .any(|window| window == wanted.as_slice())
        }
        _ => message.contains(marker),
    };
    // A fragment that names an action asks for it ("Reopen issue 231",
    // "quotes for TSLA" names none): it hears that no tool does it.
    let asks = match message_form(message) {
        MessageForm::Question | MessageForm::Request => true,
        MessageForm::Fragment => {
            !requested_actions(message).is_empty() || !implied_actions(message).is_empty()
        }
        MessageForm::Statement => false,
    };
    let kind = REPLIES
        .markers
        .iter()
        .find(|(marker_language, _, marker)| *marker_language == code && has(marker))
        .map_or(if asks { "question" } else { "other" }, |(_, kind, _)| {
            *kind
        });
    let alone = format!("{kind}-alone");
    let wanted = if tools.is_empty() && fixed(code, &alone).is_some() {
        alone.as_str()
    } else {
        kind
    };
    fixed(code, wanted)
        .unwrap_or_default()
        .replace("{tools}", &tools.join(", "))
}

/// The question back to a request whose tool lacks a value it requires:
/// the tool, and the parameter by its name and description, in the
/// language of `message`.
pub(crate) fn asks_for_value(message: &str, tool: &str, param: &str, about: &str) -> String {
    let about = about
        .trim()
        .trim_end_matches(['.', '。'])
        .trim_start_matches("required;")
        .trim();
    fixed(Language::of(message).code(), "short")
        .unwrap_or_default()
        .replace("{tool}", tool)
        .replace("{param}", &param.replace('_', " "))
        .replace("{about}", about)
}

fn fixed(code: &str, kind: &str) -> Option<&'static str> {
    REPLIES
        .replies
        .iter()
        .find(|(reply_language, reply_kind, _)| *reply_language == code && *reply_kind == kind)
        .map(|(_, _, reply)| *reply)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_value_is_asked_for_in_the_messages_language() {
        let about = "date of the sitting, YYYY-MM-DD";
        assert_eq!(
            asks_for_value("Book Tom Becker for 3 hours", "book_sitter", "date", about),
            "To use book_sitter I need the date (date of the sitting, YYYY-MM-DD). What should it be?"
        );
        assert!(
            asks_for_value("トムを予約して", "book_sitter", "date", about).contains("必要です")
        );
        assert!(asks_for_value("帮我预约汤姆", "book_sitter", "date", about).contains("请告诉我"));
    }

    #[test]
    fn every_language_has_a_reply_of_every_kind() {
        for language in [Language::English, Language::Japanese, Language::Chinese] {
            for kind in [
                "self",
                "self-alone",
                "greeting",
                "thanks",
                "farewell",
                "question",
                "question-alone",
                "other",
                "short",
            ] {
                assert!(
                    REPLIES
                        .replies
                        .iter()
                        .any(|(l, k, _)| *l == language.code() && *k == kind),
                    "{language:?} {kind}"
                );
            }
        }
    }

    #[test]
    fn a_reply_answers_the_kind_of_message_in_its_language() {
        assert_eq!(Language::of("お疲れさまでした"), Language::Japanese);
        assert_eq!(Language::of("多谢啦"), Language::Chinese);
        assert_eq!(Language::of("cheers, mate"), Language::English);
        let none: [&str; 0] = [];
        assert!(
            reply("お疲れさまでした", Language::Japanese, &none).starts_with("どういたしまして")
        );
        assert!(reply("多谢啦", Language::Chinese, &none).starts_with("不客气"));
        assert!(reply("雨が止まない", Language::Japanese, &none).starts_with("そうなんですね"));
        assert!(reply("Thanks a lot!", Language::English, &none).starts_with("You're welcome"));
        assert!(
            reply("This history is high", Language::English, &none).starts_with("I see"),
            "\"hi\" inside a word is no greeting"
        );
    }

    #[test]
    fn a_question_no_tool_answers_hears_what_the_tools_are() {
        let tools = ["clock", "weather"];
        assert_eq!(
            reply("Who wrote Hamlet?", Language::English, &tools),
            "I can't answer that on my own. I can use these tools: clock, weather."
        );
        assert!(reply("Who wrote Hamlet?", Language::English, &[]).contains("no tools"));
        // A request no tool serves hears so, whatever its verb.
        for request in [
            "Reopen issue 231 in acme/web",
            "Take Priya's shift off the rota on Friday",
            "cancel the laundry reminder, already did it",
            "Order a large pepperoni pizza from Tony's for delivery",
        ] {
            assert!(
                reply(request, Language::English, &tools).starts_with("I can't answer that"),
                "{request}"
            );
        }
        assert!(
            reply("把购物清单发给我老婆", Language::Chinese, &tools).ends_with("clock, weather")
        );
        assert!(
            reply(
                "昨日予約したホテルの確認メールをもう一度送ってもらえますか",
                Language::Japanese,
                &tools
            )
            .starts_with("それには自分では答えられません")
        );
        assert!(reply("谁写了哈姆雷特？", Language::Chinese, &tools).ends_with("clock, weather"));
        assert!(reply("what can you do", Language::English, &tools).starts_with("I'm Riverse"));
    }
}
