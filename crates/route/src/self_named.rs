//! Where a message gives its writer's own name: signed at its end ("… on
//! Thursday? Janet Fielding"), or introduced ("I'm Ryan Price", "my name
//! is Helen Marsh", 我是陈晓, 我叫刘婷). That name is the sender's, the
//! value of a parameter for the person asking (`member_name`,
//! `voter_name`), and of no parameter for someone else (`proxy_name`) nor
//! for anything but a person (`role`).

use std::ops::Range;

/// Words that introduce the writer's name just after them.
const INTRODUCTIONS: [&str; 9] = [
    "i'm ",
    "i am ",
    "im ",
    "my name is ",
    "my name's ",
    "this is ",
    "name is ",
    "it's ",
    "it is ",
];

/// Chinese words that introduce the writer's name.
const CJK_INTRODUCTIONS: [&str; 5] = ["我是", "我叫", "我的名字是", "本人", "名字叫"];

/// The bytes of the writer's own name in `message`, if it gives one.
pub fn self_named(message: &str) -> Option<Range<usize>> {
    introduced(message)
        .or_else(|| signature(message))
        .or_else(|| cjk_introduced(message))
}

/// Two or three capitalised words after a message's last stop: the
/// writer's name, signed.
pub(crate) fn signature(message: &str) -> Option<Range<usize>> {
    let trimmed = message.trim_end();
    let stop = trimmed.rfind(['.', '!', '?', '\n', ','])?;
    let rest = &trimmed[stop + 1..];
    let words: Vec<&str> = rest.split_whitespace().collect();
    let named = (2..=3).contains(&words.len())
        && words
            .iter()
            .all(|word| capitalised(word) && !word.starts_with("I'") && !word.ends_with("'s"));
    named.then(|| {
        let start = stop + 1 + (rest.len() - rest.trim_start().len());
        start..trimmed.len()
    })
}

/// A capitalised name introduced by "I'm", "my name is" or "this is".
fn introduced(message: &str) -> Option<Range<usize>> {
    let lower = message.to_lowercase();
    INTRODUCTIONS.iter().find_map(|intro| {
        lower.match_indices(intro).find_map(|(at, _)| {
            let opens_word = lower[..at]
                .chars()
                .next_back()
                .is_none_or(|c| !c.is_alphanumeric());
            let start = at + intro.len();
            let words = leading_capitalised(&message[start..]);
            (opens_word && (2..=3).contains(&words.len())).then(|| {
                let end = words.last().map_or(start, |word| word.end);
                start..start + end
            })
        })
    })
}

/// The capitalised words `text` opens with, as byte ranges of it.
fn leading_capitalised(text: &str) -> Vec<Range<usize>> {
    let mut found = Vec::new();
    let mut offset = 0;
    for piece in text.split_inclusive(' ') {
        let word = piece.trim_end();
        let bare = word.trim_end_matches(|c: char| ",.;!?".contains(c));
        if !capitalised(bare) {
            break;
        }
        found.push(offset..offset + bare.len());
        offset += piece.len();
        if bare.len() < word.len() || found.len() == 3 {
            break;
        }
    }
    found
}

/// A Chinese name of two to four characters after 我是 or 我叫, up to the
/// next stop.
fn cjk_introduced(message: &str) -> Option<Range<usize>> {
    CJK_INTRODUCTIONS.iter().find_map(|intro| {
        let at = message.find(intro)? + intro.len();
        let rest = &message[at..];
        let name: String = rest
            .chars()
            .take_while(|&c| crate::script::script(c) == crate::script::Script::Han)
            .collect();
        let ends = rest[name.len()..]
            .chars()
            .next()
            .is_none_or(|c| "，,。.！!？? ".contains(c));
        ((2..=4).contains(&name.chars().count()) && ends).then(|| at..at + name.len())
    })
}

fn capitalised(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next().is_some_and(char::is_uppercase)
        && chars.clone().count() > 0
        && chars.all(|c| c.is_lowercase() || c == '-' || c == '\'')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(message: &str) -> Option<&str> {
        self_named(message).map(|bytes| &message[bytes])
    }

    #[test]
    fn a_signed_or_introduced_name_is_the_writers() {
        assert_eq!(
            named("Could I take the 7:30pm slot on Thursday? Janet Fielding"),
            Some("Janet Fielding")
        );
        assert_eq!(
            named("Let my mate Kev Hughes vote for me, I'm Ryan Price"),
            Some("Ryan Price")
        );
        assert_eq!(
            named("Hi, my name is Helen Marsh. Postal vote please"),
            Some("Helen Marsh")
        );
        assert_eq!(named("我是陈晓，这周三的排练要请假"), Some("陈晓"));
        assert_eq!(named("I'm away a lot. Postal vote please"), None);
        assert_eq!(named("I'm Going Home"), Some("Going Home"));
        assert_eq!(
            named("When am I called from the 4th Jan onwards? It's Priya Nair"),
            Some("Priya Nair")
        );
        assert_eq!(named("Book it for Tom Lee"), None);
        assert_eq!(named("我是V-208，付一百二十元摊位费"), None);
    }
}
