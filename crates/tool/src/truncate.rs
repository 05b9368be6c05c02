//! The output cap (`tools.max_output_bytes`).

/// Starts the marker that ends a cut output.
const MARKER_START: &str = "\n[output truncated: showing the first ";

fn marker(cut: usize, total: usize) -> String {
    format!("{MARKER_START}{cut} of {total} bytes]")
}

/// Cuts `text` to at most `max_bytes` bytes at a character boundary and appends a
/// marker that says so and gives the original size. Text within the cap, and
/// text its source already cut to the cap ([`mark_cut`]), is returned as it is.
pub fn cap_output(text: String, max_bytes: usize) -> String {
    if text.len() <= max_bytes || is_marked_cut(&text, max_bytes) {
        return text;
    }
    let mut cut = max_bytes;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let total = text.len();
    let mut capped = text;
    capped.truncate(cut);
    capped.push_str(&marker(cut, total));
    capped
}

/// The most bytes a marker takes: both sizes of twenty digits.
const MARKER_BYTES: usize = MARKER_START.len() + 20 + " of ".len() + 20 + " bytes]".len();

/// `first`, `separator` and `second` in at most `max_bytes` bytes, each part
/// cut with its own marker where it must be: neither crowds the other out.
/// A part shorter than half the room keeps it all and leaves the rest to the
/// other; two long parts get half each.
pub fn cap_shared(first: &str, separator: &str, second: &str, max_bytes: usize) -> String {
    let whole = first.len() + separator.len() + second.len();
    if whole <= max_bytes {
        return format!("{first}{separator}{second}");
    }
    // The room left for the parts when one of them is cut, and when both are.
    let one_cut = max_bytes.saturating_sub(separator.len() + MARKER_BYTES);
    let both_cut = one_cut.saturating_sub(MARKER_BYTES);
    let (first_room, second_room) = if first.len() <= one_cut / 2 {
        (first.len(), one_cut - first.len())
    } else if second.len() <= one_cut / 2 {
        (one_cut - second.len(), second.len())
    } else {
        (both_cut / 2, both_cut - both_cut / 2)
    };
    let first = cap_output(first.to_owned(), first_room);
    let second = cap_output(second.to_owned(), second_room);
    format!("{first}{separator}{second}")
}

/// The start of an output of `total` bytes that its source cut (the Python
/// worker cuts a huge result before sending it), with the marker
/// [`cap_output`] writes, which then leaves it as it is.
pub fn mark_cut(mut start: String, total: usize) -> String {
    let cut = start.len();
    start.push_str(&marker(cut, total));
    start
}

/// Whether `text` is a start of at most `max_bytes` followed by its marker.
fn is_marked_cut(text: &str, max_bytes: usize) -> bool {
    let Some(at) = text.rfind(MARKER_START) else {
        return false;
    };
    let numbers = text[at + MARKER_START.len()..].strip_suffix(" bytes]");
    let Some((cut, total)) = numbers.and_then(|numbers| numbers.split_once(" of ")) else {
        return false;
    };
    cut.parse() == Ok(at) && at <= max_bytes && total.parse::<usize>().is_ok_and(|total| total > at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_untouched() {
        assert_eq!(cap_output("hello".into(), 5), "hello");
    }

    #[test]
    fn long_text_is_cut_at_a_character_boundary_with_a_marker() {
        // "日" is three bytes: a cap of 4 bytes keeps one character.
        let capped = cap_output("日本語".into(), 4);
        assert_eq!(
            capped,
            "日\n[output truncated: showing the first 3 of 9 bytes]"
        );
    }

    #[test]
    fn two_parts_share_the_cap_each_cut_with_its_marker() {
        assert_eq!(cap_shared("ab", " | ", "cd", 7), "ab | cd");
        let long = "x".repeat(1000);
        let shared = cap_shared(&long, "\n\n", &long, 600);
        assert!(shared.len() <= 600, "{}", shared.len());
        let (first, second) = shared.split_once("\n\n").unwrap();
        assert!(first.starts_with(&"x".repeat(200)), "{first}");
        assert!(first.ends_with(" of 1000 bytes]"), "{first}");
        assert!(second.starts_with(&"x".repeat(200)), "{second}");
        assert!(second.ends_with(" of 1000 bytes]"), "{second}");
        // A short part is kept whole; the long one gets the rest.
        let shared = cap_shared("short", "\n\n", &long, 600);
        assert!(shared.starts_with("short\n\nxxx"), "{shared}");
        assert!(
            shared.len() <= 600 && shared.len() > 500,
            "{}",
            shared.len()
        );
        // Within the cap, the registry's cut leaves it as it is.
        assert_eq!(cap_output(shared.clone(), 600), shared);
    }

    #[test]
    fn text_its_source_cut_keeps_its_marker_and_size() {
        let cut = mark_cut("abcd".into(), 300_000_000);
        assert_eq!(
            cut,
            "abcd\n[output truncated: showing the first 4 of 300000000 bytes]"
        );
        assert_eq!(cap_output(cut.clone(), 4), cut);
        // A start longer than the cap is cut again.
        assert_eq!(
            cap_output(cut, 2),
            "ab\n[output truncated: showing the first 2 of 63 bytes]"
        );
    }
}
