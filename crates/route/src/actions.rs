//! The action a request asks for, and the actions a tool offers: a request
//! to close a ticket is not for a tool that creates tickets, however near
//! its topic.
//!
//! Actions are a few coarse classes (create, modify, remove, stop, trade,
//! send, read, compute) and narrower changes (move, rename, restore,
//! export, dispute, refund), named by the words in `data/actions.txt`. A
//! request names its action with a verb at the start of a clause, after
//! words such as "please" or "can you" (`data/request_lead_ins.txt`), or,
//! in Chinese and Japanese, with a term anywhere outside quoted content.
//! A manifest offers the classes that its name's first word, its
//! description's clauses' first words (inflected or not: "Creates an
//! issue", "Searches the web and returns") and the requests among its
//! examples name; one that names no changing action (a "Latest stock
//! quotes" tool) offers reading and computing. A manifest's other
//! words are not read: they are mostly nouns ("Read a text file", "Start
//! time", "Items to add"), not what the tool does. A request is served by
//! a tool that offers one of its actions, or by any tool when it names none.

use std::sync::LazyLock;

use crate::clause_verbs::{labels_record, names_no_action, sets_to_number};
use crate::form::without_quotations;
use crate::script::is_cjk;
use crate::words::{NEGATIONS, REQUEST_LEAD_INS, data_lines};

/// Classes that change nothing: what a manifest without a changing action
/// offers.
const READ_ONLY: [&str; 2] = ["read", "compute"];

/// A set of action classes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Actions(u32);

impl Actions {
    /// Whether no class is in the set.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether a tool offering these actions serves a request that asks for
    /// `requested`: it offers one of them, or the request names none.
    pub fn serve(self, requested: Actions) -> bool {
        requested.is_empty() || self.0 & requested.0 != 0
    }

    /// Whether the set holds a class that changes something (create, send,
    /// remove…): one beyond reading and computing.
    pub fn changes(self) -> bool {
        self.0 & !read_only().0 != 0
    }

    /// Whether the two sets share a class.
    pub fn meets(self, other: Actions) -> bool {
        self.0 & other.0 != 0
    }

    /// The names of the classes in the set, in file order.
    pub fn names(self) -> Vec<&'static str> {
        CLASSES
            .iter()
            .enumerate()
            .filter(|(index, _)| self.0 & (1 << index) != 0)
            .map(|(_, class)| class.name)
            .collect()
    }

    /// The classes in both sets.
    pub fn intersection(self, other: Actions) -> Actions {
        Actions(self.0 & other.0)
    }

    fn without(self, other: Actions) -> Actions {
        Actions(self.0 & !other.0)
    }

    fn with(self, index: usize) -> Actions {
        Actions(self.0 | (1 << index))
    }

    /// The classes of both sets.
    pub fn union(self, other: Actions) -> Actions {
        Actions(self.0 | other.0)
    }
}

/// One class: its name, its English verbs and its CJK terms.
struct Class {
    name: &'static str,
    verbs: Vec<&'static str>,
    terms: Vec<&'static str>,
}

static CLASSES: LazyLock<Vec<Class>> = LazyLock::new(|| parse(include_str!("../data/actions.txt")));

fn parse(data: &'static str) -> Vec<Class> {
    let classes: Vec<Class> = data_lines(data)
        .filter_map(|line| {
            let (name, words) = line.split_once(':')?;
            let (terms, verbs) = words
                .split_whitespace()
                .partition(|word| word.chars().any(is_cjk));
            Some(Class {
                name: name.trim(),
                verbs,
                terms,
            })
        })
        .collect();
    assert!(classes.len() <= 32, "an action set holds 32 classes");
    classes
}

/// The actions `message` asks for: the classes of each clause's leading verb
/// (a negated clause asks for nothing) and of the CJK terms it contains.
///
/// Quoted text, and what a colon introduces after a clause that names an
/// action, is content to send or write, not the request: "给李明发条消息：
/// 会议改到下午三点" asks to send, not to move a meeting.
pub fn requested_actions(message: &str) -> Actions {
    let lower = without_quotations(&without_signature(message).to_lowercase());
    if let Some(head) = before_content(&lower) {
        let asked = actions_named_in(head);
        if !asked.is_empty() {
            return asked;
        }
    }
    actions_named_in(&lower)
}

/// `message` without a name signed at its end ("…, work thing I can't
/// get out of. Mark Ellis"): two or three capitalised words after the
/// last stop are the writer's name, whatever verb its first word spells.
fn without_signature(message: &str) -> &str {
    match crate::self_named::signature(message) {
        Some(name) => message[..name.start]
            .trim_end()
            .trim_end_matches(['.', '!', '?', '\n', ',']),
        None => message,
    }
}

/// The text before the first colon that introduces content: one not
/// inside a clock time ("10:30").
fn before_content(text: &str) -> Option<&str> {
    text.char_indices()
        .find(|&(at, c)| {
            (c == ':' || c == '：')
                && !text[at + c.len_utf8()..].starts_with(|next: char| next.is_ascii_digit())
        })
        .map(|(at, _)| &text[..at])
}

fn actions_named_in(lower: &str) -> Actions {
    let lower = &without_contact_offers(lower);
    let mut found = cjk_actions(lower);
    let conditional = lower
        .split(|c: char| !c.is_alphanumeric())
        .any(|word| CONDITIONS.contains(&word));
    // "I want my money back" asks for a refund whatever its verb.
    if REFUND_PHRASES.iter().any(|phrase| lower.contains(phrase)) {
        found = found.union(classes_of("refund"));
    }
    for clause in clauses(lower) {
        if let Some(verb) = leading_verb(&clause) {
            if labels_record(&clause, verb) || names_no_action(&clause, verb) {
                continue;
            }
            // "drop the price to 30" lowers it, and removes nothing.
            if classes_of(verb).meets(classes_of("delete")) && sets_to_number(&clause) {
                found = found.union(classes_of("change"));
                continue;
            }
            found = found.union(classes_of(verb));
            if conditional && asks_to_be_told(&clause, verb) {
                found = found.union(classes_of("create"));
            }
            if tells_another(&clause, verb) {
                found = found.union(classes_of("send"));
            }
            if hands_over(&clause, verb) {
                found = found.union(classes_of("read"));
            }
        }
    }
    found
}

/// Phrases that ask for a refund without its verb.
const REFUND_PHRASES: &[&str] = &[
    "money back",
    "get a refund",
    "want a refund",
    "need a refund",
    "like a refund",
    "full refund",
];

/// `lower` without the phrases that give the user's own address or number
/// ("email me at sara.k@mail.com", "text me on 07700 900123"): they say
/// where to reach the user, and ask for no message to be sent.
fn without_contact_offers(lower: &str) -> String {
    let words: Vec<&str> = lower.split_whitespace().collect();
    let mut kept: Vec<&str> = Vec::with_capacity(words.len());
    let mut any = false;
    let mut at = 0;
    while at < words.len() {
        let offered = words
            .get(at + 1)
            .is_some_and(|word| matches!(*word, "me" | "us"))
            && words
                .get(at + 2)
                .is_some_and(|word| matches!(*word, "at" | "on" | "via"))
            && classes_of(words[at]).meets(classes_of("send"));
        let contact = match offered {
            true => contact_words(&words[at + 3..]),
            false => 0,
        };
        match contact {
            0 => {
                kept.push(words[at]);
                at += 1;
            }
            // The verb, "me", the preposition and the address go.
            _ => {
                any = true;
                at += 3 + contact;
            }
        }
    }
    match any {
        true => kept.join(" "),
        false => lower.to_owned(),
    }
}

/// How many of `words` an e-mail address or a phone number (seven digits
/// or more, in up to three groups) they open with takes; 0 when they open
/// with neither.
fn contact_words(words: &[&str]) -> usize {
    if words.first().is_some_and(|word| word.contains('@')) {
        return 1;
    }
    let groups: Vec<&str> = words
        .iter()
        .take(3)
        .take_while(|word| {
            let bare = word.trim_end_matches([',', '.', ';']);
            !bare.is_empty()
                && bare
                    .chars()
                    .all(|c| c.is_ascii_digit() || "+-()".contains(c))
        })
        .copied()
        .collect();
    let digits: usize = groups
        .iter()
        .map(|word| word.chars().filter(char::is_ascii_digit).count())
        .sum();
    match digits >= 7 {
        true => groups.len(),
        false => 0,
    }
}

/// Words that make a message to the user wait for something.
const CONDITIONS: [&str; 5] = ["if", "when", "whenever", "once", "until"];

/// Whether `clause` asks to be told ("ping me", "notify us"): beside a
/// condition ("…if flights go under $350") that sets up an alert, which
/// a tool that creates one serves.
fn asks_to_be_told(clause: &[&str], verb: &str) -> bool {
    let told = classes_of(verb).meets(classes_of("notify"));
    let to_me = words_after(clause, verb)
        .next()
        .is_some_and(|word| matches!(word, "me" | "us"));
    told && to_me
}

/// Whether `clause` asks to tell someone other than the user ("Tell Mr
/// Patel that Noah will be late"): a message to send, not one to read.
fn tells_another(clause: &[&str], verb: &str) -> bool {
    verb == "tell"
        && words_after(clause, verb)
            .next()
            .is_some_and(|word| !matches!(word, "me" | "us" | "myself"))
}

/// The words of `clause` after its `verb`, without their punctuation.
pub(super) fn words_after<'a>(
    clause: &'a [&'a str],
    verb: &'a str,
) -> impl Iterator<Item = &'a str> + 'a {
    clause
        .iter()
        .map(|word| word.trim_matches(|c: char| !c.is_alphanumeric()))
        .skip_while(move |word| *word != verb)
        .skip(1)
}

/// Whether `clause` asks to be sent a thing there is ("send me the
/// rehearsal schedule", "email us a copy of the invoice"): the user asks
/// to read it, however it reaches them. Not a message, reminder or alert
/// made for them ("text me a reminder").
fn hands_over(clause: &[&str], verb: &str) -> bool {
    let mut after = words_after(clause, verb);
    let to_me = after.next().is_some_and(|word| matches!(word, "me" | "us"));
    let thing = after
        .by_ref()
        .find(|word| !HANDED_DETERMINERS.contains(word) && !word.is_empty());
    classes_of(verb).meets(classes_of("send"))
        && to_me
        && thing.is_some_and(|thing| !MADE_FOR_THE_USER.contains(&thing))
}

/// Words before the thing a user asks to be sent.
const HANDED_DETERMINERS: &[&str] = &[
    "the", "a", "an", "my", "our", "all", "any", "every", "this", "that", "those", "these", "copy",
    "copies", "of", "over",
];

/// What is sent to a user by being made for them, not read.
const MADE_FOR_THE_USER: &[&str] = &[
    "reminder",
    "reminders",
    "alert",
    "alerts",
    "notification",
    "notifications",
    "message",
    "text",
    "update",
    "updates",
    "when",
    "if",
];

/// The verb of an action class the message's first clause opens with,
/// lowercase ("close" of "close 4471, the printer works again"); `None`
/// when it opens with none.
pub fn leading_action_verb(message: &str) -> Option<String> {
    let lower = message.to_lowercase();
    let clause = clauses(&lower).into_iter().next()?;
    let verb = leading_verb(&clause)?;
    (!classes_of(verb).is_empty()).then(|| verb.to_owned())
}

/// Whether `word` (lowercase) is an English verb of any action class.
pub(crate) fn is_action_verb(word: &str) -> bool {
    !classes_of(word).is_empty()
}

/// Whether `word` (lowercase) is an English verb of a class that changes
/// things, and of none that only reads or computes ("book", not "open").
pub(crate) fn is_changing_verb(word: &str) -> bool {
    let classes = classes_of(word);
    !classes.is_empty() && !classes.meets(read_only())
}

fn read_only() -> Actions {
    classes_named(&READ_ONLY)
}

/// The classes whose names `names` holds.
fn classes_named(names: &[&str]) -> Actions {
    CLASSES
        .iter()
        .enumerate()
        .filter(|(_, class)| names.contains(&class.name))
        .fold(Actions::default(), |actions, (index, _)| {
            actions.with(index)
        })
}

fn classes_of(verb: &str) -> Actions {
    CLASSES
        .iter()
        .enumerate()
        .filter(|(_, class)| class.verbs.contains(&verb))
        .fold(Actions::default(), |actions, (index, _)| {
            actions.with(index)
        })
}

/// The classes of a verb as a manifest writes it, inflected or not
/// ("Deletes", "update").
pub fn verb_actions(word: &str) -> Actions {
    word_actions(&word.to_lowercase())
}

/// The classes of a manifest's lowercase word, inflected or not
/// ("creates", "updated", "tracking", "order's").
fn word_actions(word: &str) -> Actions {
    let word = word.strip_suffix("'s").unwrap_or(word);
    let mut bases = vec![word.to_owned()];
    for suffix in ["s", "es", "d", "ed", "ing"] {
        if let Some(stem) = word.strip_suffix(suffix).filter(|stem| stem.len() >= 2) {
            bases.push(stem.to_owned());
            // "stopped", "shopping": a doubled final consonant.
            let mut chars = stem.chars();
            if let (Some(last), Some(before)) = (chars.next_back(), chars.next_back())
                && last == before
            {
                bases.push(stem[..stem.len() - last.len_utf8()].to_owned());
            }
        }
    }
    bases.iter().fold(Actions::default(), |found, base| {
        found.union(classes_of(base))
    })
}

fn cjk_actions(text: &str) -> Actions {
    let found = CLASSES
        .iter()
        .enumerate()
        .filter(|(_, class)| class.terms.iter().any(|term| names_action(text, term)))
        .fold(Actions::default(), |actions, (index, _)| {
            actions.with(index)
        });
    // 把预约改到周五: beside a change to a record, 预约 is the booking
    // changed, not a new one made.
    let create = classes_of("create");
    let changes_record = ["move", "cancel", "delete", "update"]
        .into_iter()
        .fold(Actions::default(), |actions, verb| {
            actions.union(classes_of(verb))
        })
        .without(create);
    let made = CLASSES
        .iter()
        .filter(|class| class.name == "create")
        .any(|class| {
            class
                .terms
                .iter()
                .any(|term| !RECORD_NOUNS.contains(term) && names_action(text, term))
        });
    match found.meets(changes_record) && !made {
        true => found.without(create),
        false => found,
    }
}

/// Whether `text` writes the CJK action `term` as an action: not only as
/// a noun, after 的 ("我的投诉…处理到哪一步了" asks after a complaint and
/// makes none) or as the object of another action (撤销投诉 withdraws a
/// complaint). What a petition asks for is its action (申请退款). Nor
/// before a word that makes it a record's name (预约号 PC-51230, 予約番号,
/// 申请编号) or 的 (申请的证明, the certificate applied for): the record
/// the request asks after. Nor where the request asks whether it was done
/// (有没有登记, 登记了吗).
fn names_action(text: &str, term: &str) -> bool {
    text.match_indices(term).any(|(at, _)| {
        let before = &text[..at];
        let after = &text[at + term.len()..];
        let object = CLASSES.iter().flat_map(|class| &class.terms).any(|verb| {
            before.ends_with(verb) && !CJK_PETITIONS.contains(verb) && !RECORD_NOUNS.contains(verb)
        });
        // 上次申请的结婚证明: what was applied for, no new application.
        let named_record =
            RECORD_NAMES.iter().any(|name| after.starts_with(name)) || after.starts_with('的');
        // 我有没有登记: whether it was done, to be read.
        let asked_whether = WHETHER_BEFORE.iter().any(|word| before.ends_with(word))
            || WHETHER_AFTER.iter().any(|word| after.starts_with(word));
        !before.ends_with('的') && !object && !named_record && !asked_whether
    })
}

/// Words around an action term that ask whether it was done (有没有登记,
/// 登记了吗, 予約済みですか): a question to read its record.
const WHETHER_BEFORE: &[&str] = &["有没有", "有沒有", "是否", "已经", "已經"];
const WHETHER_AFTER: &[&str] = &["了吗", "了嗎", "了没", "了沒", "过吗", "過嗎", "済み"];

/// Words after an action term that make it the name of a record.
const RECORD_NAMES: &[&str] = &[
    "号", "番号", "编号", "編號", "单号", "id", "ID", "状态", "状況",
];

/// CJK terms that ask for the action written after them (申请退款).
const CJK_PETITIONS: &[&str] = &["申请", "申請", "申し込"];

/// Chinese words of the create class that also name the record made (预约:
/// to book, and a booking).
const RECORD_NOUNS: &[&str] = &[
    "预约", "预订", "预定", "申请", "申請", "登记", "报名", "報名",
];

/// The clauses of a lowercase message, each as its words: split at
/// punctuation and at the words that join requests.
fn clauses(text: &str) -> Vec<Vec<&str>> {
    joined_clauses(text)
        .into_iter()
        .map(|(clause, _)| clause)
        .collect()
}

/// [`clauses`], each with whether a conjunction joins it to the clause
/// before it ("and texts" of "call minutes and texts"), not a stop.
fn joined_clauses(text: &str) -> Vec<(Vec<&str>, bool)> {
    let mut clauses = Vec::new();
    for part in text.split(|c: char| ",;:.!?\n、。！？；：".contains(c)) {
        let mut clause = Vec::new();
        let mut joined = false;
        for word in part.split_whitespace() {
            if matches!(word, "and" | "then" | "or" | "but") {
                clauses.push((std::mem::take(&mut clause), joined));
                joined = true;
            } else {
                clause.push(word);
            }
        }
        clauses.push((clause, joined));
    }
    clauses
}

/// The clause's first word after its lead-in words, when the lead-in does
/// not negate it ("don't send me notifications" asks for no sending) and
/// the word is no subject that a verb follows ("Email is fine", "Order
/// was wrong").
fn leading_verb<'a>(clause: &[&'a str]) -> Option<&'a str> {
    let bare = |word: &'a str| word.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'');
    let mut words = clause.iter().copied().map(bare);
    while let Some(word) = words.next() {
        if NEGATIONS.contains(word) || word.ends_with("n't") {
            return None;
        }
        if !REQUEST_LEAD_INS.contains(word) {
            let subject = words.next().is_some_and(|next| COPULAS.contains(&next));
            return Some(word).filter(|word| !word.is_empty() && !subject);
        }
    }
    None
}

/// Verbs after a clause's first word that make that word its subject.
const COPULAS: [&str; 10] = [
    "is", "isn't", "was", "wasn't", "are", "aren't", "were", "weren't", "seems", "looks",
];

mod offered;
mod unlisted;

pub use offered::offered_actions;
pub(crate) use offered::without_asides;
pub use unlisted::unlisted_verb_actions;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_tools::tool;

    #[test]
    fn wanting_ones_money_back_asks_for_a_refund() {
        let refund = requested_actions("refund order 12");
        assert!(requested_actions("I want my money back for the hire on IR-55102").meets(refund));
        assert!(requested_actions("can I get a refund on LC-40022?").meets(refund));
        assert!(!requested_actions("show my refunds").meets(refund));
    }

    #[test]
    fn a_booking_changed_in_chinese_is_no_new_booking() {
        let create = requested_actions("book a table");
        let moved = requested_actions("把预约 915 改到12月20号下午3点");
        assert!(moved.meets(requested_actions("move it")) && !moved.meets(create));
        assert!(!requested_actions("取消明天的预约").meets(create));
        assert!(requested_actions("帮我预约明天下午").meets(create));
        assert!(requested_actions("添加一个预约，取消旧的").meets(create));
    }

    #[test]
    fn a_cjk_action_term_after_de_or_another_action_is_a_noun() {
        let status = requested_actions("我的投诉编号NC-2026-0902现在处理到哪一步了?");
        assert!(!status.meets(requested_actions("dispute it")));
        assert!(requested_actions("我要投诉这个司机").meets(requested_actions("dispute it")));
        assert!(requested_actions("帮我取消我的预约").meets(requested_actions("cancel it")));
        let withdrawn = requested_actions("请撤销投诉NC-2026-0877。");
        assert!(withdrawn.meets(requested_actions("cancel it")));
        assert!(!withdrawn.meets(requested_actions("dispute it")));
        assert!(requested_actions("我想申请退款").meets(requested_actions("refund it")));
        assert!(
            !requested_actions("请问预约号 PC-31020 现在什么情况？")
                .meets(requested_actions("book it"))
        );
        assert!(
            !requested_actions("我上次申请的证书寄出来了吗？").meets(requested_actions("create"))
        );
        assert!(
            !requested_actions("帮我查一下我有没有登记成选民").meets(requested_actions("create"))
        );
        // 预订 is the booking passed on, 转给 the action.
        assert!(requested_actions("能把我的预订转给朋友吗？").meets(requested_actions("send it")));
    }

    #[test]
    fn a_records_noun_before_its_number_asks_nothing() {
        let order = requested_actions("order 2 pizzas");
        assert!(!requested_actions("Are my glasses ready yet? order 88314").meets(order));
        assert!(!requested_actions("ticket #4471, is it fixed?").meets(order));
        assert!(requested_actions("order 4 boxes of lenses").meets(order));
    }

    #[test]
    fn a_name_signed_at_the_end_asks_nothing() {
        assert!(requested_actions("Sorry, I can't come on Friday. Mark Ellis").is_empty());
        assert!(!requested_actions("I can't come on Friday. mark it as absent").is_empty());
    }

    #[test]
    fn asking_to_be_sent_a_thing_asks_to_read_it() {
        let read = requested_actions("show the schedule");
        assert!(requested_actions("send me the rota for next week").meets(read));
        assert!(requested_actions("can you email us a copy of the invoice?").meets(read));
        assert!(!requested_actions("text me a reminder on Friday").meets(read));
        assert!(!requested_actions("send Priya the rota").meets(read));
    }

    #[test]
    fn dropping_a_value_to_a_number_changes_it() {
        let change = requested_actions("change the price");
        let delete = requested_actions("delete the listing");
        let dropped = requested_actions("drop the price on L-40219 to 30");
        assert!(dropped.meets(change) && !dropped.meets(delete));
        assert!(requested_actions("drop the 9am meeting").meets(delete));
    }

    #[test]
    fn giving_ones_own_address_asks_for_no_message() {
        let send = requested_actions("send the report");
        let lost = requested_actions("I left my bag on the bus, email me at sara.k@mail.com");
        assert!(!lost.meets(send));
        assert!(requested_actions("text me the code").meets(send));
        assert!(!requested_actions("lost my keys, text me on 07700 900123").meets(send));
        assert!(requested_actions("email me at 5pm about the keys").meets(send));
        assert!(requested_actions("email sara.k@mail.com the report").meets(send));
    }

    #[test]
    fn a_request_opens_with_its_action_verb() {
        assert_eq!(
            leading_action_verb("please close 4471, it works").as_deref(),
            Some("close")
        );
        assert_eq!(leading_action_verb("the printer works again"), None);
        assert_eq!(leading_action_verb("don't send it"), None);
    }

    #[test]
    fn every_named_class_exists() {
        let names: Vec<&str> = CLASSES.iter().map(|class| class.name).collect();
        for class in READ_ONLY {
            assert!(names.contains(&class), "{class}");
        }
        assert!(CLASSES.iter().all(|class| !class.verbs.is_empty()));
    }

    #[test]
    fn a_request_names_its_action_with_a_leading_verb() {
        let names = |message| requested_actions(message).names();
        assert_eq!(names("Delete Bob from my contacts"), ["remove"]);
        assert_eq!(names("please cancel my booking"), ["stop"]);
        assert_eq!(names("Can you buy two shares for me?"), ["trade"]);
        assert_eq!(
            names("find a flight, then book it"),
            ["create", "read"],
            "every clause's verb"
        );
        // Not a leading verb, a negated one, or none at all.
        assert!(requested_actions("We need a ticket for the closed door").is_empty());
        assert!(requested_actions("Track LX1 but don't send me anything").names() == ["read"]);
        assert!(requested_actions("What's the weather in Paris?").is_empty());
        assert!(requested_actions("").is_empty());
    }

    #[test]
    fn chinese_and_japanese_terms_name_actions_anywhere() {
        assert_eq!(requested_actions("把工单 OPS-1 关闭").names(), ["stop"]);
        assert_eq!(
            requested_actions("連絡先から田中を削除して").names(),
            ["remove"]
        );
        assert_eq!(requested_actions("帮我买十股").names(), ["trade"]);
        // Telling what one bought asks for no purchase.
        assert!(requested_actions("买了十个鸡蛋，一个多少钱").is_empty());
    }

    #[test]
    fn asking_to_be_told_when_something_happens_sets_up_an_alert() {
        let alert = requested_actions("ping me if flights to Reykjavik go under $350");
        assert!(alert.meets(requested_actions("create")));
        assert!(alert.meets(requested_actions("send")));
        // Without a condition, nothing to watch: a thing to be sent.
        let sent = requested_actions("ping me the report");
        assert!(sent.meets(requested_actions("send")));
        assert!(!sent.meets(requested_actions("create")));
        assert_eq!(
            requested_actions("ping Dana if the build breaks").names(),
            ["send"]
        );
    }

    #[test]
    fn telling_someone_else_sends_a_message() {
        let told = requested_actions("Tell Mr Patel that Noah will be late");
        assert!(told.meets(requested_actions("send")));
        assert!(!requested_actions("tell me my balance").meets(requested_actions("send")));
    }

    #[test]
    fn content_to_send_names_no_action() {
        assert_eq!(
            requested_actions("给李明发条消息：会议改到下午三点").names(),
            ["send"]
        );
        assert_eq!(
            requested_actions("Send Li a message: cancel the 3pm meeting").names(),
            ["send"]
        );
        assert_eq!(
            requested_actions("把“删除”翻译成英语").names(),
            Vec::<&str>::new()
        );
        assert_eq!(
            requested_actions("Two things: cancel the 3pm meeting").names(),
            ["stop"],
            "a colon after no action introduces the request itself"
        );
        assert_eq!(
            requested_actions("delete the 9:00 alarm and add a 10:00 one").names(),
            ["create", "remove"],
            "a clock time's colon introduces nothing"
        );
    }

    #[test]
    fn a_narrow_change_is_served_by_its_own_verb_or_a_verb_of_any_change() {
        let volume = tool(
            "set_volume",
            "Sets the playback volume.",
            &[("level", "0-100")],
        );
        let playlist = tool(
            "update_playlist",
            "Updates a playlist.",
            &[("name", "Name")],
        );
        let create = tool("create_task", "Creates a task.", &[("title", "Title")]);
        let rename = requested_actions("Rename my Road Trip playlist to Summer");
        assert!(
            !offered_actions(&volume).serve(rename),
            "setting a level renames nothing"
        );
        assert!(offered_actions(&playlist).serve(rename));
        let push = requested_actions("Push the due date on TASK-142 back a week");
        assert_eq!(push.names(), ["move"]);
        assert!(!offered_actions(&create).serve(push));
        assert!(offered_actions(&playlist).serve(requested_actions("change the name")));
        assert_eq!(requested_actions("把会议推迟到周五").names(), ["move"]);
        assert_eq!(
            requested_actions("restore the photos I deleted").names(),
            ["restore"]
        );
        assert_eq!(
            requested_actions("export all closed issues").names(),
            ["export"]
        );
        let export = tool("export_log", "Exports the log as an ADIF file.", &[]);
        let import = requested_actions("Import the ADIF file I downloaded into my log");
        assert!(
            !offered_actions(&export).serve(import),
            "import is no export"
        );
        let buy = tool(
            "buy_tickets",
            "Buys tickets for an event.",
            &[("event_id", "Event")],
        );
        assert!(!offered_actions(&buy).serve(requested_actions("refund ticket TK-5567")));
    }

    #[test]
    fn a_tool_serves_a_request_that_names_an_action_it_offers_or_none() {
        let quotes = offered_actions(&tool("stock_quote", "Latest stock quotes.", &[]));
        assert!(!quotes.serve(requested_actions("Buy 10 shares of ACME")));
        assert!(quotes.serve(requested_actions("Show me ACME's quote")));
        assert!(quotes.serve(requested_actions("ACME and XYZ quotes")));
        let tickets = offered_actions(&tool("create_ticket", "Create an issue.", &[]));
        assert!(!tickets.serve(requested_actions("Close ticket PROJ-1, it's fixed")));
        assert!(tickets.serve(requested_actions("File a bug: the login fails")));
        assert!(tickets.serve(requested_actions("open a ticket to fix the docs")));
    }
}
