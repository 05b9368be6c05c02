//! Street addresses: the number that opens one ("12 Elm Street", "88
//! Harbour Rd") is part of a place, no count or amount.

/// The words that end a street's name, long and short.
const STREET_WORDS: [&str; 28] = [
    "street",
    "st",
    "road",
    "rd",
    "avenue",
    "ave",
    "lane",
    "ln",
    "boulevard",
    "blvd",
    "drive",
    "dr",
    "way",
    "place",
    "pl",
    "court",
    "ct",
    "terrace",
    "close",
    "crescent",
    "square",
    "sq",
    "highway",
    "hwy",
    "parkway",
    "pkwy",
    "row",
    "quay",
];

/// Most words of a street's name before its street word.
const NAME_WORDS: usize = 3;

/// Whether `after`, the text right after a number, makes that number a
/// house number: a capitalised name of a few words, then a street word
/// ("12 Elm Street", "88 Harbour Rd").
pub fn opens_street_address(after: &str) -> bool {
    let words: Vec<&str> = after
        .split_whitespace()
        .take(NAME_WORDS + 1)
        .map(|word| word.trim_end_matches([',', '.', ';']))
        .collect();
    let Some(street_at) = words.iter().position(|word| {
        STREET_WORDS.contains(&word.to_lowercase().as_str()) && word.starts_with(char::is_uppercase)
    }) else {
        return false;
    };
    street_at >= 1
        && words[..street_at]
            .iter()
            .all(|word| word.starts_with(char::is_uppercase))
}

/// Whether `message` writes a street address: a number that opens one
/// (see [`opens_street_address`]).
pub fn writes_street_address(message: &str) -> bool {
    crate::numbers::numbers(message)
        .iter()
        .any(|number| opens_street_address(&message[number.bytes.end..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_number_before_a_street_is_a_house_number() {
        assert!(opens_street_address(" Elm Street to City Hospital"));
        assert!(opens_street_address(" Harbour Rd, please"));
        assert!(opens_street_address(" Martin Luther King Blvd"));
        assert!(!opens_street_address(" people to Main Street"));
        assert!(!opens_street_address(" Street"), "a name comes first");
        assert!(!opens_street_address(" Elm trees on the way"));
        assert!(writes_street_address("save 'gym' as 400 Lakeview Ave"));
        assert!(!writes_street_address("book 2 rooms on Main Street"));
    }
}
