//! A message's grammatical form: whether it asks a question, asks for
//! something, states something, or is a bare fragment ("weather Paris").
//!
//! Small talk is mostly statements ("The weather has been lovely lately",
//! 最近いい天気が続いてるね), and a statement about a tool's topic asks for
//! nothing; the tool choice asks more of a tool before it answers one. The
//! form is read from closed-class words only (question words, auxiliaries,
//! subjects, request markers, Japanese and Chinese sentence endings; the
//! data files `form_english.txt` and `form_cjk.txt`), never from topics.

use std::sync::LazyLock;

use crate::actions::{is_changing_verb, without_asides};
use crate::script::{is_cjk, mostly_cjk};
use crate::words::{REQUEST_LEAD_INS, data_lines};

/// What a message does, as its grammar shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MessageForm {
    /// Asks a question ("What time is it?", 何時？, 几点).
    Question,
    /// Asks for something to be done ("Please convert…", 教えて, 帮我).
    Request,
    /// A fragment without a verb of its own ("weather in Paris", 東京の天気):
    /// usually a terse request.
    Fragment,
    /// States or exclaims something and asks for nothing.
    Statement,
}

impl MessageForm {
    pub fn name(self) -> &'static str {
        match self {
            MessageForm::Question => "question",
            MessageForm::Request => "request",
            MessageForm::Fragment => "fragment",
            MessageForm::Statement => "statement",
        }
    }
}

/// The form of `message`: a question or request if any of its sentences is
/// one (the ask may come anywhere: "My flight lands at 8. What time is it
/// there?", "パスワードをリセットして。ユーザー名はtanaka01です"); else,
/// for Japanese and Chinese, whose sentences end in their form, the form
/// of how the message ends.
pub fn message_form(message: &str) -> MessageForm {
    let message = message.trim();
    if mostly_cjk(message) {
        let forms: Vec<MessageForm> = cjk_sentences(message).map(cjk_form).collect();
        return [MessageForm::Question, MessageForm::Request]
            .into_iter()
            .find(|asking| forms.contains(asking))
            .unwrap_or_else(|| cjk_form(message));
    }
    let sentences: Vec<(&str, MessageForm)> = sentences(message)
        .map(|sentence| (sentence, english_form(sentence)))
        .collect();
    let has = |wanted: MessageForm| sentences.iter().any(|(_, form)| *form == wanted);
    // Beside a statement, a fragment closed by a full stop is a remark
    // ("Rain again. Of course it rains today.").
    let remarks = sentences
        .iter()
        .all(|(sentence, form)| *form != MessageForm::Fragment || sentence.ends_with(['.', '!']));
    if has(MessageForm::Question) {
        MessageForm::Question
    } else if has(MessageForm::Request) {
        MessageForm::Request
    } else if has(MessageForm::Fragment) && !(has(MessageForm::Statement) && remarks) {
        MessageForm::Fragment
    } else {
        MessageForm::Statement
    }
}

/// The closed-class words of one data file: `class: word` lines.
struct FormWords {
    entries: Vec<(&'static str, &'static str)>,
}

impl FormWords {
    fn parse(data: &'static str) -> Self {
        FormWords {
            entries: data_lines(data)
                .filter_map(|line| line.split_once(':'))
                .map(|(class, word)| (class.trim(), word.trim()))
                .collect(),
        }
    }

    fn of<'a>(&'a self, class: &'a str) -> impl Iterator<Item = &'static str> + 'a {
        self.entries
            .iter()
            .filter(move |(entry_class, _)| *entry_class == class)
            .map(|(_, word)| *word)
    }
}

/// How many words after the first may hold the finite verb that makes a
/// sentence a statement: a subject comes first ("The old bridge was
/// closed"), while a request's verb comes first and a later "is" belongs to
/// what it asks about ("Write to Tom saying the party is on Friday").
const VERB_WITHIN: usize = 4;

static ENGLISH: LazyLock<FormWords> =
    LazyLock::new(|| FormWords::parse(include_str!("../data/form_english.txt")));
static CJK: LazyLock<FormWords> =
    LazyLock::new(|| FormWords::parse(include_str!("../data/form_cjk.txt")));

/// The sentences of a spaced-script message, each with its final mark.
fn sentences(message: &str) -> impl Iterator<Item = &str> {
    message
        .split_inclusive(['.', '!', '?', '\n'])
        .map(str::trim)
        .filter(|sentence| sentence.chars().any(char::is_alphanumeric))
}

/// The sentences of a Chinese or Japanese message, each with its final
/// mark.
fn cjk_sentences(message: &str) -> impl Iterator<Item = &str> {
    message
        .split_inclusive(['。', '！', '？', '!', '?', '\n'])
        .map(str::trim)
        .filter(|sentence| sentence.chars().any(char::is_alphanumeric))
}

/// The lower-case words of an English sentence outside quotations (a
/// quoted phrase is what a request is about, not its grammar), curly
/// apostrophes made straight and punctuation around words dropped.
fn english_words(sentence: &str) -> Vec<String> {
    without_quotations(&sentence.to_lowercase().replace('’', "'"))
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | ':'))
        .map(|word| word.trim_matches(|c: char| !c.is_alphanumeric() && c != '\''))
        .filter(|word| !word.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Whether `words` holds the words of `phrase` in a row, from `at` on only
/// when `anchored`.
fn has_phrase(words: &[String], phrase: &str, anchored: bool) -> bool {
    let wanted: Vec<&str> = phrase.split_whitespace().collect();
    let fits = |start: usize| {
        words.len() >= start + wanted.len()
            && wanted
                .iter()
                .zip(&words[start..])
                .all(|(want, word)| word == want)
    };
    if anchored {
        fits(0)
    } else {
        (0..words.len()).any(fits)
    }
}

/// `text` with its quoted phrases ('…', "…", “…”, 「…」, 《…》) left out. An
/// apostrophe inside a word ("don't", "IBM's") opens no quotation.
pub(crate) fn without_quotations(text: &str) -> String {
    let mut kept = String::with_capacity(text.len());
    let mut closing: Option<char> = None;
    let mut previous = ' ';
    for c in text.chars() {
        match closing {
            Some(close) if c == close => closing = None,
            Some(_) => {}
            None => {
                let opens = match c {
                    '\'' if !previous.is_alphanumeric() => Some('\''),
                    '"' => Some('"'),
                    '“' => Some('”'),
                    '「' => Some('」'),
                    '『' => Some('』'),
                    '《' => Some('》'),
                    _ => None,
                };
                match opens {
                    Some(close) => {
                        closing = Some(close);
                        kept.push(' ');
                    }
                    None => kept.push(c),
                }
            }
        }
        previous = c;
    }
    kept
}

fn english_form(sentence: &str) -> MessageForm {
    let mut words = english_words(sentence);
    // Words before the content ("hey", "ok so", "btw") say nothing of form.
    loop {
        let lead = ENGLISH
            .of("lead")
            .find(|lead| has_phrase(&words, lead, true));
        match lead {
            Some(lead) if words.len() > lead.split_whitespace().count() => {
                words.drain(..lead.split_whitespace().count());
            }
            _ => break,
        }
    }
    let Some(first) = words.first() else {
        return MessageForm::Fragment;
    };
    let exclaims = sentence.ends_with('!');
    if ENGLISH
        .of("request")
        .any(|request| has_phrase(&words, request, false))
    {
        return MessageForm::Request;
    }
    if sentence.ends_with('?') {
        return MessageForm::Question;
    }
    if ENGLISH.of("question").any(|word| word == first) {
        let exclamation = words
            .get(1)
            .is_some_and(|second| ENGLISH.of("exclamation").any(|word| word == second));
        return if exclamation || exclaims {
            MessageForm::Statement
        } else {
            MessageForm::Question
        };
    }
    let states = exclaims || states(&words);
    match states {
        true if has_imperative_clause(sentence) || opens_imperative(sentence) => {
            MessageForm::Request
        }
        true => MessageForm::Statement,
        false => MessageForm::Fragment,
    }
}

/// Whether `words` open with a subject, or hold a finite verb soon after
/// the first: a statement's grammar.
fn states(words: &[String]) -> bool {
    let Some(first) = words.first() else {
        return false;
    };
    ENGLISH.of("subject").any(|word| word == first)
        || words.iter().skip(1).take(VERB_WITHIN).any(|word| {
            ENGLISH
                .of("verb")
                .any(|verb| word == verb || (verb.starts_with('\'') && word.ends_with(verb)))
        })
        || !opens_with_verb(first)
            && (1..words.len().min(VERB_WITHIN + 2)).any(|at| {
                let before = words[at - 1].as_str();
                // After a verb of wanting the participle describes its object
                // ("need controlled storage").
                let attributive = ATTRIBUTIVE_BEFORE.contains(&before) || WANTING.contains(&before);
                // A subject that names a record by its code ("ticket P-11002
                // paid in full") tells of that record, as a fragment does.
                let coded = words[..at]
                    .iter()
                    .any(|word| word.chars().any(|c| c.is_ascii_digit()));
                is_past_tense(&words[at]) && !attributive && !coded
            })
}

/// Words after which a past participle describes the noun that follows
/// ("the booked lanes", "all cancelled orders"), no verb.
const ATTRIBUTIVE_BEFORE: &[&str] = &[
    "the", "a", "an", "my", "our", "your", "his", "her", "their", "this", "that", "these", "those",
    "all", "any", "some", "no", "of", "for", "with", "in", "on", "to", "from", "newly", "recently",
    "already", "not", "un",
];

/// Whether `word` is a verb an imperative opens with: a past tense after
/// it tells of what it acts on ("book guided tours", "find anyone named
/// Kowalski", "show everything I recorded").
fn opens_with_verb(word: &str) -> bool {
    is_changing_verb(word) || IMPERATIVE_READS.contains(&word)
}

/// Verbs of wanting, whose object a participle may describe ("I need
/// heated storage").
const WANTING: &[&str] = &["need", "needs", "want", "wants", "like", "get"];

/// Words that end in "-ed" and are no verb.
const NOT_PAST: &[&str] = &["hundred", "seabed", "kindred", "sacred", "naked", "wicked"];

/// Whether `word` (lower case) is a verb in the past tense: "-ed" on a
/// word of five letters or more ("arrived", not "need" or "speed"), or an
/// irregular past of `form_english.txt` ("paid", "had").
pub fn is_past_tense(word: &str) -> bool {
    ENGLISH.of("past").any(|past| past == word)
        || word.len() >= 5
            && word.ends_with("ed")
            && !word.ends_with("eed")
            && !NOT_PAST.contains(&word)
}

/// Whether the first clause, an aside in brackets left out, opens with a
/// verb that asks for something and states nothing itself: "cancel
/// WC-4502, we're selling the house" asks, then says why.
fn opens_imperative(sentence: &str) -> bool {
    let first = sentence
        .split([',', ';', '—', '–'])
        .next()
        .unwrap_or(sentence);
    let words = english_words(&without_asides(first));
    let opening = words
        .iter()
        .position(|word| !POLITE_OPENINGS.contains(&word.as_str()))
        .map_or(&words[..0], |at| &words[at..]);
    opening
        .first()
        .is_some_and(|word| is_changing_verb(word) || IMPERATIVE_READS.contains(&word.as_str()))
        && !states(opening)
}

/// Words an imperative may follow ("pls cancel…"); a subject ("we
/// order…") makes it a statement.
const POLITE_OPENINGS: [&str; 8] = [
    "please", "pls", "plz", "kindly", "just", "quickly", "now", "then",
];

/// Verbs that only read but open a request as surely as a changing one
/// ("…, show me the rest").
const IMPERATIVE_READS: [&str; 6] = ["show", "find", "search", "check", "tell", "list"];

/// Whether a clause after the first opens with a verb that asks for
/// something: "We're out of eggs, put a dozen on the list" states, then
/// asks. Verbs that read as often close a remark ("…, see you") are left
/// out.
fn has_imperative_clause(sentence: &str) -> bool {
    sentence.split([',', ';', '—', '–']).skip(1).any(|clause| {
        let words = english_words(clause);
        let opening = words
            .iter()
            .find(|word| !REQUEST_LEAD_INS.contains(word.as_str()) && word.as_str() != "then");
        opening
            .is_some_and(|word| is_changing_verb(word) || IMPERATIVE_READS.contains(&word.as_str()))
    })
}

fn cjk_form(message: &str) -> MessageForm {
    let message = without_quotations(message);
    let message = message.trim();
    let asks = message.ends_with(['？', '?']);
    // The ending without its closing marks, emoticons and laughter.
    let end = message.trim_end_matches(|c: char| {
        !(is_cjk(c) || c.is_alphanumeric()) || matches!(c, 'w' | 'ｗ' | '笑')
    });
    let ends_with = |class: &str| CJK.of(class).any(|ending| end.ends_with(ending));
    let holds = |class: &str| CJK.of(class).any(|word| message.contains(word));
    if ends_with("asking-request-ending") || holds("asking-request-word") {
        MessageForm::Request
    } else if asks {
        MessageForm::Question
    } else if ends_with("request-ending") {
        MessageForm::Request
    } else if ends_with("question-ending") {
        MessageForm::Question
    } else if holds("request-word") {
        MessageForm::Request
    } else if ends_with("statement-ending") || message.ends_with(['！', '!']) {
        MessageForm::Statement
    } else if asks_with_a_word(message) {
        MessageForm::Question
    } else if holds("statement-word")
        || CJK
            .of("subject")
            .any(|subject| message.starts_with(subject))
    {
        MessageForm::Statement
    } else {
        MessageForm::Fragment
    }
}

/// Whether the Chinese or Japanese span `value` is the request itself, no
/// value in it: it opens with a request word (帮我, 我想, 麻烦, お願い) or
/// one that asks whether (有没有, 能不能), or ends as a request does
/// (查一下, 登録したいです). A request word of one character (请) opens a
/// request only before more than a word: 请假 is a leave of absence.
pub(crate) fn is_cjk_request(value: &str) -> bool {
    let value = value.trim();
    if !value.chars().next().is_some_and(is_cjk) {
        return false;
    }
    let long = value.chars().count() > 3;
    let opens = ["request-word", "asking-request-word", "asking-whether"]
        .iter()
        .flat_map(|class| CJK.of(class))
        .any(|word| value.starts_with(word) && (long || word.chars().count() > 1));
    let end = value.trim_end_matches(|c: char| !(is_cjk(c) || c.is_alphanumeric()));
    let ends = ["request-ending", "asking-request-ending"]
        .iter()
        .flat_map(|class| CJK.of(class))
        .any(|ending| ending.chars().count() > 1 && end.ends_with(ending));
    opens || ends
}

/// Whether a question word asks in `message`: one followed by 都 or 也
/// ("什么都没干成": got nothing done) or after 这, 那 or 好 ("这几天": these
/// few days) is an indefinite, not a question.
fn asks_with_a_word(message: &str) -> bool {
    CJK.of("question-word").any(|word| {
        message.match_indices(word).any(|(at, _)| {
            !message[at + word.len()..].starts_with(['都', '也'])
                && !message[..at].ends_with(['这', '那', '好', '這'])
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Made-up messages of every form; the evaluation's are not repeated
    /// here.
    #[test]
    fn english_forms() {
        for (message, form) in [
            ("What's the exchange rate today", MessageForm::Question),
            ("so how far is Rome from Milan", MessageForm::Question),
            ("Is the museum open on Sundays?", MessageForm::Question),
            ("Could you look up the opening hours", MessageForm::Request),
            ("I'd like a summary of report.txt", MessageForm::Request),
            ("Send it to Dana please", MessageForm::Request),
            // Asking on behalf of a household, or of anyone who can help.
            (
                "we would like the boiler serviced in March",
                MessageForm::Request,
            ),
            (
                "can someone look at the gutter tomorrow?",
                MessageForm::Request,
            ),
            ("can we have the room until six?", MessageForm::Request),
            ("can we park behind the hall?", MessageForm::Question),
            ("temperature in Lima", MessageForm::Fragment),
            ("12 inches to cm", MessageForm::Fragment),
            (
                "The museum was packed this morning.",
                MessageForm::Statement,
            ),
            (
                "I walked all the way to the harbour.",
                MessageForm::Statement,
            ),
            ("What a view from up here!", MessageForm::Statement),
            ("Snow again!", MessageForm::Statement),
            (
                "Well, of course it snows on a Sunday.",
                MessageForm::Statement,
            ),
            ("Snow again. It always snows here.", MessageForm::Statement),
            ("I'm in Oslo. weather tomorrow", MessageForm::Fragment),
            ("Paris is beautiful in spring", MessageForm::Statement),
            (
                "the new hydrant wrench set arrived, finally",
                MessageForm::Statement,
            ),
            ("ticket P-11002 paid in full by card", MessageForm::Fragment),
            ("the booked lanes for Friday", MessageForm::Fragment),
            (
                "need controlled atmosphere storage for 60 bins",
                MessageForm::Fragment,
            ),
            ("two hundred bins for block A", MessageForm::Fragment),
            (
                "find anyone named Kowalski born before 1900",
                MessageForm::Fragment,
            ),
            (
                "show everything I recorded at Ashby Marsh",
                MessageForm::Fragment,
            ),
            ("You're a star", MessageForm::Statement),
            ("Check Nike's stock", MessageForm::Fragment),
            ("Spell 'it is raining' backwards", MessageForm::Fragment),
            (
                "Send a text to Ana saying the bus is late",
                MessageForm::Fragment,
            ),
            (
                "My train leaves at 6. How cold is it in Bern?",
                MessageForm::Question,
            ),
            (
                "The printer is jammed again, book a repair for Monday",
                MessageForm::Request,
            ),
            (
                "We're low on coffee; please add two bags",
                MessageForm::Request,
            ),
            (
                "It was a lovely evening, see you soon",
                MessageForm::Statement,
            ),
            (
                "The museum was packed, lines everywhere.",
                MessageForm::Statement,
            ),
            (
                "pls delete order 88, we've moved house",
                MessageForm::Request,
            ),
            (
                "Show the organisers (I'm new here) that the van is fixed",
                MessageForm::Request,
            ),
            (
                "We order pizza every Friday, it's a tradition",
                MessageForm::Statement,
            ),
            (
                "Book club was great, see you next week",
                MessageForm::Statement,
            ),
        ] {
            assert_eq!(message_form(message), form, "{message}");
        }
    }

    #[test]
    fn japanese_and_chinese_forms() {
        for (message, form) in [
            ("札幌の気温は何度？", MessageForm::Question),
            ("明日は晴れるかな", MessageForm::Question),
            ("この文を英語にして", MessageForm::Request),
            ("「雨が降った」を英訳", MessageForm::Fragment),
            ("札幌の気温を調べてください", MessageForm::Request),
            ("札幌の気温", MessageForm::Fragment),
            ("昨日は札幌に行った", MessageForm::Statement),
            ("札幌は寒いね", MessageForm::Statement),
            ("广州现在几点", MessageForm::Question),
            ("帮我查一下汇率", MessageForm::Request),
            ("广州今天好热啊", MessageForm::Statement),
            ("我昨天去了广州", MessageForm::Statement),
            ("这里的咖啡真香", MessageForm::Statement),
            ("在广州什么也没买", MessageForm::Fragment),
            ("这几天广州很闷", MessageForm::Fragment),
            ("札幌の冬は長い", MessageForm::Statement),
            ("札幌の天気が知りたい", MessageForm::Request),
            ("2週間お休みにしたいです", MessageForm::Request),
            ("駅前のホテルを探しています", MessageForm::Request),
            ("我在找周末的钢琴课", MessageForm::Request),
            (
                "パスワードをリセットして。ユーザー名はsato02です",
                MessageForm::Request,
            ),
            // A polite request put as a question still asks for something.
            (
                "金曜の午後に窓の点検をお願いできますか？",
                MessageForm::Request,
            ),
            ("能帮我订一张明天的票吗？", MessageForm::Request),
            ("金曜の午後は空いていますか？", MessageForm::Question),
            ("下个月要出差，想把预约推迟到周五。", MessageForm::Request),
        ] {
            assert_eq!(message_form(message), form, "{message}");
        }
    }
}
