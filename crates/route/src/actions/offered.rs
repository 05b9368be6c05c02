//! What a tool's manifest offers: the actions its name and description
//! name ("Creates an issue", `delete_photo`), read as a manifest writes
//! them (inflected, in lists, asked of someone else).

use riverse_tool::ToolManifest;

use super::{
    Actions, CLASSES, cjk_actions, classes_named, classes_of, joined_clauses, leading_verb,
    read_only, requested_actions, unlisted_verb_actions, word_actions, words_after,
};

/// The actions `tool` offers (see the module's documentation).
pub fn offered_actions(tool: &ToolManifest) -> Actions {
    let name = tool.name.replace(['_', '-'], " ").to_lowercase();
    let description = without_asides(&tool.description.to_lowercase());
    let mut found = cjk_actions(&name).union(cjk_actions(&description));
    let name_words: Vec<&str> = name.split_whitespace().collect();
    let name_reads = leading_verb(&name_words).is_some_and(|verb| {
        let actions = word_actions(verb);
        !actions.is_empty() && !actions.changes()
    });
    if let Some(verb) = leading_verb(&name_words) {
        found = found.union(word_actions(verb));
        found = found.union(reported(verb, &name_words).unwrap_or_default());
        // `request_match_reschedule` asks for a move: what it petitions
        // for is its action.
        if PETITIONS.contains(&verb) {
            for word in &name_words[1..] {
                found = found.union(classes_of(word));
            }
        }
        // `file_noise_complaint` makes a complaint, `create_print_order`
        // an order: a record named for an action is made by asking for it.
        if word_actions(verb).meets(classes_of("create")) {
            let recorded = classes_named(&RECORDED_ACTIONS);
            for word in &name_words[1..] {
                found = found.union(classes_of(word).intersection(recorded));
            }
        }
    }
    // The verbs a description joins agree in form: after "Lists", a bare
    // "set" is no verb ("with their rise and set times").
    let mut third_person = None;
    // Within a list after a comma that opens with no verb ("Returns data
    // used, call minutes and texts"), what "and" joins is another item.
    let mut in_list = false;
    for (at, (clause, joined)) in joined_clauses(&description).into_iter().enumerate() {
        if clause.is_empty() {
            continue;
        }
        let leading = leading_verb(&clause).filter(|word| !is_participle(word));
        if !joined {
            in_list = at > 0
                && leading
                    .is_none_or(|word| word_actions(word).is_empty() && !third_person_form(word));
        } else if in_list {
            continue;
        }
        let Some(verb) = leading else {
            continue;
        };
        // "Asks the admins to move a match": the action asked for. "Lets"
        // opens a request too ("let's"), so the clause's own first word
        // is weighed before the verb after it.
        let opener = clause
            .first()
            .map(|word| word.trim_matches(|c: char| !c.is_alphanumeric()))
            .unwrap_or_default();
        let asked = petitioned(opener, &clause)
            .or_else(|| petitioned(verb, &clause))
            .or_else(|| match name_reads {
                // `check_river_level`, "Reports a river's current flow":
                // what the name reads, the description tells.
                true => None,
                false => reported(verb, &clause),
            });
        let actions = match asked {
            Some(asked) => asked,
            None => word_actions(verb),
        };
        if actions.is_empty() {
            // A description opening with a verb no class lists ("Returns
            // the rules…") still sets the form its verbs take.
            if at == 0 && third_person_form(verb) {
                third_person = Some(true);
            }
            continue;
        }
        let inflected = classes_of(verb).is_empty();
        // After the description's first verb, a word in -ing is a noun or
        // an adjective ("opening hours", "upcoming"), not another action.
        let gerund = inflected && verb.ends_with("ing");
        if third_person.is_some() && gerund {
            continue;
        }
        if *third_person.get_or_insert(inflected) && !inflected {
            continue;
        }
        found = found.union(actions);
    }
    for example in &tool.examples {
        found = found.union(requested_actions(example));
    }
    if found.is_empty() {
        found = match names_own_verb(&name, &description) {
            // A verb the classes don't know, inflected as a verb: it makes,
            // alters, sends or pays ("Confirms attendance", "Transfers
            // money"), or does what the verb itself says ("Withdraws a
            // team" stops). It neither reads nor computes ("split_bill",
            // "Splits a bill", is no converter), and an action with a verb
            // of its own (a refund, an undo, a removal) would have been
            // named so.
            Some((verb, true)) => {
                classes_named(&UNLISTED_VERB_OFFERS).union(unlisted_verb_actions(&verb))
            }
            // The same word opening both, uninflected, may be a verb
            // ("Transfer money…") or a noun ("Weather forecast for…"): it
            // may do anything.
            Some((_, false)) => Actions((1 << CLASSES.len()) - 1),
            None => found,
        };
    }
    let read_only = read_only();
    if found.0 & !read_only.0 == 0 {
        found = found.union(read_only);
    }
    found
}

/// The classes a tool named by a verb no class lists offers, beside what
/// the verb itself names (see [`unlisted_verb_actions`]).
const UNLISTED_VERB_OFFERS: [&str; 5] = ["create", "modify", "rename", "send", "trade"];

/// The classes whose request makes a record named for it: a complaint, a
/// refund, an order.
const RECORDED_ACTIONS: [&str; 3] = ["dispute", "refund", "trade"];

/// Verbs that ask someone else for an action ("request", "asks … to").
const PETITIONS: &[&str] = &["request", "ask", "petition", "apply"];

/// The classes of a clause that opens with "report" and makes a report
/// (`report_absence`, "Reports a faulty sensor…"): it files one, a
/// creation. "Reports whether a service is up" reads.
fn reported(verb: &str, clause: &[&str]) -> Option<Actions> {
    if !matches!(verb, "report" | "reports") {
        return None;
    }
    let next = words_after(clause, verb).next();
    match next.is_some_and(|word| READ_AFTER_REPORT.contains(&word)) {
        true => Some(classes_of("read")),
        false => Some(classes_of("create")),
    }
}

/// Words after which "reports" tells, and files nothing.
const READ_AFTER_REPORT: &[&str] = &["whether", "how", "what", "which", "when", "if", "on"];

/// The classes of what a clause opening with a verb of [`PETITIONS`] (or
/// one that lets: "Lets a member pause…") asks for: its first verb after
/// "to", or after the one let ("Asks the admins to move a match").
fn petitioned(verb: &str, clause: &[&str]) -> Option<Actions> {
    let base = verb.strip_suffix('s').unwrap_or(verb);
    let lets = matches!(base, "let" | "allow" | "enable");
    if !PETITIONS.contains(&base) && !lets {
        return None;
    }
    let words: Vec<&str> = clause
        .iter()
        .map(|word| word.trim_matches(|c: char| !c.is_alphanumeric()))
        .collect();
    let after_to = words
        .windows(2)
        .find(|pair| pair[0] == "to" && !classes_of(pair[1]).is_empty())
        .map(|pair| classes_of(pair[1]));
    let after_let = || {
        lets.then(|| {
            words
                .iter()
                .skip(2)
                .find(|word| !classes_of(word).is_empty())
        })
        .flatten()
        .map(|word| classes_of(word))
    };
    after_to.or_else(after_let)
}

/// `description` without its parenthesised asides: "(on time, delayed,
/// cancelled)" lists states a tool reports, not what it does.
pub(crate) fn without_asides(description: &str) -> String {
    let mut kept = String::with_capacity(description.len());
    let mut depth = 0usize;
    for c in description.chars() {
        match c {
            '(' | '（' => depth += 1,
            ')' | '）' => depth = depth.saturating_sub(1),
            _ if depth == 0 => kept.push(c),
            _ => {}
        }
    }
    kept
}

/// Whether a clause's first word is a past participle ("delayed", "booked
/// rooms"): a state or a list's item, not what the tool does. A listed verb
/// that ends so ("embed") is none.
fn is_participle(word: &str) -> bool {
    word.ends_with("ed") && classes_of(word).is_empty()
}

/// Whether a tool's name opens with the word its description opens with
/// ("transfer money", "Transfers money from…"): the name is a verb and its
/// object, so its first word names an action, though no class lists it.
/// The verb, with `true` when the description inflects it as a verb
/// ("Transfers"), `false` when it writes it as the name does.
fn names_own_verb(name: &str, description: &str) -> Option<(String, bool)> {
    let first = |text: &str| {
        text.split_whitespace()
            .next()
            .map(|word| word.trim_matches(|c: char| !c.is_alphanumeric()).to_owned())
    };
    let (verb, opening) = (first(name)?, first(description)?);
    if verb.len() < 3 || !verb.chars().all(|c| c.is_ascii_lowercase()) {
        return None;
    }
    match [format!("{verb}s"), format!("{verb}es")].contains(&opening) {
        true => Some((verb, true)),
        false => (opening == verb).then_some((verb, false)),
    }
}

/// Whether `word` looks like a verb of the third person ("returns",
/// "validates"), not a plural noun's bare stem.
fn third_person_form(word: &str) -> bool {
    word.len() > 3 && word.ends_with('s') && !word.ends_with("ss")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_tools::tool;

    #[test]
    fn a_noun_in_ing_after_the_descriptions_verb_offers_nothing() {
        let rules = tool(
            "get_water_rules",
            "Returns the rules for a water: banned baits, close season dates and opening hours.",
            &[],
        );
        assert!(!offered_actions(&rules).changes());
    }

    #[test]
    fn an_item_of_a_listed_return_offers_nothing() {
        let usage = tool(
            "get_usage",
            "Returns a line's data used in GB, call minutes and texts for a billing period.",
            &[],
        );
        assert!(!offered_actions(&usage).changes());
        let notes = tool(
            "get_book",
            "Returns the title, author, and notes of a book.",
            &[],
        );
        assert!(!offered_actions(&notes).changes());
        // A verb after a list that a verb opens still counts.
        let booking = tool(
            "book_court",
            "Books a court for a date and time and sends a confirmation.",
            &[],
        );
        assert!(offered_actions(&booking).meets(requested_actions("send it")));
        let searching = tool(
            "find_flight",
            "Searches flights, and books the cheapest.",
            &[],
        );
        assert!(offered_actions(&searching).meets(requested_actions("book it")));
    }

    #[test]
    fn a_tool_that_files_a_report_creates_one() {
        let create = classes_of("create");
        let absence = tool(
            "report_absence",
            "Tells the coach a player will miss a training session.",
            &[],
        );
        assert!(offered_actions(&absence).meets(create));
        let fault = tool(
            "flag_meter",
            "Reports a broken gas meter to the supplier.",
            &[],
        );
        assert!(offered_actions(&fault).meets(create));
        let level = tool(
            "check_river_level",
            "Reports a river's current flow and whether trips are running.",
            &[],
        );
        assert!(!offered_actions(&level).changes());
        let status = tool(
            "service_status",
            "Reports whether the ferry service is running today.",
            &[],
        );
        assert!(!offered_actions(&status).changes());
    }

    #[test]
    fn making_a_record_named_for_an_action_offers_that_action() {
        let complaint = tool(
            "file_noise_complaint",
            "Files a noise complaint about an address.",
            &[],
        );
        let complaining = requested_actions("苦情を出したいです");
        assert!(offered_actions(&complaint).meets(complaining));
        let order = tool("create_print_order", "Creates a print job.", &[]);
        assert!(offered_actions(&order).meets(requested_actions("order 40 prints")));
        let listing = tool("list_orders", "Lists a customer's orders.", &[]);
        assert!(!offered_actions(&listing).meets(requested_actions("order 40 prints")));
    }

    #[test]
    fn a_petition_offers_what_it_asks_for() {
        let reschedule = tool(
            "request_match_reschedule",
            "Asks the admins to move a match to a new date and time and returns a request id.",
            &[],
        );
        let moving = requested_actions("move match M-1250 to Thursday");
        assert!(offered_actions(&reschedule).meets(moving));
        let refund = tool(
            "request_refund",
            "Files a refund request for an order.",
            &[],
        );
        assert!(offered_actions(&refund).meets(requested_actions("refund order 12")));
        // The name opens with no verb: what is let is the action.
        let pause = tool(
            "membership_hold",
            "Lets a member pause their plan for a month.",
            &[],
        );
        assert!(offered_actions(&pause).meets(requested_actions("pause my plan")));
    }

    #[test]
    fn a_tool_named_by_an_unlisted_verb_makes_or_alters_and_only_that() {
        let transfer = tool(
            "transfer_money",
            "Transfers money from one account to another.",
            &[("amount", "how much")],
        );
        let offered = offered_actions(&transfer);
        assert!(offered.changes());
        assert!(offered.serve(requested_actions("send 250 to Jamie")));
        let suspend = tool(
            "suspend_subscription",
            "Suspends a subscription until it is resumed.",
            &[("subscription_id", "the subscription ID")],
        );
        assert!(offered_actions(&suspend).meets(requested_actions("cancel")));
        assert!(!offered.meets(requested_actions("convert")));
        assert!(!offered.meets(requested_actions("show")));
        assert!(offered.meets(requested_actions("move")));
        for other in ["undo it", "refund it", "delete it", "cancel it"] {
            assert!(!offered.meets(requested_actions(other)), "{other}");
        }
        let withdraw = tool(
            "withdraw_team",
            "Withdraws a registered team from its tournament.",
            &[("team_id", "")],
        );
        assert!(offered_actions(&withdraw).meets(requested_actions("cancel")));
        let forecast = tool(
            "weather_forecast",
            "Weather forecast for a city for the coming days.",
            &[("city", "")],
        );
        assert!(offered_actions(&forecast).meets(requested_actions("show")));
        let weather = tool("weather", "Current weather for a city.", &[("city", "")]);
        assert!(!offered_actions(&weather).changes());
        let returns = tool(
            "details",
            "Returns the details of a trip.",
            &[("reference", "")],
        );
        assert!(!offered_actions(&returns).changes());
        let sky = tool(
            "visible_stars",
            "Lists the stars in view tonight, with their rise and set times.",
            &[("date", "")],
        );
        assert!(
            !offered_actions(&sky).changes(),
            "a bare word after 'Lists'"
        );
        let books = tool("seats", "Finds free seats and books them.", &[("show", "")]);
        assert!(offered_actions(&books).changes());
    }

    #[test]
    fn a_manifest_offers_what_it_names_inflected_or_not() {
        let tickets = tool("create_ticket", "Creates an issue", &[("title", "Summary")]);
        assert_eq!(offered_actions(&tickets).names(), ["create"]);
        let named = tool("delete_note", "Memos.", &[]);
        assert_eq!(
            offered_actions(&named).names(),
            ["remove"],
            "the name's verb"
        );
        let contacts = tool("contacts", "Edits entries", &[("favorite", "Delete it")]);
        assert_eq!(
            offered_actions(&contacts).names(),
            ["modify", "move", "rename"],
            "a parameter's description tells of no action; editing is any change"
        );
        let reader = tool("read_file", "Read a text file and return it", &[]);
        assert_eq!(
            offered_actions(&reader).names(),
            ["read", "compute"],
            "only a clause's first word is a verb: not \"file\""
        );
        let mut remind = tool("remind", "Reminders", &[]);
        remind.examples = vec!["Set a reminder for 6pm".into()];
        assert!(offered_actions(&remind).names().contains(&"create"));
    }

    #[test]
    fn states_a_tool_reports_are_not_what_it_does() {
        let status = tool(
            "get_flight_status",
            "Looks up the live status of a flight (on time, delayed, cancelled, gate).",
            &[("flight_number", "Flight number")],
        );
        assert!(!offered_actions(&status).changes());
        let rooms = tool("rooms", "Lists rooms, booked rooms first.", &[]);
        assert!(!offered_actions(&rooms).changes());
    }

    #[test]
    fn a_manifest_naming_no_change_reads_and_computes() {
        let quotes = tool("stock_quote", "Latest stock quotes.", &[("days", "Window")]);
        assert_eq!(offered_actions(&quotes).names(), ["read", "compute"]);
        let lookup = tool("track", "Shipment status lookup.", &[]);
        assert_eq!(offered_actions(&lookup).names(), ["read", "compute"]);
    }
}
