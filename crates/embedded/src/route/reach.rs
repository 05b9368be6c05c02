//! Whether a tool's purpose reaches what a request asks of its subject,
//! beyond naming the subject: a request about the past, and a request for
//! a change to something that exists.
//!
//! - **The past.** "How has the euro to dollar rate moved over the past
//!   year?", "Show me the bedroom temperature over the last 24 hours",
//!   "How much protein have I eaten in total this week?", 往年十一月的平均气温:
//!   a history, a trend, a total or an average over a period that is over.
//!   A tool that gives a current value ("Convert an amount … at today's
//!   rate", "Read a room's temperature") or records something ("Record a
//!   workout") cannot answer it, though it names the subject and the
//!   message gives what it works on. A tool answers the past when it reads
//!   or computes and its texts speak of the past or of a period: a history,
//!   logs, a date or a range among its parameters (`since_hours`, "How far
//!   back to search", "Date to look up"), unless its description looks
//!   only ahead (a forecast for the coming days).
//! - **A change to what exists.** A request that opens with a verb the
//!   action classes do not list, made of one they do and a prefix that
//!   makes it act on something already there, asks for that change:
//!   "Reopen issue 231" modifies an issue (re- and a creating verb), so a
//!   tool that only creates issues does not serve it; "Unassign Tom"
//!   modifies or removes; "Take Priya's shift off the rota" removes.

use riverse_route::script::is_cjk;
use riverse_route::words::{NEGATIONS, REQUEST_LEAD_INS};
use riverse_route::{Actions, requested_actions};
use riverse_tool::ToolManifest;

/// Words that ask about the past wherever they stand.
const PAST_WORDS: &[&str] = &[
    "trend",
    "trends",
    "trended",
    "history",
    "historical",
    "historically",
    "ago",
    "yesterday",
    "yesterday's",
    "previously",
    "evolved",
    "fluctuated",
    "lately",
];

/// Words that ask for a total or an average: about the past when the
/// message also names a period ("in total this week").
const AGGREGATE_WORDS: &[&str] = &[
    "average",
    "averages",
    "averaged",
    "total",
    "totals",
    "altogether",
    "cumulative",
    "overall",
    "sum",
];

/// Words of a period that is running or over ("this week", "so far").
const PERIOD_WORDS: &[&str] = &["week", "month", "year", "today", "far", "recently"];

/// Units of a span of time ("the last 24 hours", "last week").
const TIME_UNITS: &[&str] = &[
    "minute",
    "minutes",
    "hour",
    "hours",
    "day",
    "days",
    "week",
    "weeks",
    "weekend",
    "month",
    "months",
    "year",
    "years",
    "night",
    "quarter",
    "season",
    "summer",
    "winter",
    "spring",
    "autumn",
    "fall",
    "time",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "decade",
];

/// Month names ("since March", "May 14").
pub(super) const MONTHS: &[&str] = &[
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// Verbs of a change over time, asked of with "has", "have" or "did"
/// ("How has the rate moved", "Did the price drop?").
const CHANGE_VERBS: &[&str] = &[
    "changed",
    "change",
    "moved",
    "move",
    "risen",
    "rose",
    "rise",
    "fallen",
    "fell",
    "fall",
    "dropped",
    "drop",
    "grown",
    "grew",
    "increased",
    "decreased",
    "climbed",
    "shifted",
    "varied",
    "evolved",
    "trended",
    "performed",
    "perform",
    "developed",
    "gone",
];

/// Chinese and Japanese terms of the past or of a change over time.
const PAST_TERMS: &[&str] = &[
    "過去",
    "过去",
    "往年",
    "去年",
    "昨年",
    "先週",
    "先月",
    "上周",
    "上个月",
    "上個月",
    "上星期",
    "昨天",
    "昨日",
    "前天",
    "以来",
    "历史",
    "歴史",
    "歷史",
    "履歴",
    "推移",
    "趋势",
    "趨勢",
    "走势",
    "变化",
    "変化",
    "變化",
];

/// Chinese and Japanese terms of a total or an average.
const AGGREGATE_TERMS: &[&str] = &[
    "平均", "合計", "合计", "总共", "一共", "累计", "累計", "総計", "总计",
];

/// Chinese and Japanese terms of a running period ("this week").
const PERIOD_TERMS: &[&str] = &[
    "今週",
    "今月",
    "今年",
    "本周",
    "这周",
    "這週",
    "这个月",
    "這個月",
    "今天",
    "今日",
    "今まで",
    "目前为止",
];

/// Words of a tool's texts that say it reaches the past.
const PAST_TOOL_WORDS: &[&str] = &[
    "history",
    "historical",
    "historic",
    "past",
    "previous",
    "prior",
    "since",
    "ago",
    "back",
    "trend",
    "trends",
    "log",
    "logs",
    "archive",
    "archived",
    "recorded",
    "records",
    "period",
    "range",
    "lookback",
    "until",
    "date",
    "dates",
    "timeline",
    "series",
    "average",
    "averages",
    "total",
    "totals",
    "statistics",
    "stats",
    "diary",
];

/// Verbs the action classes leave out that give a thing a state, which
/// re- and un- change ("reassign", "unpin").
const STATE_VERBS: &[&str] = &[
    "assign", "pin", "mute", "block", "link", "lock", "archive", "label", "tag", "star", "flag",
    "approve", "hide",
];

/// Verbs the action classes leave out that change a thing that exists
/// ("Extend my booking by 2 nights", "Snooze the reminder"): they ask for
/// a modification.
const UNLISTED_CHANGES: &[&str] = &[
    "extend",
    "prolong",
    "shorten",
    "postpone",
    "delay",
    "upgrade",
    "downgrade",
    "renew",
    "merge",
    "restore",
    "revert",
    "rollback",
    "snooze",
    "approve",
    "reject",
    "assign",
    "mute",
    "pin",
    "lock",
    "unlock",
    "archive",
    "reassign",
];

/// Verbs the action classes leave out that halt something running.
const UNLISTED_STOPS: &[&str] = &["pause", "suspend", "halt", "kill", "freeze"];

/// Words of a tool's parameter names that set a period ("days", "month").
const PERIOD_PARAM_WORDS: &[&str] = &[
    "day", "days", "week", "weeks", "month", "months", "year", "years", "hours", "start", "end",
];

/// Words of a description that looks only ahead.
const AHEAD_WORDS: &[&str] = &["forecast", "coming", "upcoming", "future", "next", "ahead"];

/// What a message asks beyond its action class and subject: see the
/// module's documentation.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Asked {
    /// The message asks about the past: a history, a trend, a total over a
    /// period.
    pub past: bool,
    /// The actions a verb the classes do not list implies ("reopen":
    /// modify); a tool serves the message only when it offers one of them.
    /// Empty when the message's verb is listed, or implies nothing.
    pub implied: Vec<Actions>,
}

impl Asked {
    pub fn of(message: &str) -> Self {
        Asked {
            past: asks_past(message),
            implied: implied_actions(message),
        }
    }

    /// Whether a tool offering `offered` serves what the message's verb
    /// implies.
    pub fn served_by(&self, offered: Actions) -> bool {
        self.implied.is_empty() || self.implied.iter().any(|wanted| offered.meets(*wanted))
    }
}

/// What a tool's texts reach: see the module's documentation.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Reach {
    /// The tool reads or computes something of the past or of a period.
    pub past: bool,
}

impl Reach {
    pub fn of(tool: &ToolManifest, offered: Actions) -> Self {
        // A description that names no change reads ("Past orders of a
        // customer"), whatever its name's first word ("order") says.
        let read = requested_actions("show");
        let described = requested_actions(&tool.description);
        let reads = match described.is_empty() {
            true => true,
            false => !described.changes() || described.meets(read),
        } || !offered.changes()
            || offered.meets(read);
        let mut texts = vec![tool.description.clone(), identifier_words(&tool.name)];
        for (name, description) in &tool.parameters {
            texts.push(identifier_words(name));
            texts.push(description.clone());
        }
        let text = texts.join(" ").to_lowercase();
        let words = english_words(&text);
        let names_past = words.iter().any(|word| PAST_TOOL_WORDS.contains(word))
            || text.contains("over time")
            || PAST_TERMS.iter().any(|term| text.contains(term));
        let period_param = tool.parameters.keys().any(|name| {
            let lower = identifier_words(name).to_lowercase();
            lower
                .split_whitespace()
                .any(|word| PERIOD_PARAM_WORDS.contains(&word))
        });
        let description = tool.description.to_lowercase();
        let looks_ahead = english_words(&description)
            .iter()
            .any(|word| AHEAD_WORDS.contains(word));
        Reach {
            past: reads && (names_past || period_param) && !looks_ahead,
        }
    }

    /// Whether the tool reaches what `asked` asks of it.
    pub fn reaches(self, asked: &Asked) -> bool {
        !asked.past || self.past
    }
}

/// Whether `message` asks about the past (see the module's documentation).
pub(crate) fn asks_past(message: &str) -> bool {
    let lower = message.to_lowercase();
    if lower.chars().any(is_cjk) && cjk_asks_past(&lower) {
        return true;
    }
    let words = english_words(&lower);
    let has = |list: &[&str]| words.iter().any(|word| list.contains(word));
    if has(PAST_WORDS) {
        return true;
    }
    let past_period = words.windows(2).enumerate().any(|(at, pair)| {
        let next = |offset: usize| words.get(at + offset).copied().unwrap_or("");
        match pair {
            // "over the past year", "in the last 24 hours", "the past 3 days"
            ["the", "past" | "last"] => {
                TIME_UNITS.contains(&next(2))
                    || TIME_UNITS.contains(&next(3)) && next(2).chars().any(|c| c.is_ascii_digit())
                    || next(2) == "few" && TIME_UNITS.contains(&next(3))
                    || at > 0 && matches!(words[at - 1], "over" | "in" | "during" | "for")
            }
            // "last week", "this time last year", "past 3 days"
            ["last" | "past", unit] => TIME_UNITS.contains(unit),
            ["over", "time"] | ["so", "far"] => true,
            // "since Monday", "since 2020", "since last week"
            ["since", after] => {
                TIME_UNITS.contains(after)
                    || after.chars().all(|c| c.is_ascii_digit())
                    || matches!(*after, "last" | "the")
                    || MONTHS.contains(after)
            }
            _ => false,
        }
    });
    if past_period {
        return true;
    }
    let asks_change = words
        .iter()
        .any(|word| matches!(*word, "has" | "have" | "did" | "had"))
        && has(CHANGE_VERBS)
        && words.first().is_some_and(|first| {
            matches!(
                *first,
                "how" | "has" | "have" | "did" | "had" | "what" | "by"
            )
        });
    let period = words.windows(2).any(|pair| {
        matches!(pair[0], "this" | "so" | "in" | "for") && PERIOD_WORDS.contains(&pair[1])
    }) || words.contains(&"today");
    asks_change || has(AGGREGATE_WORDS) && period
}

fn cjk_asks_past(lower: &str) -> bool {
    let has = |terms: &[&str]| terms.iter().any(|term| lower.contains(term));
    has(PAST_TERMS) || has(AGGREGATE_TERMS) && has(PERIOD_TERMS)
}

/// The actions implied by a request's opening verb when the action classes
/// do not list it (see the module's documentation).
pub(crate) fn implied_actions(message: &str) -> Vec<Actions> {
    let lower = message.to_lowercase();
    let clause = lower
        .split(|c: char| ",;:.!?\n".contains(c))
        .next()
        .unwrap_or("");
    let words: Vec<&str> = clause
        .split_whitespace()
        .map(|word| word.trim_matches(|c: char| !c.is_alphanumeric() && c != '\''))
        .filter(|word| !word.is_empty())
        .collect();
    let Some(at) = words
        .iter()
        .position(|word| !REQUEST_LEAD_INS.contains(word))
    else {
        return Vec::new();
    };
    let verb = words[at];
    if NEGATIONS.contains(verb)
        || words[..at].iter().any(|word| NEGATIONS.contains(word))
        || !requested_actions(verb).is_empty()
    {
        return Vec::new();
    }
    let modify = requested_actions("update");
    let remove = requested_actions("remove");
    if UNLISTED_CHANGES.contains(&verb) {
        return vec![modify];
    }
    if UNLISTED_STOPS.contains(&verb) {
        return vec![requested_actions("stop")];
    }
    let rest = &words[at + 1..];
    if let Some(base) = verb.strip_prefix("re").filter(|base| base.len() >= 3) {
        let classes = requested_actions(base);
        if STATE_VERBS.contains(&base) {
            return vec![modify];
        }
        if classes.is_empty() {
            return Vec::new();
        }
        // Making again what was made ("reopen", "reschedule") changes a
        // thing that exists.
        return match classes.meets(requested_actions("create")) {
            true => vec![modify],
            false => vec![classes],
        };
    }
    if let Some(base) = verb.strip_prefix("un").filter(|base| base.len() >= 3)
        && (STATE_VERBS.contains(&base) || !requested_actions(base).is_empty())
    {
        return vec![modify, remove];
    }
    let takes_off = rest.contains(&"off")
        || rest
            .windows(2)
            .any(|pair| pair == ["out", "of"] || pair == ["rid", "of"]);
    if matches!(verb, "take" | "cross" | "strike" | "knock" | "pull" | "get") && takes_off {
        return vec![remove];
    }
    Vec::new()
}

/// `since_hours` and `startDate` as their words.
fn identifier_words(name: &str) -> String {
    let mut words = String::with_capacity(name.len() + 4);
    let mut previous_lower = false;
    for c in name.chars() {
        if matches!(c, '_' | '-' | '.') {
            words.push(' ');
        } else {
            if c.is_uppercase() && previous_lower {
                words.push(' ');
            }
            words.push(c);
        }
        previous_lower = c.is_lowercase();
    }
    words
}

/// The English words of lowercase `text`, apostrophes kept but for a
/// possessive's ("month's" is "month").
fn english_words(text: &str) -> Vec<&str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '\''))
        .map(|word| word.trim_matches('\''))
        .map(|word| word.strip_suffix("'s").unwrap_or(word))
        .filter(|word| !word.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use riverse_route::offered_actions;

    fn tool(name: &str, description: &str, parameters: &[(&str, &str)]) -> ToolManifest {
        ToolManifest {
            name: name.into(),
            description: description.into(),
            parameters: parameters
                .iter()
                .map(|(name, meaning)| ((*name).to_owned(), (*meaning).to_owned()))
                .collect(),
            ..ToolManifest::default()
        }
    }

    fn reach(tool: &ToolManifest) -> Reach {
        Reach::of(tool, offered_actions(tool))
    }

    #[test]
    fn questions_about_the_past_are_told_from_questions_about_now() {
        for past in [
            "How has the euro to dollar rate moved over the past year?",
            "Show me the bedroom temperature over the last 24 hours",
            "How have our daily sales trended this quarter?",
            "What was the weather like in Rome this time last year?",
            "How much protein have I eaten in total this week?",
            "What's the price history of AAPL?",
            "Did the price of bitcoin drop since Monday?",
            "How many steps did I walk 3 days ago?",
            "今週走った距離の合計を教えて",
            "帮我看看东京往年十一月的平均气温",
            "过去一周北京的空气质量怎么样",
        ] {
            assert!(asks_past(past), "{past}");
        }
        for now in [
            "What's the weather going to be like in Reykjavik over the next 5 days?",
            "How much is 250 dollars in euros?",
            "Split a 180 euro dinner bill between 4 of us with a 10% tip",
            "remind me in 20 minutes to take the laundry out",
            "What's the total for a 180 euro bill with a 15% tip?",
            "Since I'm vegetarian, find me a recipe",
            "Log a 45 minute run, 8.2 km",
            "What time is it in Tokyo?",
            "Turn the heating up two degrees in the office",
            "東京の天気は？",
            "查一下成都的天气",
        ] {
            assert!(!asks_past(now), "{now}");
        }
    }

    #[test]
    fn only_a_tool_that_reads_the_past_or_a_period_reaches_it() {
        let past = Asked::of("How has the euro to dollar rate moved over the past year?");
        let converter = tool(
            "convert_currency",
            "Convert an amount of money between currencies at today's rate.",
            &[
                ("amount", "Amount of money"),
                (
                    "from_currency",
                    "ISO 4217 code of the currency to convert from",
                ),
                ("to_currency", "ISO 4217 code of the currency to convert to"),
            ],
        );
        assert!(!reach(&converter).reaches(&past));
        let history = tool(
            "rate_history",
            "Exchange rates of a currency pair over a period.",
            &[("pair", "Currency pair"), ("days", "How many days back")],
        );
        assert!(reach(&history).reaches(&past));
        let orders = tool(
            "order_history",
            "Past orders of a customer.",
            &[
                ("customer", "Customer ID"),
                ("days", "How many days back to look"),
            ],
        );
        assert!(
            reach(&orders).reaches(&Asked::of("Orders of customer 4411 over the past 30 days"))
        );
        assert!(asks_past(
            "Compare today's dollar to yen rate with last month's"
        ));
        let logs = tool(
            "search_logs",
            "Search a service's logs for lines containing a text.",
            &[
                ("service", "Service name"),
                ("since_hours", "How far back to search, in hours"),
            ],
        );
        assert!(reach(&logs).reaches(&Asked::of(
            "grep the gateway logs for \"connection reset\" over the past 2 days"
        )));
        let forecast = tool(
            "weather_forecast",
            "Weather forecast for a city for the coming days.",
            &[
                ("city", "City name"),
                ("days", "Number of days to forecast"),
            ],
        );
        assert!(!reach(&forecast).reaches(&Asked::of("帮我看看东京往年十一月的平均气温")));
        // A tool that records something does not read back what it recorded.
        let workout = tool(
            "log_workout",
            "Record a workout in the activity log.",
            &[
                ("activity", "Kind of exercise"),
                ("minutes", "Duration in minutes"),
            ],
        );
        assert!(!reach(&workout).reaches(&Asked::of("今週走った距離の合計を教えて")));
        // A question about now asks no reach of anyone.
        assert!(reach(&converter).reaches(&Asked::of("How much is 250 dollars in euros?")));
    }

    #[test]
    fn a_verb_made_of_a_listed_one_asks_for_its_change() {
        let create_issue = tool(
            "create_issue",
            "Open a new issue in a repository's issue tracker.",
            &[
                ("repo", "Repository as owner/name"),
                ("title", "Issue title"),
            ],
        );
        let update_issue = tool(
            "update_issue",
            "Update an issue: change its state, title or labels.",
            &[("number", "Issue number"), ("state", "open or closed")],
        );
        let reopen = Asked::of("Reopen issue 231 in acme/web");
        assert!(!reopen.served_by(offered_actions(&create_issue)));
        assert!(reopen.served_by(offered_actions(&update_issue)));
        let shifts = tool(
            "schedule_shift",
            "Schedule a shift for a staff member on the rota.",
            &[("person", "Staff member"), ("day", "Day of the shift")],
        );
        let take_off = Asked::of("Take Priya's shift off the rota on Friday");
        assert_eq!(take_off.implied, vec![requested_actions("remove")]);
        assert!(!take_off.served_by(offered_actions(&shifts)));
        assert!(
            !Asked::of("please unassign Tom from ticket 12")
                .served_by(offered_actions(&create_issue))
        );
        let extend = Asked::of("Extend my hotel booking by 2 nights");
        let book_hotel = tool(
            "book_hotel",
            "Book a hotel room in a city.",
            &[("city", "City")],
        );
        assert!(!extend.served_by(offered_actions(&book_hotel)));
        assert!(extend.served_by(offered_actions(&update_issue)));
        assert_eq!(
            Asked::of("pause the nightly backup").implied,
            vec![requested_actions("stop")]
        );
        // A listed verb, or none, implies nothing more.
        for plain in [
            "Open an issue in acme/web",
            "remind me in 20 minutes to take the laundry out",
            "What time is it?",
            "restart the search pods",
            "don't reopen it",
        ] {
            assert_eq!(Asked::of(plain).implied, Vec::new(), "{plain}");
        }
        // Doing again what does not create is that class again.
        assert_eq!(
            Asked::of("rerun the tests for acme/api").implied,
            vec![requested_actions("run")]
        );
    }
}
