//! Answer policy: how the reply to the last user message is produced. With
//! tool results it is grounded in them ([`NumberGrounding`] keeps its
//! numbers to theirs) and checked to use them; when every call failed, or
//! the question is Japanese or Chinese, the results are given as they are.

mod asked;
mod grounding;

use riverse_llm::Message;
use riverse_route::script::mostly_cjk;

use crate::inference::chatml::{Role, clip_bytes, open_assistant, push_turn};
use crate::tuning::{ANSWER_QUESTION_BYTES, ANSWER_RESULTS_BYTES, HISTORY_BYTES, HISTORY_MESSAGES};
use asked::{Asked, TurnResult};
pub(crate) use grounding::{NumberGrounding, single_digit};

/// The system prompt when the conversation brings none.
const DEFAULT_SYSTEM: &str = "You are a helpful assistant. Reply briefly and politely.";

/// Added to the system prompt when tools ran: a tiny model otherwise
/// ignores the results and answers from its own (wrong) memory.
const GROUNDED_SYSTEM: &str = "Answer the user's message in one or two short sentences \
    using only the tool results given with it. If a tool failed, say so and give its error.";

/// Added for Japanese or Chinese small talk: the model's own Japanese is
/// garbled, its English is readable.
const ENGLISH_ONLY: &str = "Reply in English.";

/// How an answer is produced.
pub(crate) enum Plan {
    /// Generate after `prompt`, keeping numbers to `grounding`'s sources
    /// (`None` when no tool ran: nothing to ground in).
    Generate {
        prompt: String,
        grounding: Option<NumberGrounding>,
    },
    /// Give the tool results as they are: when every call failed (the model
    /// would invent an answer around the error), and for a Japanese or
    /// Chinese question (the model writes almost none, and would bury the
    /// results in garbled text).
    Verbatim(String),
}

/// Decides how to answer `conversation`.
pub(crate) fn plan(conversation: &[Message]) -> Plan {
    let asked = Asked::of(conversation);
    let all_failed = asked.results.iter().all(|result| result.failed);
    if !asked.results.is_empty() && (all_failed || mostly_cjk(asked.question)) {
        return Plan::Verbatim(verbatim(&asked.results));
    }
    let (prompt, grounding) = answer_prompt(conversation, &asked);
    Plan::Generate { prompt, grounding }
}

/// The results of this turn as they are, one per line.
fn verbatim(results: &[TurnResult<'_>]) -> String {
    let lines: Vec<String> = results
        .iter()
        .map(|result| match result.failed {
            // A failure already names its tool ("tool weather failed: ...").
            true => result.content.trim().to_owned(),
            false => format!("{}: {}", result.tool, result.content.trim()),
        })
        .collect();
    lines.join("\n")
}

/// What to say instead of `generated` when it does not use this turn's tool
/// results (the model answered from its own memory, or refused): the
/// results as they are. `None` keeps `generated`.
///
/// An answer uses the results when it repeats one of their numbers, or,
/// for results without numbers, one of their words (four letters or more)
/// that the question does not already contain.
pub(crate) fn ungrounded_replacement(conversation: &[Message], generated: &str) -> Option<String> {
    let Asked {
        question, results, ..
    } = Asked::of(conversation);
    if results.is_empty() {
        return None;
    }
    let question = question.to_lowercase();
    let generated = generated.to_lowercase();
    let words_of = |text: &str| -> Vec<String> {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|word| !word.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    let said: Vec<String> = words_of(&generated);
    let evidence: Vec<String> = results
        .iter()
        .filter(|result| !result.failed)
        .flat_map(|result| words_of(result.content))
        .collect();
    let numbers: Vec<&String> = evidence
        .iter()
        .filter(|word| word.chars().all(|c| c.is_ascii_digit()))
        .collect();
    let used = if numbers.is_empty() {
        evidence
            .iter()
            .filter(|word| word.chars().count() >= 4 && !question.contains(word.as_str()))
            .any(|word| said.contains(word))
    } else {
        numbers.iter().any(|number| said.contains(number))
    };
    (!used).then(|| verbatim(&results))
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
    if mostly_cjk(question) {
        system.push('\n');
        system.push_str(ENGLISH_ONLY);
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

    #[test]
    fn a_japanese_question_gets_its_tool_results_verbatim() {
        let conversation = turn(
            "ロンドンは今何時？",
            &[(
                "clock",
                "Monday 2025-01-06 00:30:00 (Europe/London, UTC+0000)\n",
                false,
            )],
        );
        let Plan::Verbatim(text) = plan(&conversation) else {
            panic!("expected the results as they are");
        };
        assert_eq!(
            text,
            "clock: Monday 2025-01-06 00:30:00 (Europe/London, UTC+0000)"
        );
    }

    #[test]
    fn when_every_call_failed_the_failures_are_the_answer() {
        let failure = "tool clock failed: unknown time zone 'Atlantis' (port 443)";
        let conversation = turn("What time is it in Atlantis?", &[("clock", failure, true)]);
        let Plan::Verbatim(text) = plan(&conversation) else {
            panic!("a failure is reported as it is, not answered from memory");
        };
        assert_eq!(text, failure);
        let mixed = turn(
            "What time is it in Atlantis and Oslo?",
            &[("clock", failure, true), ("clock", "Monday 09:30", false)],
        );
        assert!(
            matches!(plan(&mixed), Plan::Generate { .. }),
            "one result to answer from is enough"
        );
    }

    #[test]
    fn an_answer_that_ignores_the_results_gives_way_to_them() {
        let conversation = turn(
            "What time is it in Tokyo?",
            &[(
                "clock",
                "Monday 2026-11-30 20:11:21 (Asia/Tokyo, UTC+0900)",
                false,
            )],
        );
        assert_eq!(
            ungrounded_replacement(&conversation, "I can't access time data in Tokyo.").as_deref(),
            Some("clock: Monday 2026-11-30 20:11:21 (Asia/Tokyo, UTC+0900)")
        );
        assert_eq!(
            ungrounded_replacement(&conversation, "It is 20:11 on Monday in Tokyo."),
            None
        );
        assert_eq!(
            ungrounded_replacement(&turn("Hello", &[]), "Hi there!"),
            None,
            "without results there is nothing to ground in"
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
    fn japanese_small_talk_is_answered_in_english() {
        let Plan::Generate { prompt, .. } = plan(&turn("おやすみ", &[])) else {
            panic!("small talk is generated");
        };
        assert!(prompt.contains(ENGLISH_ONLY), "{prompt}");
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
