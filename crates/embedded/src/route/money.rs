//! Sums of money: whether a parameter takes one (in a currency, or in
//! cents) and whether the message writes a number as one ("2 euros",
//! "€950", "500 dollars").

use std::ops::Range;

/// Currency words and signs a sum is written with.
const MONEY_WORDS: &[&str] = &[
    "euro",
    "eur",
    "€",
    "dollar",
    "buck",
    "usd",
    "$",
    "pound",
    "quid",
    "gbp",
    "£",
    "yen",
    "jpy",
    "¥",
    "円",
    "元",
    "欧元",
    "美元",
    "ユーロ",
    "ドル",
];

/// Whether a parameter's description names a currency ("amount to pay,
/// in euros").
pub(super) fn in_currency(description: &str) -> bool {
    let lower = description.to_lowercase();
    MONEY_WORDS
        .iter()
        .filter(|word| word.chars().count() >= 3 || !word.is_ascii())
        .any(|word| lower.contains(word))
}

/// Whether the number at `bytes` of `message` is written as a sum of money
/// ("2 euros", "€950", "$17.99").
pub(super) fn written_as_money(message: &str, bytes: &Range<usize>) -> bool {
    let after = message[bytes.end..].trim_start().to_lowercase();
    let before = message[..bytes.start].trim_end();
    MONEY_WORDS.iter().any(|word| after.starts_with(word)) || before.ends_with(['€', '$', '£', '¥'])
}

/// Whether parameter `name` takes a sum in cents ("price in cents",
/// `max_rate_cents`, pence).
pub(super) fn in_cents(name: &str, description: &str) -> bool {
    let own = format!("{name} {description}").to_lowercase();
    own.split(|c: char| !c.is_alphanumeric())
        .any(|word| matches!(word, "cent" | "cents" | "pence" | "penny"))
}

/// Whether the number at `bytes` of `message` is a sum written in a
/// currency's main unit ("€2", "28 dollars"), one that has cents: not in
/// cents themselves, nor in yen.
pub(super) fn written_in_major_unit(message: &str, bytes: &Range<usize>) -> bool {
    let after = message[bytes.end..].trim_start().to_lowercase();
    let before = message[..bytes.start].trim_end();
    let no_cents = ["yen", "jpy", "¥", "円"];
    written_as_money(message, bytes)
        && !no_cents
            .iter()
            .any(|sign| after.starts_with(sign) || before.ends_with(sign))
}

/// Whether the number at `bytes` of `message`, for a parameter in cents,
/// stands for a sum in the main unit: written so ("€2", "28 dollars"), or
/// written bare ("drop the price to 30"): nobody prices a thing in cents
/// without saying so ("80 cents", "50p").
pub(super) fn meant_in_major_unit(message: &str, bytes: &Range<usize>) -> bool {
    let after = message[bytes.end..].trim_start().to_lowercase();
    let in_cents = after
        .split(|c: char| !c.is_alphanumeric())
        .next()
        .is_some_and(|word| matches!(word, "c" | "p" | "cent" | "cents" | "pence" | "penny"));
    written_in_major_unit(message, bytes) || !written_as_money(message, bytes) && !in_cents
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sum_for_a_parameter_in_cents_is_written_in_its_main_unit() {
        assert!(in_cents("max_rate_cents", "optional; highest hourly rate"));
        assert!(in_cents("price", "price in cents"));
        assert!(!in_cents("discount", "a percentage, 0-100"));
        let message = "under 2 euros an hour, or $1.50, or 300 yen, or 80 cents";
        let at = |number: &str| {
            let start = message.find(number).unwrap();
            start..start + number.len()
        };
        assert!(written_in_major_unit(message, &at("2")));
        assert!(written_in_major_unit(message, &at("1.50")));
        assert!(!written_in_major_unit(message, &at("300")));
        assert!(!written_in_major_unit(message, &at("80")));
        assert!(!meant_in_major_unit(message, &at("80")));
        assert!(!meant_in_major_unit(message, &at("300")));
        assert!(meant_in_major_unit(message, &at("2")));
        let bare = "drop the price on L-40219 to 30";
        assert!(meant_in_major_unit(bare, &(bare.len() - 2..bare.len())));
    }

    #[test]
    fn a_sum_in_a_currency_is_the_number_written_as_money() {
        assert!(in_currency("amount to waive, in euros"));
        assert!(!in_currency("Number of guests"));
        let message = "waive 2 euros for 66001";
        assert!(written_as_money(message, &(6..7)));
        assert!(!written_as_money(message, &(18..23)));
        assert!(written_as_money("Pay €950 today", &(7..10)));
    }
}
