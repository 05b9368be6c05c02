//! Currencies named in a message, as the ISO 4217 codes a parameter may
//! ask for (`data/currencies.txt`): "250 dollars in euros" names USD, then
//! EUR; 100ドルって何円 names USD, then JPY.

use std::sync::LazyLock;

use crate::named::NameTable;

static CURRENCIES: LazyLock<NameTable> =
    LazyLock::new(|| NameTable::parse(include_str!("../data/currencies.txt")));

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
    CURRENCIES.mentions(message)
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
