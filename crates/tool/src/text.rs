//! Small pieces of text that messages about tools share.

use std::time::Duration;

/// `2s`, `0.5s`: a deadline as messages show it.
pub fn seconds(duration: Duration) -> String {
    let secs = duration.as_secs_f64();
    if secs.fract() == 0.0 {
        format!("{secs:.0}s")
    } else {
        format!("{secs}s")
    }
}

/// `text` cut to `max_chars` characters, with `…` where it was cut.
pub fn shorten(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deadlines_read_as_seconds() {
        assert_eq!(seconds(Duration::from_secs(15)), "15s");
        assert_eq!(seconds(Duration::from_millis(500)), "0.5s");
    }

    #[test]
    fn long_text_is_cut_at_a_character() {
        assert_eq!(shorten("日本語です", 3), "日本語…");
        assert_eq!(shorten("short", 10), "short");
    }
}
