//! Actions that undo each other ("disable" and "enable", "turn off" and
//! "turn on", "downgrade" and "upgrade"): a request for one is not served
//! by a tool that does only the other, though both fall in one action
//! class. "turn off roaming" is not for `enable_roaming`, "unlock the
//! door" not for `lock_door`.

use riverse_tool::ToolManifest;

use crate::words::REQUEST_LEAD_INS;

/// Pairs of opposed actions, each side a list of verbs, a verb and its
/// particle written with a space ("turn off").
const OPPOSITES: &[(&[&str], &[&str])] = &[
    (
        &["enable", "activate", "turn on", "switch on"],
        &["disable", "deactivate", "turn off", "switch off"],
    ),
    (&["lock"], &["unlock"]),
    (&["block"], &["unblock"]),
    (&["mute"], &["unmute"]),
    (&["arm"], &["disarm"]),
    (&["pin"], &["unpin"]),
    (&["hide"], &["unhide"]),
    (&["archive"], &["unarchive"]),
    (&["follow"], &["unfollow"]),
    (&["subscribe", "opt in"], &["unsubscribe", "opt out"]),
    (
        &["pause", "suspend", "freeze"],
        &["resume", "unpause", "unfreeze"],
    ),
    (
        &["increase", "raise", "upgrade", "extend"],
        &["decrease", "lower", "reduce", "downgrade", "shorten"],
    ),
    (&["check in"], &["check out"]),
    (&["approve", "accept"], &["reject", "decline", "deny"]),
    (&["grant"], &["revoke"]),
    (&["attach"], &["detach"]),
    (&["promote"], &["demote"]),
];

/// Verbs whose particle ("off", "in") says which way they go.
const PARTICLE_VERBS: &[&str] = &["turn", "switch", "check", "opt"];

/// Particles a verb of [`PARTICLE_VERBS`] may take.
const PARTICLES: &[&str] = &["on", "off", "in", "out"];

/// A tool's name and description in words, to weigh requests against the
/// actions they open with.
pub struct Opposites {
    texts: [Vec<String>; 2],
}

impl Opposites {
    /// The words of `tool`'s name and description.
    pub fn of(tool: &ToolManifest) -> Self {
        Opposites {
            texts: [&tool.name, &tool.description].map(|text| words_of(text)),
        }
    }

    /// Whether the tool does the opposite of `asked` and names none of it:
    /// its name or description opens with the opposite action and
    /// mentions the asked one nowhere.
    pub fn oppose(&self, asked: &OpposedAction) -> bool {
        let opens_opposite = self
            .texts
            .iter()
            .any(|words| asked.theirs.iter().any(|phrase| says_at(words, 0, phrase)));
        let mentions_asked = self.texts.iter().any(|words| {
            (0..words.len()).any(|at| asked.ours.iter().any(|phrase| says_at(words, at, phrase)))
        });
        opens_opposite && !mentions_asked
    }
}

/// A request's action that has an opposite: the verbs that say it and the
/// verbs that undo it.
pub struct OpposedAction {
    ours: &'static [&'static str],
    theirs: &'static [&'static str],
}

impl OpposedAction {
    /// The action `message`'s first clause opens with, when it is one of a
    /// pair that undo each other.
    pub fn asked_in(message: &str) -> Option<Self> {
        let asked = asked_action(message)?;
        let (pair, side) = side_of(&asked)?;
        let (ours, theirs) = match side {
            Side::First => (OPPOSITES[pair].0, OPPOSITES[pair].1),
            Side::Second => (OPPOSITES[pair].1, OPPOSITES[pair].0),
        };
        Some(OpposedAction { ours, theirs })
    }
}

/// Which way one pair of [`OPPOSITES`] goes.
enum Side {
    First,
    Second,
}

/// The pair and side of [`OPPOSITES`] `action` is on.
fn side_of(action: &str) -> Option<(usize, Side)> {
    OPPOSITES
        .iter()
        .enumerate()
        .find_map(|(pair, (first, second))| {
            if first.contains(&action) {
                Some((pair, Side::First))
            } else if second.contains(&action) {
                Some((pair, Side::Second))
            } else {
                None
            }
        })
}

/// The action a request's first clause opens with, lowercase: its verb,
/// with its particle for a verb that takes one ("turn off" of "turn the
/// heating off please").
fn asked_action(message: &str) -> Option<String> {
    let clause = message
        .split(|c: char| ",;:.!?\n".contains(c))
        .next()
        .unwrap_or("");
    let words = words_of(clause);
    let start = words
        .iter()
        .position(|word| !REQUEST_LEAD_INS.contains(word.as_str()))?;
    let verb = &words[start];
    if !PARTICLE_VERBS.contains(&verb.as_str()) {
        return Some(verb.clone());
    }
    let particle = words
        .iter()
        .skip(start + 1)
        .take(4)
        .find(|word| PARTICLES.contains(&word.as_str()))?;
    Some(format!("{verb} {particle}"))
}

/// The lowercase words of `text`, a name's underscores as spaces.
fn words_of(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_ascii_alphabetic())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Whether `words` say `phrase` at `at`, its verb inflected or not and its
/// particle within the next few words ("turns off", "disabled", "turns
/// roaming on").
fn says_at(words: &[String], at: usize, phrase: &str) -> bool {
    let mut parts = phrase.split(' ');
    let verb = parts.next().unwrap_or_default();
    let particle = parts.next();
    let Some(word) = words.get(at) else {
        return false;
    };
    let stem = verb.strip_suffix('e').unwrap_or(verb);
    let inflected = word == verb
        || word
            .strip_prefix(stem)
            .is_some_and(|rest| matches!(rest, "s" | "es" | "ed" | "d" | "ing" | "e"));
    inflected
        && particle.is_none_or(|particle| {
            words
                .iter()
                .skip(at + 1)
                .take(4)
                .any(|next| next == particle)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_tools::tool;

    fn opposes(tool: &ToolManifest, message: &str) -> bool {
        OpposedAction::asked_in(message).is_some_and(|asked| Opposites::of(tool).oppose(&asked))
    }

    #[test]
    fn the_opposite_action_is_not_served() {
        let roaming = tool("enable_roaming", "Turns on roaming for a line abroad.", &[]);
        assert!(opposes(&roaming, "turn off roaming on 0655 440 021"));
        assert!(opposes(&roaming, "please switch roaming off"));
        assert!(opposes(&roaming, "disable roaming"));
        assert!(!opposes(&roaming, "turn on roaming for my trip"));
        assert!(!opposes(&roaming, "enable roaming on 0655 440 021"));
        let door = tool("lock_door", "Locks a smart door lock.", &[]);
        assert!(opposes(&door, "unlock the front door"));
        assert!(!opposes(&door, "lock the front door"));
        let plan = tool("upgrade_plan", "Moves a line to a bigger plan.", &[]);
        assert!(opposes(&plan, "downgrade 0688 730 461 to basic 5gb"));
    }

    #[test]
    fn a_tool_that_does_both_serves_either() {
        let roaming = tool(
            "set_roaming",
            "Enables or disables roaming for a line.",
            &[],
        );
        assert!(!opposes(&roaming, "turn off roaming"));
        let switch = tool("enable_roaming", "Turns roaming on or off.", &[]);
        assert!(!opposes(&switch, "disable roaming"));
        let plan = tool("change_plan", "Upgrades or downgrades a plan.", &[]);
        assert!(!opposes(&plan, "downgrade my plan"));
    }
}
