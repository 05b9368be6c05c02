//! The word lists routing's rules consult, read from the data files in
//! `data/` (compiled in): one entry per line, `#` starts a comment line.

use std::sync::LazyLock;

/// A word list: its entries in file order.
#[derive(Debug)]
pub struct WordList {
    entries: Vec<&'static str>,
}

impl WordList {
    fn parse(data: &'static str) -> Self {
        WordList {
            entries: data_lines(data).collect(),
        }
    }

    pub fn entries(&self) -> &[&'static str] {
        &self.entries
    }

    /// Whether `word` is an entry, as written.
    pub fn contains(&self, word: &str) -> bool {
        self.entries.contains(&word)
    }

    /// The entry `text` starts with, if any.
    pub fn prefix_of(&self, text: &str) -> Option<&'static str> {
        self.entries
            .iter()
            .copied()
            .find(|entry| text.starts_with(entry))
    }
}

/// The lines of a data file that hold entries: trimmed, without blank lines
/// and `#` comments.
pub(crate) fn data_lines(data: &str) -> impl Iterator<Item = &str> {
    data.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
}

macro_rules! word_list {
    ($(#[$doc:meta])* $name:ident, $file:literal) => {
        $(#[$doc])*
        pub static $name: LazyLock<WordList> =
            LazyLock::new(|| WordList::parse(include_str!(concat!("../data/", $file))));
    };
}

word_list!(
    /// Messages that need no tool (`data/small_talk.txt`).
    SMALL_TALK,
    "small_talk.txt"
);
word_list!(
    /// Small talk shown as `none` examples in the choice prompt
    /// (`data/small_talk_shots.txt`).
    SMALL_TALK_SHOTS,
    "small_talk_shots.txt"
);
word_list!(
    /// English words a value does not start with (`data/prepositions.txt`).
    PREPOSITIONS,
    "prepositions.txt"
);
word_list!(
    /// English words that carry no value alone (`data/function_words.txt`).
    FUNCTION_WORDS,
    "function_words.txt"
);
word_list!(
    /// Words whose `'s` is a contraction (`data/contractions.txt`).
    CONTRACTIONS,
    "contractions.txt"
);
word_list!(
    /// Japanese honorifics after a name (`data/honorifics.txt`).
    HONORIFICS,
    "honorifics.txt"
);
word_list!(
    /// Japanese particles of two characters or more (`data/postpositions.txt`).
    POSTPOSITIONS,
    "postpositions.txt"
);
word_list!(
    /// Japanese case particles, one character each (`data/particles.txt`).
    PARTICLES,
    "particles.txt"
);
word_list!(
    /// Words that join numbers into an expression (`data/arithmetic_words.txt`).
    ARITHMETIC_WORDS,
    "arithmetic_words.txt"
);

word_list!(
    /// Words that negate (`data/negations.txt`).
    NEGATIONS,
    "negations.txt"
);
word_list!(
    /// Words before a request's verb at a clause's start
    /// (`data/request_lead_ins.txt`).
    REQUEST_LEAD_INS,
    "request_lead_ins.txt"
);
word_list!(
    /// Words that name a time and nothing else (`data/time_words.txt`).
    TIME_WORDS,
    "time_words.txt"
);
word_list!(
    /// Words that make a parameter one about time (`data/time_params.txt`).
    TIME_PARAMS,
    "time_params.txt"
);
word_list!(
    /// English words that name no topic (`data/topic_free_words.txt`).
    TOPIC_FREE_WORDS,
    "topic_free_words.txt"
);
word_list!(
    /// Chinese family names (`data/surnames_zh.txt`).
    SURNAMES_ZH,
    "surnames_zh.txt"
);

/// Whether `c` is one of the [`PARTICLES`].
pub fn is_particle(c: char) -> bool {
    let mut buffer = [0u8; 4];
    PARTICLES.contains(c.encode_utf8(&mut buffer))
}

/// Every word list, by file name, for checks over all of them.
pub fn all() -> [(&'static str, &'static WordList); 13] {
    [
        ("small_talk.txt", &*SMALL_TALK),
        ("small_talk_shots.txt", &*SMALL_TALK_SHOTS),
        ("prepositions.txt", &*PREPOSITIONS),
        ("function_words.txt", &*FUNCTION_WORDS),
        ("contractions.txt", &*CONTRACTIONS),
        ("honorifics.txt", &*HONORIFICS),
        ("postpositions.txt", &*POSTPOSITIONS),
        ("particles.txt", &*PARTICLES),
        ("arithmetic_words.txt", &*ARITHMETIC_WORDS),
        ("negations.txt", &*NEGATIONS),
        ("request_lead_ins.txt", &*REQUEST_LEAD_INS),
        ("topic_free_words.txt", &*TOPIC_FREE_WORDS),
        ("surnames_zh.txt", &*SURNAMES_ZH),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_blank_lines_are_not_entries() {
        let list = WordList::parse("# a comment\n\n  in \nfor\n");
        assert_eq!(list.entries(), ["in", "for"]);
    }

    #[test]
    fn every_list_has_entries_and_particles_are_single_characters() {
        for (file, list) in all() {
            assert!(!list.entries().is_empty(), "{file} is empty");
        }
        assert!(PARTICLES.entries().iter().all(|p| p.chars().count() == 1));
        assert!(is_particle('の') && !is_particle('猫'));
    }

    #[test]
    fn the_shots_are_small_talk_too() {
        for shot in SMALL_TALK_SHOTS.entries() {
            assert!(SMALL_TALK.contains(shot), "{shot}");
        }
    }
}
