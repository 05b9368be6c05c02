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

use riverse_route::calendar::MONTH_NAMES;
use riverse_route::script::{is_cjk, mostly_cjk};
use riverse_route::{Actions, requested_actions, split_identifier, unlisted_verb_actions};
use riverse_tool::ToolManifest;

pub(crate) use crate::route::implied::implied_actions;
use crate::route::weekdays::weekday_by_full_name;
use crate::route::{focus, speech};

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
    "minute", "minutes", "hour", "hours", "day", "days", "week", "weeks", "weekend", "month",
    "months", "year", "years", "night", "quarter", "season", "summer", "winter", "spring",
    "autumn", "fall", "time", "decade",
];

/// Whether `word` is a unit of time or a day's name ("since Monday").
fn is_time_unit(word: &str) -> bool {
    TIME_UNITS.contains(&word) || weekday_by_full_name(word).is_some()
}

/// Month names ("since March", "May 14").
pub(super) const MONTHS: [&str; 12] = MONTH_NAMES;

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

/// Words of a tool's parameter names that set a period ("days", "month").
const PERIOD_PARAM_WORDS: &[&str] = &[
    "day", "days", "week", "weeks", "month", "months", "year", "years", "hours", "start", "end",
];

/// Words of a description that gives the present only ("the current
/// balance", "Returns the most recently recorded weight").
const PRESENT_WORDS: &[&str] = &["current", "currently", "latest", "now", "live", "today's"];

/// Words of a tool's texts that name a span of the past, which a tool of
/// the present may still read ("current and past rates").
const RANGE_WORDS: &[&str] = &[
    "history",
    "historical",
    "past",
    "previous",
    "since",
    "ago",
    "trend",
    "trends",
    "range",
    "period",
    "timeline",
    "series",
    "archive",
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
    /// The message asks for advice, an explanation or an opinion (see
    /// [`speech`]).
    pub advice: bool,
    /// What a request to change, remove or stop something acts on (see
    /// [`speech::changed_object`]).
    pub object: Vec<String>,
    /// The verb the request opens with when the action classes do not list
    /// it (see [`speech::unlisted_verb`]).
    pub verb: Option<String>,
    /// What a "what's the …" question asks for (see
    /// [`focus::question_focus`]).
    pub focus: Option<String>,
    /// The message asks what a thing came to so far ("so far", "to
    /// date"), not how it changed.
    pub running: bool,
    /// The verb of an action class the request opens with ("close" of
    /// "close 4471"; see [`riverse_route::leading_action_verb`]).
    pub action_verb: Option<String>,
}

impl Asked {
    pub fn of(message: &str) -> Self {
        let action_verb = riverse_route::leading_action_verb(message);
        // "log 3.5 hrs for Acme yesterday" opens with a verb that creates
        // (log, record, add): a record of what happened then, no question
        // about the past.
        let create = requested_actions("create");
        // "Sprayed block B2 … yesterday, log it please": a clause of its
        // own may ask for the record.
        let creates = message
            .split([',', ';', '.', '!'])
            .filter_map(riverse_route::leading_action_verb)
            .any(|verb| requested_actions(&verb).meets(create))
            || cjk_record_request(message);
        let verb = speech::unlisted_verb(message);
        // "OP-0945's licence expired, renew it for them please": the verb
        // of a clause after one that states says what is asked.
        let implied = match implied_actions(request_clause(message)) {
            found if found.is_empty() => verb
                .as_deref()
                .map(unlisted_verb_actions)
                .filter(|actions| !actions.is_empty())
                .into_iter()
                .collect(),
            found => found,
        };
        Asked {
            past: !creates && asks_past(request_clause(message)),
            implied,
            advice: speech::asks_advice(message),
            object: speech::changed_object(message),
            verb,
            action_verb,
            focus: focus::question_focus(message),
            running: {
                let lower = message.to_lowercase();
                ["so far", "to date", "until now", "up to now"]
                    .iter()
                    .any(|phrase| lower.contains(phrase))
            },
        }
    }

    /// Whether a tool offering `offered` serves what the message's verb
    /// implies.
    pub fn served_by(&self, offered: Actions) -> bool {
        self.implied.is_empty() || self.implied.iter().any(|wanted| offered.meets(*wanted))
    }
}

/// Whether a Chinese or Japanese `message` asks only for something to be
/// recorded or made (昨日…見ました。記録してください): the day it names is the
/// doing's, no question about the past.
fn cjk_record_request(message: &str) -> bool {
    let requested = requested_actions(message);
    mostly_cjk(message)
        && requested.meets(requested_actions("create"))
        && !requested.meets(requested_actions("show"))
}

/// What a tool's texts reach: see the module's documentation.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Reach {
    /// The tool reads or computes something of the past or of a period.
    pub past: bool,
    /// The tool gives judgements, explanations or answers (see
    /// [`speech::advises`]).
    pub advises: bool,
    /// The tool takes a list of items, which a change may act on.
    pub takes_items: bool,
    /// The tool gives a running total or count ("the current total
    /// download count"), which answers what a thing came to so far.
    pub running_total: bool,
    /// The tool's name or description opens with a verb that computes
    /// ("Evaluate an arithmetic expression", `convert_units`).
    pub computes: bool,
    tool: ToolManifest,
}

impl Reach {
    pub fn of(tool: &ToolManifest, offered: Actions) -> Self {
        // A description that names no change reads ("Past orders of a
        // customer"), whatever its name's first word ("order") says.
        let read = requested_actions("show");
        // The description's opening verb, inflected ("Records a meal").
        let opening = tool
            .description
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_lowercase();
        let base = opening
            .strip_suffix("es")
            .filter(|base| !requested_actions(base).is_empty())
            .or_else(|| opening.strip_suffix('s'))
            .unwrap_or(&opening);
        let described = match requested_actions(&tool.description) {
            found if found.is_empty() => requested_actions(base),
            found => found,
        };
        let reads = match described.is_empty() {
            true => true,
            false => !described.changes() || described.meets(read),
        } || !offered.changes()
            || offered.meets(read);
        let mut texts = vec![tool.description.clone(), split_identifier(&tool.name)];
        for (name, description) in &tool.parameters {
            texts.push(split_identifier(name));
            texts.push(description.clone());
        }
        let text = texts.join(" ").to_lowercase();
        let words = english_words(&text);
        let names_past = words.iter().any(|word| PAST_TOOL_WORDS.contains(word))
            || text.contains("over time")
            || PAST_TERMS.iter().any(|term| text.contains(term));
        let period_param = tool.parameters.keys().any(|name| {
            let lower = split_identifier(name).to_lowercase();
            lower
                .split_whitespace()
                .any(|word| PERIOD_PARAM_WORDS.contains(&word))
        });
        let description = tool.description.to_lowercase();
        let looks_ahead = english_words(&description)
            .iter()
            .any(|word| AHEAD_WORDS.contains(word));
        let present = english_words(&description).windows(2).any(|pair| {
            PRESENT_WORDS.contains(&pair[0])
                || pair == ["most", "recent"]
                || pair == ["most", "recently"]
        });
        let names_range =
            words.iter().any(|word| RANGE_WORDS.contains(word)) || text.contains("over time");
        Reach {
            past: reads
                && (names_past || period_param)
                && !looks_ahead
                && (!present || names_range || period_param),
            advises: speech::advises(tool),
            computes: {
                let compute = requested_actions("compute");
                let name_verb = split_identifier(&tool.name).to_lowercase();
                let name_verb = name_verb.split_whitespace().next().unwrap_or("");
                described.meets(compute) || requested_actions(name_verb).meets(compute)
            },
            takes_items: speech::takes_items(tool),
            running_total: reads
                && english_words(&description)
                    .iter()
                    .any(|word| matches!(*word, "total" | "count" | "tally")),
            tool: tool.clone(),
        }
    }

    /// Whether the tool reaches what `asked` asks of it.
    pub fn reaches(&self, asked: &Asked) -> bool {
        let past = !asked.past || self.past || asked.running && self.running_total;
        past && (!asked.advice || self.advises) && !self.undone_by(asked)
    }

    /// Whether the request's verb undoes what the tool's own verb does
    /// ("Unfreeze card 4821" to `freeze_card`, "unassign" to `assign_task`).
    fn undone_by(&self, asked: &Asked) -> bool {
        asked
            .verb
            .as_deref()
            .and_then(|verb| verb.strip_prefix("un"))
            .filter(|base| base.len() >= 3)
            .is_some_and(|base| self.opens_with(base))
    }

    /// Whether the tool's name or description opens with `verb`.
    pub fn opens_with(&self, verb: &str) -> bool {
        speech::opens_with_verb(&self.tool, verb)
    }

    /// Whether the tool does what `verb` (one no action class lists) asks:
    /// its name or description opens with it, or its name holds it
    /// (`submit_expense_claim` for "claim") or petitions for it
    /// (`request_excusal` for "excuse").
    pub fn owns_verb(&self, verb: &str) -> bool {
        self.opens_with(verb)
            || speech::names_verb(&self.tool, verb)
            || speech::petitions_for(&self.tool, verb)
    }

    /// Whether the tool's name or description opens with a verb of
    /// `verb`'s action classes.
    pub fn opens_with_kindred(&self, verb: &str) -> bool {
        speech::opens_with_kindred_verb(&self.tool, verb)
    }
}

/// The clause of `message` that asks ("…since last night, can you get her
/// seen by the vet on 3 March?": from "can you"), or the whole message
/// when no clause after its first opens with a request's words: what
/// came before tells the story, not what is asked.
fn request_clause(message: &str) -> &str {
    let lower = message.to_lowercase();
    [
        ", can you",
        ", could you",
        ", would you",
        ", please",
        ". can you",
        ". could you",
        ". please",
    ]
    .iter()
    .filter_map(|opening| lower.find(opening))
    .min()
    .and_then(|at| message.get(at + 2..))
    .unwrap_or(message)
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
                is_time_unit(next(2))
                    || is_time_unit(next(3)) && next(2).chars().any(|c| c.is_ascii_digit())
                    || next(2) == "few" && is_time_unit(next(3))
                    || at > 0 && matches!(words[at - 1], "over" | "in" | "during" | "for")
            }
            // "last week", "this time last year", "past 3 days"
            // "last time I checked" asks for the latest, not a span.
            ["last" | "past", unit] => *unit != "time" && is_time_unit(unit),
            ["over", "time"] | ["so", "far"] => true,
            // "since Monday", "since 2020", "since last week"
            ["since", after] => {
                is_time_unit(after)
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
    // "borrowed the most this month": a ranking over a period.
    // "Did we spend more on transport or on entertainment this year?": a
    // comparison of totals over a period.
    let ranking = words
        .windows(2)
        .any(|pair| matches!(pair, ["the", "most" | "least" | "fewest"]))
        || words
            .iter()
            .any(|word| matches!(*word, "more" | "less" | "fewer"))
            && words.iter().any(|word| matches!(*word, "than" | "or"));
    asks_change || (has(AGGREGATE_WORDS) || ranking) && period
}

fn cjk_asks_past(lower: &str) -> bool {
    let has = |terms: &[&str]| terms.iter().any(|term| lower.contains(term));
    has(PAST_TERMS) || has(AGGREGATE_TERMS) && has(PERIOD_TERMS)
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
    use crate::test_tools::tool;
    use riverse_route::offered_actions;

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
    fn recording_what_happened_asks_nothing_of_the_past() {
        assert!(!Asked::of("log 3.5 hrs for Acme yesterday, logo revisions").past);
        assert!(Asked::of("show what I logged yesterday").past);
        assert!(Asked::of("I want to dispute last month's water charges").past);
        assert!(!Asked::of("昨日、城山公園でシジュウカラを5羽見ました。記録してください。").past);
        assert!(Asked::of("昨日記録した鳥を見せて").past);
        assert!(
            !Asked::of("Sprayed block B2 with Captan yesterday, log it please").past,
            "a later clause asks for the record"
        );
    }

    #[test]
    fn a_verb_after_a_statement_is_what_is_asked() {
        let modify = requested_actions("update");
        let asked = Asked::of("OP-0945's licence expired, renew it for them please");
        assert_eq!(asked.implied, [modify]);
        assert!(
            Asked::of("the printer's broken, can you look?")
                .implied
                .is_empty()
        );
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
    fn a_tool_of_the_present_or_one_that_records_does_not_reach_the_past() {
        let past = Asked::of("How has my weight changed over the past two months?");
        let latest = tool(
            "get_latest_weight",
            "Returns the most recently recorded body weight and when it was measured.",
            &[],
        );
        assert!(!reach(&latest).reaches(&past));
        let loans = tool(
            "list_member_loans",
            "Lists the books a member currently has on loan, with their due dates.",
            &[("member_id", "card number")],
        );
        assert!(!reach(&loans).reaches(&past));
        let record = tool(
            "log_pet_weight",
            "Records a pet's weight measured today.",
            &[("pet", "name"), ("date", "date of the weighing")],
        );
        assert!(!reach(&record).reaches(&Asked::of("Has Luna gained weight since the summer?")));
        let story = "Pepper's been throwing up since last night, can you get her seen on 3 March?";
        assert!(
            !Asked::of(story).past,
            "the request is the clause that asks"
        );
        assert!(Asked::of("how many downloads so far?").running);
        assert!(asks_past(
            "Did we spend more on transport or on entertainment this year?"
        ));
        let advice = Asked::of("Should I put my savings into an index fund?");
        assert!(!reach(&loans).reaches(&advice));
        assert!(reach(&tool("web_search", "Search the web.", &[])).reaches(&advice));
    }

    #[test]
    fn a_request_that_undoes_a_tools_own_verb_is_not_for_it() {
        let freeze = tool(
            "freeze_card",
            "Temporarily blocks all new payments on a card.",
            &[("card_last_four", "last four digits of the card number")],
        );
        assert!(!reach(&freeze).reaches(&Asked::of("Unfreeze card 4821, I found it")));
        assert!(!reach(&freeze).reaches(&Asked::of("un-freeze card 4821")));
        assert!(reach(&freeze).reaches(&Asked::of("Freeze card 4821")));
    }
}
