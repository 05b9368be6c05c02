//! Clauses whose leading word names no action for all its look of a
//! verb: a light verb ("get", "give"), a verb its particle makes another
//! ("drop off"), a record's noun before its number ("order 88314"), and a
//! value set to a number ("drop the price to 30"). See [`crate::actions`].

use crate::identifiers::names_record;

/// Verbs that name no action of their own: what is got or given says it
/// ("can I get the bandsaw on wednesday" books it, "give WC-4390 five
/// stars" rates a visit, "get me the forecast" reads).
pub const LIGHT_VERBS: [&str; 2] = ["get", "give"];

/// Verbs whose particle makes another verb of them: "drop off 5 bags"
/// delivers them, and removes nothing.
const PHRASAL_VERBS: [(&str, &str); 2] = [("drop", "off"), ("drop", "by")];

/// Whether `clause`, led by `verb`, names no action by it: a light verb,
/// or one its particle turns into another.
pub(crate) fn names_no_action(clause: &[&str], verb: &str) -> bool {
    if LIGHT_VERBS.contains(&verb) {
        return true;
    }
    let Some(at) = verb_at(clause, verb) else {
        return false;
    };
    let particle = clause
        .get(at + 1)
        .map(|word| word.trim_matches(|c: char| !c.is_alphanumeric()));
    particle.is_some_and(|particle| PHRASAL_VERBS.contains(&(verb, particle)))
}

/// Nouns that are verbs too ("order", "book"): one that a record's
/// number alone follows names the record ("…ready yet? order 88314").
const RECORD_NOUNS: [&str; 7] = [
    "order",
    "booking",
    "ticket",
    "reservation",
    "invoice",
    "bill",
    "report",
];

/// Whether `clause` is `verb`, a record's noun, and the record's number
/// and nothing else ("order 88314", "ticket #4471"): a label, no action.
pub(crate) fn labels_record(clause: &[&str], verb: &str) -> bool {
    let Some(at) = verb_at(clause, verb) else {
        return false;
    };
    RECORD_NOUNS.contains(&verb)
        && clause.len() == at + 2
        && names_record(clause[at + 1].trim_start_matches('#'))
}

/// Whether `clause` says what a value becomes: "to" and a number ("to
/// 30", "to $25").
pub(crate) fn sets_to_number(clause: &[&str]) -> bool {
    clause.windows(2).any(|pair| {
        pair[0] == "to"
            && pair[1]
                .trim_start_matches(['$', '€', '£', '¥'])
                .starts_with(|c: char| c.is_ascii_digit())
    })
}

/// Where `verb` stands in `clause`.
fn verb_at(clause: &[&str], verb: &str) -> Option<usize> {
    clause.iter().position(|word| word.contains(verb))
}

#[cfg(test)]
mod tests {
    use crate::actions::requested_actions;

    #[test]
    fn a_light_or_phrasal_verb_names_no_action_of_its_own() {
        assert!(requested_actions("could we get the big kiln on monday").is_empty());
        assert!(requested_actions("give visit V-881 four stars").is_empty());
        assert!(requested_actions("please drop off 3 sacks of sand at bay 4").is_empty());
        let delete = requested_actions("delete the listing");
        assert!(requested_actions("drop the 9am meeting").meets(delete));
        assert!(requested_actions("get the report and delete it").meets(delete));
    }
}
