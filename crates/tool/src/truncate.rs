//! The output cap (`tools.max_output_bytes`).

/// Cuts `text` to at most `max_bytes` bytes at a character boundary and appends a
/// marker that says so and gives the original size. Text within the cap is
/// returned as it is.
pub fn cap_output(text: String, max_bytes: usize) -> String {
    if text.len() <= max_bytes {
        return text;
    }
    let mut cut = max_bytes;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let total = text.len();
    let mut capped = text;
    capped.truncate(cut);
    capped.push_str(&format!(
        "\n[output truncated: showing the first {cut} of {total} bytes]"
    ));
    capped
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
}
