//! Verbs the action classes leave out whose action is still plain: a few
//! change a thing that exists ("renew", "snooze") and a few halt it or take
//! it back ("halt", "withdraw"). A request opening with one asks for that
//! action, and a tool named by one offers it.

use super::{Actions, classes_of};

/// Verbs the action classes leave out that change a thing that exists
/// ("Renew my booking for 2 nights", "Snooze the reminder"): they ask for
/// a modification.
const UNLISTED_CHANGES: &[&str] = &[
    "prolong", "shorten", "renew", "merge", "snooze", "approve", "reject", "assign", "mute", "pin",
    "lock", "unlock", "archive", "reassign",
];

/// Verbs the action classes leave out that halt something running, or
/// take back what was entered ("withdraw application BP-0412").
const UNLISTED_STOPS: &[&str] = &["halt", "kill", "withdraw"];

/// The action an unlisted `verb` names, in its bare form ("withdraw"):
/// a modification, a stop ("cancel" names that class alone: "stop" also
/// opens a request to stop doing something), or none.
pub fn unlisted_verb_actions(verb: &str) -> Actions {
    if UNLISTED_CHANGES.contains(&verb) {
        return classes_of("update");
    }
    if UNLISTED_STOPS.contains(&verb) {
        return classes_of("cancel");
    }
    Actions::default()
}
