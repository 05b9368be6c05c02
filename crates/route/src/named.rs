//! Tables of things people name in many ways (currencies, languages): each
//! thing by a key, with the names that call for it, read from a data file
//! whose lines are `key: name, name, …`; and where a text names them.

use crate::script::is_cjk;
use crate::words::data_lines;

/// `(key, name)` pairs, longest names first.
pub(crate) struct NameTable {
    names: Vec<(&'static str, &'static str)>,
}

impl NameTable {
    /// The table of a data file's `key: name, name` lines.
    pub(crate) fn parse(data: &'static str) -> Self {
        let mut names: Vec<(&'static str, &'static str)> = data_lines(data)
            .filter_map(|line| line.split_once(':'))
            .flat_map(|(key, names)| {
                names
                    .split(',')
                    .map(str::trim)
                    .filter(|name| !name.is_empty())
                    .map(move |name| (key.trim(), name))
            })
            .collect();
        names.sort_by_key(|(_, name)| std::cmp::Reverse(name.len()));
        NameTable { names }
    }

    /// The things `text` names, in order: where each name starts, and its
    /// thing's key. Latin-script names match whole words, case aside;
    /// Chinese and Japanese names and symbols anywhere; a longer name wins
    /// over one it holds.
    pub(crate) fn mentions(&self, text: &str) -> Vec<(usize, &'static str)> {
        let lower = text.to_lowercase();
        let mut taken = vec![false; lower.len()];
        let mut found = Vec::new();
        for (key, name) in &self.names {
            let spaced = !name
                .chars()
                .any(|c| is_cjk(c) || !c.is_alphanumeric() && c != ' ');
            for (at, _) in lower.match_indices(name) {
                let end = at + name.len();
                if taken[at..end].iter().any(|&t| t) {
                    continue;
                }
                let edge = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
                if spaced
                    && !(edge(lower[..at].chars().next_back()) && edge(lower[end..].chars().next()))
                {
                    continue;
                }
                taken[at..end].fill(true);
                found.push((at, *key));
            }
        }
        found.sort_by_key(|(at, _)| *at);
        found
    }
}
