//! Street addresses: the number that opens one ("12 Elm Street", "88
//! Harbour Rd") is part of a place, no count or amount.

use std::ops::Range;

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

/// Where `message` writes a postcode in the British form, outward code
/// and inward code ("OX4 2JY", "EH1 2NG", "SW1A1AA").
pub fn postcodes(message: &str) -> Vec<Range<usize>> {
    let mut tokens: Vec<Range<usize>> = Vec::new();
    for (at, c) in message.char_indices() {
        match tokens.last_mut() {
            Some(token) if c.is_ascii_alphanumeric() && token.end == at => token.end = at + 1,
            _ if c.is_ascii_alphanumeric() => tokens.push(at..at + 1),
            _ => {}
        }
    }
    let mut found = Vec::new();
    for (index, token) in tokens.iter().enumerate() {
        let text = &message[token.clone()];
        let inward_next = tokens.get(index + 1).filter(|next| {
            is_inward_code(&message[(*next).clone()]) && message[token.end..next.start] == *" "
        });
        if let Some(next) = inward_next.filter(|_| is_outward_code(text)) {
            found.push(token.start..next.end);
        } else if text.len() > 5 {
            let (outward, inward) = text.split_at(text.len() - 3);
            if is_outward_code(outward) && is_inward_code(inward) {
                found.push(token.clone());
            }
        }
    }
    found
}

/// Where `message` writes a postcode's district alone ("NW3", "in E8"):
/// a clause of its own, or after "in", "near" or "around". Read only for
/// a parameter that asks for a postcode, and only when the message writes
/// no whole postcode.
pub fn postcode_districts(message: &str) -> Vec<Range<usize>> {
    let mut found = Vec::new();
    let mut offset = 0;
    let mut previous = "";
    for word in message.split_inclusive(char::is_whitespace) {
        let at = offset;
        offset += word.len();
        let token = word.trim_end();
        let bare = token.trim_end_matches([',', '.', ';', '?', '!']);
        let stands_alone = previous.is_empty() || previous.ends_with([',', ';', ':']);
        let placed = matches!(
            previous.to_lowercase().as_str(),
            "in" | "near" | "around" | "at"
        );
        if is_outward_code(bare)
            && bare.chars().any(|c| c.is_ascii_digit())
            && (stands_alone || placed)
        {
            found.push(at..at + bare.len());
        }
        if !token.is_empty() {
            previous = token;
        }
    }
    found
}

/// Where `message` writes a latitude and a longitude in decimal degrees
/// ("51.5072,-0.1276", "48.85, 2.35").
pub fn coordinates(message: &str) -> Vec<Range<usize>> {
    let numbers = crate::numbers::numbers(message);
    numbers
        .windows(2)
        .filter_map(|pair| {
            let (latitude, longitude) = (&pair[0], &pair[1]);
            let between = message[latitude.bytes.end..longitude.bytes.start].trim();
            let degrees = |text: &str, most: f64| {
                text.contains('.')
                    && text
                        .trim_start_matches('-')
                        .parse::<f64>()
                        .is_ok_and(|value| value <= most)
            };
            let start = match message[..latitude.bytes.start].ends_with('-') {
                true => latitude.bytes.start - 1,
                false => latitude.bytes.start,
            };
            (between == ","
                && degrees(&message[start..latitude.bytes.end], 90.0)
                && degrees(&message[longitude.bytes.clone()], 180.0))
            .then_some(start..longitude.bytes.end)
        })
        .collect()
}

/// A postcode's district: one or two letters, a digit, and a digit or a
/// letter more ("OX4", "SW1A", "M14").
fn is_outward_code(token: &str) -> bool {
    let letters = token.chars().take_while(char::is_ascii_uppercase).count();
    let rest = &token[letters..];
    let mut rest_chars = rest.chars();
    (1..=2).contains(&letters)
        && rest_chars.next().is_some_and(|c| c.is_ascii_digit())
        && rest.len() <= 2
        && rest_chars.all(|c| c.is_ascii_digit() || c.is_ascii_uppercase())
}

/// A postcode's unit: a digit and two letters ("2JY").
fn is_inward_code(token: &str) -> bool {
    let chars: Vec<char> = token.chars().collect();
    matches!(chars.as_slice(), [digit, a, b] if digit.is_ascii_digit() && a.is_ascii_uppercase() && b.is_ascii_uppercase())
}

/// Where `message` writes a whole address that ends with the postcode at
/// `postcode`: from the house number of a street address (see
/// [`opens_street_address`]) a few words before, in the same sentence,
/// through the postcode ("27 Cedar Close, Reading RG1 5PX"; "Flat 2, 18
/// Hyde Park Road, Leeds LS6 1AH" from its house number).
pub fn address_through(message: &str, postcode: &Range<usize>) -> Option<Range<usize>> {
    let before = &message[..postcode.start];
    crate::numbers::numbers(before)
        .iter()
        .filter(|number| opens_street_address(&message[number.bytes.end..]))
        .filter(|number| {
            let between = &message[number.bytes.end..postcode.start];
            between.split_whitespace().count() <= ADDRESS_WORDS
                && !between.contains(['!', '?', '\n'])
                && !between.contains(". ")
        })
        .map(|number| number.bytes.start..postcode.end)
        .next()
}

/// Most words from a house number to its postcode: a street, a district
/// and a town.
const ADDRESS_WORDS: usize = 9;

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

    #[test]
    fn an_address_runs_from_its_house_number_to_its_postcode() {
        let through = |message: &str| -> Option<String> {
            let postcode = postcodes(message).into_iter().next()?;
            address_through(message, &postcode).map(|bytes| message[bytes].to_owned())
        };
        assert_eq!(
            through("Jo Bell, 14 Mill Lane, Didcot OX11 7AB, British").as_deref(),
            Some("14 Mill Lane, Didcot OX11 7AB")
        );
        assert_eq!(through("Jo Bell, OX11 7AB"), None);
        assert_eq!(
            through("I live at 14 Mill Lane. My postcode is OX11 7AB"),
            None,
            "another sentence"
        );
    }

    #[test]
    fn a_postcode_is_read_whole() {
        let written = |message: &str| -> Vec<String> {
            postcodes(message)
                .into_iter()
                .map(|bytes| message[bytes].to_owned())
                .collect()
        };
        assert_eq!(written("order birch to OX4 2JY for Friday"), ["OX4 2JY"]);
        assert_eq!(written("邮编CB2 1TN，多少钱"), ["CB2 1TN"]);
        assert_eq!(written("near SW1A1AA or M14 5RB"), ["SW1A1AA", "M14 5RB"]);
        assert!(written("room B12 at 3PM, flight BA 123").is_empty());
    }

    #[test]
    fn a_district_alone_and_a_pair_of_degrees_are_read() {
        let written = |found: Vec<Range<usize>>, message: &str| -> Vec<String> {
            found
                .into_iter()
                .map(|bytes| message[bytes].to_owned())
                .collect()
        };
        let message = "a babysitter, NW3, tomorrow 18:30";
        assert_eq!(written(postcode_districts(message), message), ["NW3"]);
        let message = "any sitters in E8 tonight?";
        assert_eq!(written(postcode_districts(message), message), ["E8"]);
        let message = "plot B12 has weeds, call 3PM";
        assert!(postcode_districts(message).is_empty());
        let message = "any restrictions near 51.5072,-0.1276 tomorrow";
        assert_eq!(written(coordinates(message), message), ["51.5072,-0.1276"]);
        let message = "fly at -33.86, 151.2 today";
        assert_eq!(written(coordinates(message), message), ["-33.86, 151.2"]);
        let message = "3.5, 4.5 and 120.0, 95.5";
        assert_eq!(written(coordinates(message), message), ["3.5, 4.5"]);
    }
}
