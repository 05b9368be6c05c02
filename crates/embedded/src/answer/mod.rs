//! Answer policy: how the reply to the last user message is produced.
//!
//! Measured on the dev splits of `eval/answer-cases.json` and
//! `eval/smalltalk-cases.json` (docs/performance.md), this model neither
//! states tool results reliably nor replies to small talk sensibly, in any
//! language. So by default it writes nothing: an answer to tool results is
//! the results laid out plainly ([`render`]), a failed call is one sentence
//! in the message's language ([`failure`]), and small talk gets a fixed
//! friendly reply in the message's language ([`replies`]). With generated
//! replies on ([`crate::EmbeddedModel::with_generated_replies`]) an English
//! reply is generated and given only if it passes [`verify`] (the results'
//! values stated, nothing invented, no apology, two sentences at most).

mod asked;
mod failure;
mod grounding;
mod render;
mod replies;
mod unserved;
mod verify;

use riverse_llm::Message;
use riverse_tool::ToolManifest;

use crate::inference::chatml::{Role, clip_bytes, open_assistant, push_turn};
use crate::tuning::{ANSWER_QUESTION_BYTES, ANSWER_RESULTS_BYTES, HISTORY_BYTES, HISTORY_MESSAGES};
use asked::{Asked, TurnResult};
pub(crate) use grounding::{NumberGrounding, single_digit};
use replies::Language;
pub(crate) use replies::asks_for_value;
pub(crate) use verify::Flaw;

/// The system prompt when the conversation brings none.
const DEFAULT_SYSTEM: &str = "You are a helpful assistant. Reply briefly and politely.";

/// Added to the system prompt when tools ran: a tiny model otherwise
/// ignores the results and answers from its own (wrong) memory.
const GROUNDED_SYSTEM: &str = "Answer the user's message in one or two short sentences \
    using only the tool results given with it. If a tool failed, say so and give its error.";

/// How an answer is produced.
pub(crate) enum Plan {
    /// Generate after `prompt`, keeping numbers to `grounding`'s sources
    /// (`None` when no tool ran), and give the reply only if it passes
    /// `check`; else `fallback`.
    Generate {
        prompt: String,
        grounding: Option<NumberGrounding>,
        check: Check,
    },
    /// Give this text: the results laid out, the failures, or a fixed reply.
    Given(String),
}

/// What a generated reply is checked against, and what replaces it.
pub(crate) struct Check {
    /// The texts it may take numbers, names and links from.
    sources: Vec<String>,
    /// The values it must state.
    values: Vec<String>,
    pub fallback: String,
}

impl Check {
    /// `Ok` when `reply` may be given, else what is wrong with it.
    pub fn verify(&self, reply: &str) -> Result<(), Flaw> {
        let sources: Vec<&str> = self.sources.iter().map(String::as_str).collect();
        verify::check(reply, &sources, &self.values)
    }
}

/// Decides how to answer `conversation`; `tools` are the tools on offer (a
/// fixed reply to a question says what they are, and an answer says which
/// part of a message no call served), `generate` whether English replies
/// are generated.
pub(crate) fn plan(conversation: &[Message], tools: &[ToolManifest], generate: bool) -> Plan {
    let asked = Asked::of(conversation);
    let language = Language::of(asked.question);
    let summaries: Vec<String> = tools.iter().map(summary).collect();
    let names: Vec<&str> = summaries.iter().map(String::as_str).collect();
    let fixed = || match asked.results.is_empty() {
        true => replies::reply(asked.question, language, &names),
        false => std::iter::once(render::render(&asked.results, language))
            .chain(
                unserved::unserved(asked.question, &asked.results, tools)
                    .into_iter()
                    .map(|part| unserved::not_done(language, part)),
            )
            .collect::<Vec<_>>()
            .join("\n"),
    };
    let all_failed = asked.results.iter().all(|result| result.failed);
    let failures_only = !asked.results.is_empty() && all_failed;
    if !generate || language != Language::English || failures_only {
        return Plan::Given(fixed());
    }
    let (prompt, grounding) = answer_prompt(conversation, &asked);
    let successes = asked.results.iter().filter(|result| !result.failed);
    let check = Check {
        sources: std::iter::once(asked.question)
            .chain(asked.results.iter().map(|result| result.content))
            .map(str::to_owned)
            .collect(),
        values: successes
            .flat_map(|result| verify::key_values(result.content))
            .collect(),
        fallback: fixed(),
    };
    Plan::Generate {
        prompt,
        grounding,
        check,
    }
}

/// Longest part of a tool's description a fixed reply names it by.
const SUMMARY_CHARS: usize = 60;

/// Words a phrase cut short may not end on.
const DANGLING: [&str; 20] = [
    "the", "a", "an", "and", "or", "of", "to", "for", "with", "in", "on", "at", "by", "its",
    "their", "your", "that", "which", "from", "returns",
];

/// A tool as a fixed reply names it: its name, and what it does (its
/// description's first clause, cut at a word), so a question no tool
/// serves hears what the tools can do: `clock (get the current date and
/// time)`.
fn summary(tool: &ToolManifest) -> String {
    let clause = tool
        .description
        .split(['.', ',', ';', ':', '\n'])
        .next()
        .unwrap_or("")
        .trim();
    if clause.is_empty() {
        return tool.name.clone();
    }
    let mut words: Vec<&str> = Vec::new();
    let mut length = 0;
    for word in clause.split_whitespace() {
        length += word.chars().count() + usize::from(!words.is_empty());
        if length > SUMMARY_CHARS {
            // A clause cut short ends on a word that can end a phrase, not
            // "returns the".
            while words
                .last()
                .is_some_and(|last| DANGLING.contains(&last.to_lowercase().as_str()))
            {
                words.pop();
            }
            break;
        }
        words.push(word);
    }
    let what = words.join(" ");
    let mut chars = what.chars();
    let lowered = match chars.next() {
        Some(first) if chars.clone().next().is_some_and(char::is_lowercase) => {
            first.to_lowercase().chain(chars).collect()
        }
        _ => what,
    };
    format!("{} ({lowered})", tool.name)
}

/// The prompt for answering `conversation`, and the texts generated numbers
/// must come from (`None` when no tool ran: nothing to ground in).
///
/// The conversation's own system prompt is left out: it is written for large
/// models, and this one follows its own short instructions better.
fn answer_prompt(conversation: &[Message], asked: &Asked<'_>) -> (String, Option<NumberGrounding>) {
    let Asked {
        at,
        question,
        results,
    } = asked;

    let mut system = DEFAULT_SYSTEM.to_owned();
    if !results.is_empty() {
        system.push('\n');
        system.push_str(GROUNDED_SYSTEM);
    }
    let mut prompt = String::new();
    push_turn(&mut prompt, Role::System, &system);

    let history_end = at.unwrap_or(conversation.len());
    let history: Vec<(Role, &str)> = conversation[..history_end]
        .iter()
        .filter_map(|message| match message {
            Message::User(text) => Some((Role::User, text.as_str())),
            Message::Assistant { content, .. } if !content.trim().is_empty() => {
                Some((Role::Assistant, content.as_str()))
            }
            _ => None,
        })
        .collect();
    for (role, text) in history
        .iter()
        .skip(history.len().saturating_sub(HISTORY_MESSAGES))
    {
        push_turn(&mut prompt, *role, &clip_bytes(text, HISTORY_BYTES));
    }

    let question_shown = clip_bytes(question.trim(), ANSWER_QUESTION_BYTES);
    let results_shown = (!results.is_empty()).then(|| results_section(results));
    let mut turn = question_shown.clone();
    if let Some(shown) = &results_shown {
        turn.push_str("\n\nTool results:");
        turn.push_str(shown);
    }
    push_turn(&mut prompt, Role::User, &turn);
    open_assistant(&mut prompt);

    // Numbers are kept to what the prompt shows, not to what a cut left out.
    let grounding =
        results_shown.map(|shown| NumberGrounding::new([shown.as_str(), question_shown.as_str()]));
    (prompt, grounding)
}

/// This turn's results as the prompt shows them, one `tool: content` line
/// each, within [`ANSWER_RESULTS_BYTES`]: every result keeps the start of
/// its content, an equal share each, so a huge one does not crowd out the
/// others.
fn results_section(results: &[TurnResult<'_>]) -> String {
    let share = ANSWER_RESULTS_BYTES / results.len().max(1);
    let lines: String = results
        .iter()
        .map(|result| {
            // The line's own bytes: its break, the tool's name, `: ` and
            // the ellipsis of a cut.
            let framing = result.tool.len() + 6;
            let content = clip_bytes(result.content.trim(), share.saturating_sub(framing));
            format!("\n{}: {content}", result.tool)
        })
        .collect();
    // Only many results with long names reach this.
    clip_bytes(&lines, ANSWER_RESULTS_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;
    use riverse_llm::ToolCall;

    /// `question`, then one call and result per `(tool, content, failed)`.
    fn turn(question: &str, results: &[(&str, &str, bool)]) -> Vec<Message> {
        let calls: Vec<ToolCall> = results
            .iter()
            .enumerate()
            .map(|(index, (tool, _, _))| ToolCall {
                id: format!("call_{index}"),
                name: (*tool).to_owned(),
                arguments: "{}".to_owned(),
            })
            .collect();
        let mut conversation = vec![Message::User(question.to_owned())];
        if !calls.is_empty() {
            conversation.push(Message::Assistant {
                content: String::new(),
                tool_calls: calls,
            });
        }
        for (index, (_, content, failed)) in results.iter().enumerate() {
            conversation.push(Message::Tool {
                call_id: format!("call_{index}"),
                content: (*content).to_owned(),
                failed: *failed,
            });
        }
        conversation
    }

    #[test]
    fn tool_results_of_this_turn_join_the_question() {
        let mut conversation = vec![
            Message::System("You are a large model's agent.".into()),
            Message::User("hi".into()),
            Message::assistant("Hello!"),
        ];
        conversation.extend(turn(
            "time in Tokyo?",
            &[(
                "clock",
                "Monday 2025-01-06 09:30:00 (Asia/Tokyo, UTC+0900)",
                false,
            )],
        ));
        let (prompt, grounding) = answer_prompt(&conversation, &Asked::of(&conversation));
        assert!(prompt.contains(GROUNDED_SYSTEM), "{prompt}");
        assert!(
            !prompt.contains("large model"),
            "the agent's system prompt is not the model's"
        );
        assert!(
            prompt.ends_with(
                "<|im_start|>user\ntime in Tokyo?\n\nTool results:\nclock: Monday 2025-01-06 09:30:00 (Asia/Tokyo, UTC+0900)<|im_end|>\n<|im_start|>assistant\n"
            ),
            "{prompt}"
        );
        assert!(prompt.contains("<|im_start|>assistant\nHello!<|im_end|>"));
        assert!(grounding.is_some());
    }

    fn given(plan: Plan) -> String {
        match plan {
            Plan::Given(text) => text,
            Plan::Generate { .. } => panic!("expected a given answer"),
        }
    }

    #[test]
    fn by_default_tool_results_are_the_answer_in_every_language() {
        let result = "Tokyo: 17:32, Tuesday 1 December 2026";
        for question in [
            "What time is it in Tokyo?",
            "東京は今何時？",
            "东京现在几点",
        ] {
            let conversation = turn(question, &[("clock", result, false)]);
            assert_eq!(given(plan(&conversation, &[], false)), result, "{question}");
        }
        let japanese = turn("東京は今何時？", &[("clock", result, false)]);
        assert_eq!(
            given(plan(&japanese, &[], true)),
            result,
            "Japanese is never generated"
        );
        let english = turn("What time is it in Tokyo?", &[("clock", result, false)]);
        let Plan::Generate { check, .. } = plan(&english, &[], true) else {
            panic!("English answers may be generated");
        };
        assert_eq!(
            check.verify("It is 17:32 on Tuesday 1 December 2026."),
            Ok(())
        );
        assert!(
            check.verify("It is 17:32.").is_err(),
            "the date is left out"
        );
        assert_eq!(check.fallback, result);
    }

    #[test]
    fn by_default_small_talk_gets_a_fixed_reply_and_a_question_hears_of_the_tools() {
        assert!(given(plan(&turn("Thanks!", &[]), &[], false)).starts_with("You're welcome"));
        let tools = ["clock", "weather"].map(|name| ToolManifest {
            name: name.into(),
            ..ToolManifest::default()
        });
        let reply = given(plan(&turn("What is the tallest tree?", &[]), &tools, false));
        assert!(reply.contains("clock, weather"), "{reply}");
    }

    /// Issue 48: where no tool serves a request, the answer says so in the
    /// message's language and names what the tools can do.
    #[test]
    fn a_request_no_tool_serves_hears_what_the_tools_can_do() {
        let tools = [
            (
                "clock",
                "Get the current date and time, optionally in a time zone.",
            ),
            ("word_count", "Count the words of a text."),
        ]
        .map(|(name, description)| ToolManifest {
            name: name.into(),
            description: description.into(),
            ..ToolManifest::default()
        });
        let reply = given(plan(&turn("How tall is Everest?", &[]), &tools, false));
        assert_eq!(
            reply,
            "I can't answer that on my own. I can use these tools: \
             clock (get the current date and time), word_count (count the words of a text)."
        );
        let lanes = ToolManifest {
            name: "search_lanes".into(),
            description: "Finds lanes that are free at a given date and start time and returns \
                          the lane numbers with the price for the session."
                .into(),
            ..ToolManifest::default()
        };
        assert_eq!(
            summary(&lanes),
            "search_lanes (finds lanes that are free at a given date and start time)"
        );
        let reply = given(plan(&turn("珠穆朗玛峰有多高？", &[]), &tools, false));
        assert!(reply.starts_with("这个我自己回答不了"), "{reply}");
        assert!(
            reply.contains("word_count (count the words of a text)"),
            "{reply}"
        );
    }

    /// Issue 49: a failed call is one sentence of the message's language,
    /// never the exception the tool caught.
    #[test]
    fn when_every_call_failed_each_failure_is_a_sentence_in_the_messages_language() {
        let failure = "tool weather failed: weather service unreachable: \
            HTTPSConnectionPool(host='wttr.in', port=443): Max retries exceeded with url: /Oslo";
        for (question, expected) in [
            (
                "Weather in Oslo?",
                "The weather tool couldn't reach the service it uses.",
            ),
            (
                "オスロの天気は？",
                "weather ツールは接続先に接続できませんでした。",
            ),
            ("奥斯陆天气怎么样", "weather 工具无法连接到它使用的服务。"),
        ] {
            let conversation = turn(question, &[("weather", failure, true)]);
            assert_eq!(given(plan(&conversation, &[], false)), expected);
            assert_eq!(given(plan(&conversation, &[], true)), expected);
        }
        let mixed = turn(
            "What time is it in Atlantis and Oslo?",
            &[
                (
                    "clock",
                    "tool clock failed: unknown time zone 'Atlantis'",
                    true,
                ),
                ("clock", "Oslo: 09:30", false),
            ],
        );
        assert_eq!(
            given(plan(&mixed, &[], false)),
            "clock: Oslo: 09:30\nThe clock tool failed: unknown time zone 'Atlantis'.",
            "what succeeded first"
        );
    }

    #[test]
    fn a_result_is_named_by_the_call_it_answers() {
        let conversation = turn(
            "Weather and time?",
            &[("weather", "Oslo: 7°C", false), ("clock", "09:30", false)],
        );
        let names: Vec<&str> = Asked::of(&conversation)
            .results
            .iter()
            .map(|result| result.tool)
            .collect();
        assert_eq!(names, ["weather", "clock"]);
    }

    #[test]
    fn japanese_and_chinese_small_talk_get_a_reply_in_their_language() {
        assert!(given(plan(&turn("おやすみ", &[]), &[], true)).starts_with("はい"));
        assert!(given(plan(&turn("谢谢你", &[]), &[], true)).starts_with("不客气"));
    }

    #[test]
    fn english_small_talk_is_generated_and_checked() {
        let Plan::Generate {
            prompt,
            grounding,
            check,
        } = plan(&turn("Good evening!", &[]), &[], true)
        else {
            panic!("English small talk is generated");
        };
        assert!(prompt.contains(DEFAULT_SYSTEM), "{prompt}");
        assert!(grounding.is_none());
        assert_eq!(check.verify("Good evening! How are you?"), Ok(()));
        assert!(check.verify("Sorry, I cannot help.").is_err());
        assert!(check.verify("Visit https://example.com today.").is_err());
        assert!(check.fallback.starts_with("Hello"), "{}", check.fallback);
    }

    /// Issue 21, H7: what the model reads of a conversation is bounded,
    /// however large its question, results or history.
    #[test]
    fn an_answer_prompt_is_bounded_whatever_the_conversation_holds() {
        let huge = "lorem ipsum dolor sit amet ".repeat(40_000);
        let wide = "東京🍕".repeat(150_000);
        let mut conversation = Vec::new();
        for _ in 0..10 {
            conversation.push(Message::User(wide.clone()));
            conversation.push(Message::assistant(&huge));
        }
        let results: Vec<(&str, &str, bool)> =
            (0..50).map(|_| ("clock", huge.as_str(), false)).collect();
        conversation.extend(turn(&format!("What time is it? {wide}"), &results));
        let (prompt, _) = answer_prompt(&conversation, &Asked::of(&conversation));
        // Instructions and ChatML framing, as `HISTORY_BYTES` counts them.
        let fixed = 500;
        let ellipsis = "…".len();
        let bound = HISTORY_MESSAGES * (HISTORY_BYTES + ellipsis)
            + ANSWER_QUESTION_BYTES
            + ANSWER_RESULTS_BYTES
            + 2 * ellipsis
            + fixed;
        assert!(prompt.len() <= bound, "{} bytes", prompt.len());
        assert!(bound < 7_000, "the bound HISTORY_BYTES states");
        assert!(prompt.contains("What time is it?"), "the question's start");
        assert_eq!(
            prompt.matches("\nclock: lorem").count(),
            50,
            "every result keeps its start"
        );
    }

    #[test]
    fn a_short_conversation_is_read_whole() {
        let conversation = turn("What time is it?", &[("clock", "09:30", false)]);
        let (prompt, _) = answer_prompt(&conversation, &Asked::of(&conversation));
        assert!(prompt.contains("What time is it?\n\nTool results:\nclock: 09:30<|im_end|>"));
        assert!(!prompt.contains('…'), "{prompt}");
    }

    #[test]
    fn without_tool_results_nothing_is_grounded() {
        let conversation = turn("Hello", &[]);
        let (prompt, grounding) = answer_prompt(&conversation, &Asked::of(&conversation));
        assert!(prompt.contains(DEFAULT_SYSTEM));
        assert!(grounding.is_none());
    }
}
