//! The spans of a message that could be a string parameter's value, for the
//! model to choose among: runs of whole words inside one clause, Japanese
//! noun phrases joined by の or を (大阪のラーメン屋, 薬を飲む), and shaped
//! tokens whole (paths, URLs, times, quoted text, expressions).
//!
//! What is never a value is left out: words that only name the tool or
//! carry nothing (see [`MessageSpans`]), a span that ends on a function word
//! or cuts a shaped token, a Japanese predicate (降る), a value the message
//! rejects ("not SSB"), and the whole request.

use std::ops::Range;

use crate::form::is_cjk_request;
use crate::message::MessageSpans;
use crate::request::{RequestLength, is_whole_request};
use crate::script::{Script, script};
use crate::shapes::{Shape, Shaped, shaped_tokens};
use crate::words::{HONORIFICS, POSTPOSITIONS, is_particle};

/// Most Latin-script words in one value.
const MAX_WORDS: usize = 8;

/// Most CJK characters in one value.
const MAX_CJK_CHARS: usize = 14;

/// Particles a noun phrase may run across: の joins nouns (大阪のラーメン屋),
/// を joins an object to its verb (薬を飲む).
const PHRASE_PARTICLES: [char; 2] = ['の', 'を'];

/// One possible value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub bytes: Range<usize>,
    /// The value as the call carries it: the span's text, trimmed.
    pub value: String,
    /// The shape of the span, when it is a shaped token whole.
    pub shape: Option<Shape>,
}

/// The candidate values of `message`, leaving out the bytes of `taken`.
pub fn candidates(
    message: &MessageSpans<'_>,
    taken: &[Range<usize>],
    request: RequestLength,
) -> Vec<Candidate> {
    let text = message.text;
    let shaped = shaped_tokens(text);
    let mut found: Vec<Candidate> = Vec::new();
    let push = |bytes: Range<usize>, shape: Option<Shape>, found: &mut Vec<Candidate>| {
        let value = text[bytes.clone()].trim();
        if value.is_empty()
            || taken.iter().any(|span| overlaps(span, &bytes))
            || found.iter().any(|candidate| candidate.bytes == bytes)
            || is_whole_request(text, value, request)
        {
            return;
        }
        found.push(Candidate {
            value: value.to_owned(),
            bytes,
            shape,
        });
    };
    for token in &shaped {
        push(token.bytes.clone(), Some(token.shape), &mut found);
    }
    for span in word_spans(message) {
        if keeps(message, &shaped, span.clone()) {
            push(span.clone(), held_shape(&shaped, &span), &mut found);
        }
    }
    found
}

/// The shape of a shaped token `span` holds whole ("夜7時" holds the time
/// 7時), quotes aside.
fn held_shape(shaped: &[Shaped], span: &Range<usize>) -> Option<Shape> {
    shaped
        .iter()
        .find(|token| {
            token.shape != Shape::Quoted
                && span.start <= token.bytes.start
                && token.bytes.end <= span.end
        })
        .map(|token| token.shape)
}

/// Every span from a place a value may start to a later place it may end,
/// within one clause and the length limits, crossing blocked bytes only at
/// the particles of [`PHRASE_PARTICLES`].
fn word_spans(message: &MessageSpans<'_>) -> Vec<Range<usize>> {
    let text = message.text;
    let bounds = &message.boundaries;
    let mut spans = Vec::new();
    for start in (0..text.len()).filter(|&at| bounds.starts[at]) {
        let mut words = 0;
        let mut cjk = 0;
        for (offset, c) in text[start..].char_indices() {
            let at = start + offset;
            let crossable = PHRASE_PARTICLES.contains(&c) && offset > 0;
            if (bounds.blocked[at] && !crossable) || ends_clause(c) && !joins_name(text, at, c) {
                break;
            }
            if script(c) == Script::Other {
                if c.is_alphanumeric() && !prev_is_alphanumeric(text, at) {
                    words += 1;
                }
            } else {
                cjk += 1;
            }
            if words > MAX_WORDS || cjk > MAX_CJK_CHARS {
                break;
            }
            if offset > 0 && particle_before_word(text, at, c) {
                spans.push(start..at);
            }
            let end = at + c.len_utf8();
            if bounds.ends[end] || ends_plain_verb(text, at, c) {
                spans.push(start..end);
            }
        }
    }
    spans
}

/// Whether `c` at `at` is a particle before a word (しを思い出させて): a
/// value may end before it, and never on it.
fn particle_before_word(text: &str, at: usize, c: char) -> bool {
    is_particle(c)
        && text[at + c.len_utf8()..]
            .chars()
            .next()
            .is_some_and(|next| {
                matches!(script(next), Script::Han | Script::Katakana | Script::Other)
                    && next.is_alphanumeric()
            })
}

/// Whether `c` at `at` ends a verb's plain form written as one kanji and one
/// kana (飲む of 飲むように): the verb of a clause such as 薬を飲む.
fn ends_plain_verb(text: &str, at: usize, c: char) -> bool {
    let before = text[..at].chars().next_back();
    "うくぐすつぬぶむる".contains(c)
        && before.is_some_and(|b| script(b) == Script::Han)
        && text[at + c.len_utf8()..]
            .chars()
            .next()
            .is_some_and(|next| script(next) == Script::Hiragana)
}

fn prev_is_alphanumeric(text: &str, at: usize) -> bool {
    text[..at]
        .chars()
        .next_back()
        .is_some_and(|c| c.is_alphanumeric() && script(c) == Script::Other)
}

/// Punctuation that ends a clause, and quotes and brackets: no value runs
/// across them (a shaped token may, and is a candidate of its own).
/// Whether `c`, at `at` of `text`, is the apostrophe inside a name
/// (O'Neill, D'Angelo): between a letter and a capital.
fn joins_name(text: &str, at: usize, c: char) -> bool {
    matches!(c, '\'' | '’')
        && text[..at]
            .chars()
            .next_back()
            .is_some_and(char::is_alphabetic)
        && text[at + c.len_utf8()..]
            .chars()
            .next()
            .is_some_and(char::is_uppercase)
}

fn ends_clause(c: char) -> bool {
    "?!,;:.？！、。，；：\"'()[]{}「」『』“”‘’《》（）【】".contains(c)
}

/// Whether the word span `span` may be a value.
fn keeps(message: &MessageSpans<'_>, shaped: &[Shaped], span: Range<usize>) -> bool {
    let last = message.text[..span.end].char_indices().next_back();
    let ends_on_particle = last.is_some_and(|(at, c)| particle_before_word(message.text, at, c));
    !ends_on_particle
        && !message.only_filler_or_triggers(span.clone())
        && !message.holds_trigger(span.clone())
        && !message.ends_on_function_word(span.end)
        && !cuts_a_shaped_token(shaped, &span)
        && !is_predicate(message, &span)
        && !rejected(message.text, &span)
        && !is_everything(&message.text[span.clone()])
        && !asks_politely(&message.text[span])
}

/// Japanese endings that make a clause a request to the assistant
/// (通行履歴を見せてください, 見積もりをお願いします): the request, no value.
const REQUEST_ENDINGS: [&str; 7] = [
    "ください",
    "下さい",
    "お願いします",
    "お願い",
    "願います",
    "いただけますか",
    "もらえますか",
];

fn asks_politely(value: &str) -> bool {
    let value = value.trim_end_matches(|c: char| is_particle(c) || !c.is_alphanumeric());
    REQUEST_ENDINGS.iter().any(|ending| value.ends_with(ending)) || is_cjk_request(value)
}

/// Words that name everything, no one value: "cancel all" names no
/// record, though "won't turn on at all" may be a fault's description.
const EVERYTHING: [&str; 3] = ["all", "everything", "anything"];

fn is_everything(value: &str) -> bool {
    let value = value.trim();
    EVERYTHING
        .iter()
        .any(|word| value.eq_ignore_ascii_case(word))
}

/// Words before a value that reject it: "CW not SSB", "Friday instead of
/// Monday", "tea rather than coffee" name the value wanted first.
const REJECTING: [&str; 3] = ["not", "instead of", "rather than"];

/// Whether `span` is a value the message rejects, or holds one: it
/// follows, or holds, one of [`REJECTING`].
fn rejected(text: &str, span: &Range<usize>) -> bool {
    let before = text[..span.start].trim_end().to_lowercase();
    let value = text[span.clone()].trim_start().to_lowercase();
    REJECTING.iter().any(|words| {
        let ends = before.ends_with(words)
            && !before[..before.len() - words.len()].ends_with(char::is_alphanumeric);
        ends || value.starts_with(&format!("{words} ")) || value.contains(&format!(" {words} "))
    })
}

/// Whether `span` overlaps a shaped token without being it or holding it
/// whole; quoted text is taken whole or not at all.
fn cuts_a_shaped_token(shaped: &[Shaped], span: &Range<usize>) -> bool {
    shaped.iter().any(|token| {
        let inside = span.start <= token.bytes.start && token.bytes.end <= span.end;
        overlaps(span, &token.bytes)
            && *span != token.bytes
            && (token.shape == Shape::Quoted || !inside)
    })
}

/// A Japanese predicate alone: a span that cuts a kanji stem from its kana
/// ending (降|る; not a name from its honorific, 佐藤|さん), or ends on a
/// verb or adjective's plain or polite form (降る, 降ります, 寒い) with no
/// object before it. 薬を飲む is a request's content,
/// ゴミ出し a noun (its ending is not a predicate's).
fn is_predicate(message: &MessageSpans<'_>, span: &Range<usize>) -> bool {
    let text = message.text;
    // A sentence-final particle (降りますか) is not part of the predicate.
    let value = text[span.clone()].trim_end_matches(is_particle);
    let Some(last) = value.chars().next_back() else {
        return false;
    };
    let rest = &text[span.start + value.len()..];
    let next = rest.chars().next();
    let stem = matches!(script(last), Script::Han | Script::Katakana);
    // An honorific (佐藤さん) or a postposition (ケンより) follows a noun.
    let after_noun =
        HONORIFICS.prefix_of(rest).is_some() || POSTPOSITIONS.prefix_of(rest).is_some();
    if stem && !after_noun && next.is_some_and(|c| script(c) == Script::Hiragana && !is_particle(c))
    {
        return true;
    }
    let chars: Vec<char> = value.chars().collect();
    let ending_start = chars
        .iter()
        .rposition(|&c| script(c) != Script::Hiragana)
        .map_or(0, |index| index + 1);
    let follows_stem = ending_start > 0 && script(chars[ending_start - 1]) == Script::Han;
    let has_object = chars[..ending_start]
        .iter()
        .any(|&c| PHRASE_PARTICLES.contains(&c));
    follows_stem && ending_start < chars.len() && !has_object && predicate_ending(last)
}

/// The last kana of a verb's plain form (u-row: 降る, 飲む, 探す), a polite
/// or past form (ます, た), or an adjective (寒い).
fn predicate_ending(c: char) -> bool {
    "うくぐすずつづぬふぶぷむゆるいただ".contains(c)
}

fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start < b.end && b.start < a.end
}

#[cfg(test)]
mod tests {
    use super::*;
    use riverse_tool::ToolManifest;

    const REQUEST: RequestLength = RequestLength {
        words: 3,
        cjk_chars: 6,
    };

    fn tool(name: &str, description: &str) -> ToolManifest {
        serde_json::from_value(serde_json::json!({
            "name": name,
            "description": description,
            "parameters": {"value": "a value"},
            "examples": [],
        }))
        .unwrap()
    }

    fn values(message: &str, tool: &ToolManifest) -> Vec<String> {
        let spans = MessageSpans::new(message, tool);
        candidates(&spans, &[], REQUEST)
            .into_iter()
            .map(|candidate| candidate.value)
            .collect()
    }

    #[test]
    fn a_japanese_name_before_its_honorific_is_a_value() {
        let visits = tool("schedule_visit", "Books a carer's visit for a client.");
        let found = values("明日10時に佐藤一郎さんの訪問を予約してください。", &visits);
        assert!(found.contains(&"佐藤一郎".to_owned()), "{found:?}");
        let found = values("ケンより早く降る", &visits);
        assert!(found.contains(&"ケン".to_owned()), "{found:?}");
        assert!(!found.contains(&"降".to_owned()), "{found:?}");
    }

    #[test]
    fn a_name_with_an_apostrophe_is_one_value() {
        let search = tool("search_people", "Searches people by name.");
        let found = values("search for Margaret O'Neill, born 1850", &search);
        assert!(found.contains(&"Margaret O'Neill".to_owned()), "{found:?}");
        let found = values("show Jenny Ko's visits", &search);
        assert!(found.contains(&"Jenny Ko".to_owned()), "{found:?}");
        assert!(
            !found.iter().any(|value| value.contains("Ko's")),
            "{found:?}"
        );
    }

    #[test]
    fn a_value_the_message_rejects_is_no_candidate() {
        let update = tool("update_contact", "Corrects a logged contact.");
        let found = values("Contact 412 should be CW not SSB, pls fix", &update);
        assert!(found.contains(&"CW".to_owned()), "{found:?}");
        assert!(
            !found.iter().any(|value| value.contains("SSB")),
            "{found:?}"
        );
        let found = values("move it to Friday instead of Monday", &update);
        assert!(found.contains(&"Friday".to_owned()), "{found:?}");
        assert!(
            !found.iter().any(|value| value.contains("Monday")),
            "{found:?}"
        );
        let found = values("a knot in the rope", &update);
        assert!(found.contains(&"knot".to_owned()), "{found:?}");
    }

    #[test]
    fn all_alone_is_no_value_but_may_end_one() {
        let repair = tool("submit_repair", "Sends a repair request.");
        let found = values("cancel all", &repair);
        assert!(!found.contains(&"all".to_owned()), "{found:?}");
        let found = values("The heating won't turn on at all", &repair);
        assert!(found.contains(&"turn on at all".to_owned()), "{found:?}");
    }

    #[test]
    fn a_polite_request_is_no_value() {
        let trips = tool("list_trips", "Lists the toll trips of a plate.");
        let found = values("12月1日から今日までの通行履歴を見せてください。", &trips);
        assert!(
            !found.iter().any(|value| value.ends_with("ください")),
            "{found:?}"
        );
        assert!(found.contains(&"通行履歴".to_owned()), "{found:?}");
    }

    #[test]
    fn a_chinese_request_or_whether_clause_is_no_value() {
        let check = tool(
            "check_registration",
            "Checks whether a person is registered to vote.",
        );
        let found = values("帮我查一下我有没有登记成选民。王磊，1985年出生", &check);
        assert!(
            !found
                .iter()
                .any(|value| value.starts_with("帮我") || value.starts_with("有没有")),
            "{found:?}"
        );
        assert!(found.contains(&"王磊".to_owned()), "{found:?}");
        let leave = tool(
            "report_absence",
            "Tells the director a member will miss a rehearsal.",
        );
        let found = values("周三请假，原因：发烧", &leave);
        assert!(found.contains(&"请假".to_owned()), "{found:?}");
        let sighting = tool("report_sighting", "Records a pest sighting at a site.");
        let found = values("厨房里看到老鼠，记录一下", &sighting);
        assert!(
            !found.iter().any(|value| value.ends_with("一下")),
            "{found:?}"
        );
    }

    #[test]
    fn a_japanese_value_is_neither_the_tools_word_nor_a_predicate() {
        let weather = tool("weather", "Get the current weather of a city");
        let found = values("仙台は明日雨が降る？", &weather);
        assert!(found.contains(&"仙台".to_owned()), "{found:?}");
        for never in ["雨", "降る", "降"] {
            assert!(!found.contains(&never.to_owned()), "{never}: {found:?}");
        }
        let found = values("明日の札幌は雪が降りますか", &weather);
        for never in ["雪", "降りますか", "降ります"] {
            assert!(!found.contains(&never.to_owned()), "{never}: {found:?}");
        }
        let clock = tool("clock", "Get the current time");
        let found = values("ロンドンの今の時間は？", &clock);
        assert!(found.contains(&"ロンドン".to_owned()), "{found:?}");
        assert!(!found.contains(&"時間".to_owned()), "{found:?}");
    }

    #[test]
    fn noun_phrases_run_across_no_and_wo() {
        let search = tool("web_search", "Search the web");
        let found = values("大阪のラーメン屋をネットで探して", &search);
        assert!(found.contains(&"大阪のラーメン屋".to_owned()), "{found:?}");
        assert!(
            !found.iter().any(|value| value.contains("ネット")),
            "{found:?}"
        );
        let remind = tool("reminder", "Set a reminder");
        let found = values("夜7時に薬を飲むようにリマインドして", &remind);
        assert!(found.contains(&"薬を飲む".to_owned()), "{found:?}");
        assert!(!found.contains(&"飲む".to_owned()), "{found:?}");
        let found = values("明日の朝8時にゴミ出しを思い出させて", &remind);
        assert!(found.contains(&"ゴミ出し".to_owned()), "{found:?}");
        assert!(found.contains(&"明日の朝8時".to_owned()), "{found:?}");
    }

    #[test]
    fn english_values_are_whole_words_that_do_not_end_on_a_function_word() {
        let remind = tool("reminder", "Set a reminder");
        let found = values("Remind me to call mom at 6pm", &remind);
        for wanted in ["call mom", "6pm"] {
            assert!(found.contains(&wanted.to_owned()), "{wanted}: {found:?}");
        }
        assert!(!found.contains(&"call mom at".to_owned()), "{found:?}");
        assert!(!found.contains(&"Remind me".to_owned()), "{found:?}");
    }

    #[test]
    fn shaped_tokens_are_whole_and_never_cut() {
        let read = tool("read_file", "Read a file");
        let found = values("Please open /var/log/syslog", &read);
        assert!(found.contains(&"/var/log/syslog".to_owned()), "{found:?}");
        assert!(
            !found.iter().any(|value| value == "var" || value == "log"),
            "{found:?}"
        );
        let translate = tool("translate", "Translate text");
        let found = values("Translate 'see you tomorrow' into German", &translate);
        assert!(found.contains(&"see you tomorrow".to_owned()), "{found:?}");
        assert!(found.contains(&"German".to_owned()), "{found:?}");
        assert!(!found.contains(&"see you".to_owned()), "{found:?}");
    }

    #[test]
    fn taken_bytes_are_left_out() {
        let convert = tool("convert_units", "Convert units");
        let message = "Convert 72 degrees Fahrenheit to Celsius";
        let spans = MessageSpans::new(message, &convert);
        let number = message.find("72").unwrap();
        let taken: Range<usize> = number..number + 2;
        let found = candidates(&spans, std::slice::from_ref(&taken), REQUEST);
        assert!(!found.iter().any(|c| c.value.contains("72")), "{found:?}");
        assert!(found.iter().any(|c| c.value == "Celsius"));
    }
}
