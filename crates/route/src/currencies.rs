//! Currencies named in a message, as the ISO 4217 codes a parameter may
//! ask for (`data/currencies.txt`): "250 dollars in euros" names USD, then
//! EUR; 100ドルって何円 names USD, then JPY.

use std::sync::LazyLock;

use crate::script::is_cjk;
use crate::words::data_lines;

/// `(code, name)` pairs, longest names first.
static NAMES: LazyLock<Vec<(&'static str, &'static str)>> = LazyLock::new(|| {
    let mut names: Vec<(&'static str, &'static str)> =
        data_lines(include_str!("../data/currencies.txt"))
            .filter_map(|line| line.split_once(':'))
            .flat_map(|(code, names)| {
                names
                    .split(',')
                    .map(str::trim)
                    .filter(|name| !name.is_empty())
                    .map(move |name| (code.trim(), name))
            })
            .collect();
    names.sort_by_key(|(_, name)| std::cmp::Reverse(name.len()));
    names
});

/// Whether a parameter described by `description` asks for a currency code.
pub fn wants_currency_code(description: &str) -> bool {
    let lower = description.to_lowercase();
    lower.contains("4217")
        || lower.contains("currency code")
        || (lower.contains("currency") && lower.contains(" code"))
}

/// The code of the currency `text` names, if it names one.
pub fn currency_code(text: &str) -> Option<&'static str> {
    currency_mentions(text).first().map(|(_, code)| *code)
}

/// The currencies `message` names, in order: where each starts, and its code.
pub fn currency_mentions(message: &str) -> Vec<(usize, &'static str)> {
    let lower = message.to_lowercase();
    let mut taken = vec![false; lower.len()];
    let mut found = Vec::new();
    for (code, name) in NAMES.iter() {
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
            found.push((at, *code));
        }
    }
    found.sort_by_key(|(at, _)| *at);
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn currencies_are_read_in_order_as_codes() {
        let codes = |text| -> Vec<&str> {
            currency_mentions(text)
                .into_iter()
                .map(|(_, code)| code)
                .collect()
        };
        assert_eq!(codes("How much is 250 dollars in euros?"), ["USD", "EUR"]);
        assert_eq!(codes("100ドルって何円？"), ["USD", "JPY"]);
        assert_eq!(codes("convert 20 Canadian dollars to yen"), ["CAD", "JPY"]);
        assert_eq!(codes("$40 in GBP"), ["USD", "GBP"]);
        assert!(codes("the euro-zone wonder").len() == 1);
        assert!(codes("Translate 'thank you' into French").is_empty());
        assert_eq!(currency_code("euros"), Some("EUR"));
        assert_eq!(currency_code("over the past year"), None);
        assert!(wants_currency_code(
            "ISO 4217 code of the currency to convert from"
        ));
        assert!(wants_currency_code("Currency code, e.g. USD"));
        assert!(!wants_currency_code("Amount of money"));
    }
}
