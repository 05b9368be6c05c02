//! What a request's opening verb implies when the action classes do not
//! list it: one made of a listed verb and a prefix that acts on something
//! already there asks for that change ("Reopen issue 231" modifies an
//! issue, so a tool that only creates issues does not serve it; "Unassign
//! Tom" modifies or removes; "Take Priya's shift off the rota" and "take
//! the posting down" remove, "bring it back" restores, "sign me up"
//! creates),
//! and a few unlisted verbs change or halt what exists ("renew",
//! "halt").

use riverse_route::words::{NEGATIONS, REQUEST_LEAD_INS};
use riverse_route::{Actions, requested_actions, unlisted_verb_actions};

/// Verbs the action classes leave out that give a thing a state, which
/// re- and un- change ("reassign", "unpin").
const STATE_VERBS: &[&str] = &[
    "assign", "pin", "mute", "block", "link", "lock", "archive", "label", "tag", "star", "flag",
    "approve", "hide",
];

/// Verbs whose particle, later in the clause, names what they do ("Take
/// Priya's shift off the rota", "bring it back"): the verbs, their
/// particles, and a verb of the class they name.
const PARTICLE_VERBS: &[(&[&str], &[&str], &str)] = &[
    (
        &["take", "cross", "strike", "knock", "pull", "get"],
        &["off", "out of", "rid of"],
        "remove",
    ),
    (&["take", "pull"], &["down"], "remove"),
    (&["bring"], &["back"], "restore"),
    (&["sign"], &["up"], "create"),
];

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
    let unlisted = unlisted_verb_actions(verb);
    if !unlisted.is_empty() {
        return vec![unlisted];
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
    let names_particle = |particle: &str| {
        let wanted: Vec<&str> = particle.split(' ').collect();
        rest.windows(wanted.len())
            .any(|window| window == wanted.as_slice())
    };
    for (verbs, particles, class) in PARTICLE_VERBS {
        if verbs.contains(&verb) && particles.iter().any(|particle| names_particle(particle)) {
            return vec![requested_actions(class)];
        }
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::route::reach::Asked;
    use crate::test_tools::tool;
    use riverse_route::offered_actions;

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
        let extend = Asked::of("Renew my hotel booking for 2 nights");
        let book_hotel = tool(
            "book_hotel",
            "Book a hotel room in a city.",
            &[("city", "City")],
        );
        assert!(!extend.served_by(offered_actions(&book_hotel)));
        assert!(extend.served_by(offered_actions(&update_issue)));
        let stop_backup = tool(
            "stop_backup",
            "Stop a running backup.",
            &[("name", "Backup")],
        );
        assert!(
            Asked::of("pause the nightly backup").served_by(offered_actions(&stop_backup)),
            "an unlisted stop is served by a tool that stops"
        );
        assert_eq!(
            Asked::of("halt the nightly backup").implied,
            vec![requested_actions("cancel")]
        );
        let status = tool(
            "check_application_status",
            "Returns the status of a permit application.",
            &[("application_id", "Application id")],
        );
        assert!(
            !Asked::of("I want to withdraw application BP-0412")
                .served_by(offered_actions(&status))
        );
        let delete_entry = tool(
            "delete_entry",
            "Deletes a journal entry.",
            &[("entry_id", "Entry number")],
        );
        assert_eq!(
            Asked::of("we filled the role, take the posting down").implied,
            Vec::new(),
            "the asking clause, here the first, is read"
        );
        assert_eq!(
            Asked::of("take the posting down, we filled the role").implied,
            vec![requested_actions("remove")]
        );
        assert_eq!(
            Asked::of("Sign me up for SEC-101").implied,
            vec![requested_actions("create")]
        );
        let bring_back = Asked::of("I deleted entry 87 by accident, can you bring it back?");
        assert_eq!(bring_back.implied, vec![requested_actions("restore")]);
        assert!(!bring_back.served_by(offered_actions(&delete_entry)));
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
