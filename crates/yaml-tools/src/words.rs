//! A command template's words, each made of literal text and placeholders,
//! as the checks made when an entry loads see them.

use crate::template::{Piece, pieces};

/// One word (argument) of a command, before it is filled.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Word {
    pub(crate) parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Part {
    Literal(String),
    /// A parameter's name.
    Value(String),
}

impl Word {
    /// A word of a `shell: false` template, already unquoted by `shlex`.
    pub(crate) fn from_unquoted(word: &str) -> Word {
        let parts = pieces(word)
            .into_iter()
            .map(|piece| match piece {
                Piece::Literal(text) => Part::Literal(text.to_owned()),
                Piece::Placeholder(name) => Part::Value(name.to_owned()),
            })
            .collect();
        Word { parts }
    }

    pub(crate) fn push_literal(&mut self, text: &str) {
        match self.parts.last_mut() {
            Some(Part::Literal(last)) => last.push_str(text),
            _ => self.parts.push(Part::Literal(text.to_owned())),
        }
    }

    pub(crate) fn push_value(&mut self, name: &str) {
        self.parts.push(Part::Value(name.to_owned()));
    }

    /// The word with `param`'s placeholders filled with `value`.
    pub(crate) fn with_value(&self, param: &str, value: &str) -> Word {
        let mut filled = Word::default();
        for part in &self.parts {
            match part {
                Part::Value(name) if name == param => filled.push_literal(value),
                Part::Value(name) => filled.push_value(name),
                Part::Literal(text) => filled.push_literal(text),
            }
        }
        filled
    }

    /// The whole word when no value goes into it.
    pub(crate) fn literal(&self) -> Option<String> {
        let mut text = String::new();
        for part in &self.parts {
            match part {
                Part::Literal(literal) => text.push_str(literal),
                Part::Value(_) => return None,
            }
        }
        Some(text)
    }

    /// The literal text before the first value.
    pub(crate) fn literal_prefix(&self) -> String {
        self.parts
            .iter()
            .map_while(|part| match part {
                Part::Literal(literal) => Some(literal.as_str()),
                Part::Value(_) => None,
            })
            .collect()
    }

    /// The parameters whose values go into this word.
    pub(crate) fn params(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|part| match part {
            Part::Value(name) => Some(name.as_str()),
            Part::Literal(_) => None,
        })
    }

    /// The parameters whose values may begin this word: those before the
    /// first non-empty literal text.
    pub(crate) fn leading_params(&self) -> impl Iterator<Item = &str> {
        self.parts
            .iter()
            .take_while(|part| !matches!(part, Part::Literal(text) if !text.is_empty()))
            .filter_map(|part| match part {
                Part::Value(name) => Some(name.as_str()),
                Part::Literal(_) => None,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_word_knows_which_values_begin_it() {
        let word = Word::from_unquoted("{a}{b}-x{c}");
        assert_eq!(word.leading_params().collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(word.params().collect::<Vec<_>>(), ["a", "b", "c"]);
        assert_eq!(word.literal(), None);
        let word = Word::from_unquoted("--ref={ref}");
        assert_eq!(word.leading_params().count(), 0);
        assert_eq!(word.literal_prefix(), "--ref=");
        assert_eq!(
            Word::from_unquoted("plain").literal().as_deref(),
            Some("plain")
        );
    }
}
