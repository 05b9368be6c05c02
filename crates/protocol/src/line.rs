//! What can be read of a JSON-RPC line that was too long to read whole.
//!
//! A reader keeps the first and the last [`KEPT_OF_TOO_LONG`] bytes of such a
//! line. Its id is a member of the outermost object, written first by most
//! (Python's SDK, Riverse's workers) and last by some (TypeScript's SDK
//! spreads the request and then sets `jsonrpc` and `id`). An `"id"` inside
//! the params is never taken for the message's own.

/// How much of each end of an over-long line a reader keeps: enough to read
/// its id.
pub const KEPT_OF_TOO_LONG: usize = 4096;

/// The id of an over-long line, as JSON text (`12`, `"a"`), from what was
/// kept of its start and of its end.
pub fn id_of_cut_line(start: &[u8], end: &[u8]) -> Option<String> {
    leading_id(start).or_else(|| trailing_id(end))
}

/// The id, as JSON text, when it is a member of the outermost object within
/// `start`, the first bytes of a line.
pub fn leading_id(start: &[u8]) -> Option<String> {
    let mut depth = 0usize;
    // Whether a string here would be a key of the outermost object.
    let mut at_key = false;
    let mut at = 0;
    while let Some(&byte) = start.get(at) {
        match byte {
            b'"' => {
                let close = string_end(start, at)?;
                if at_key && &start[at + 1..close] == b"id" {
                    let colon = skip_whitespace(start, close + 1);
                    if start.get(colon) != Some(&b':') {
                        return None;
                    }
                    return leading_scalar(&start[skip_whitespace(start, colon + 1)..]);
                }
                at_key = false;
                at = close;
            }
            b'{' | b'[' => {
                depth += 1;
                at_key = byte == b'{' && depth == 1;
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            b',' => at_key = depth == 1,
            _ => {}
        }
        at += 1;
    }
    None
}

/// The id, as JSON text, when the line ends with it as the last member of
/// the outermost object: `…,"id":12}`. `end` is the line's last bytes.
fn trailing_id(end: &[u8]) -> Option<String> {
    let close = before_whitespace(end, end.len());
    if close == 0 || end[close - 1] != b'}' {
        return None;
    }
    let value_end = before_whitespace(end, close - 1);
    let value_start = match value_end.checked_sub(1).map(|last| end[last]) {
        Some(b'"') => {
            let quote = value_end - 1;
            if escaped(end, quote)? {
                return None;
            }
            // The first quote before it that no backslash escapes opens the
            // string; a run of backslashes reaching the cut is unknowable.
            let mut open = None;
            for at in (0..quote).rev() {
                if end[at] == b'"' && !escaped(end, at)? {
                    open = Some(at);
                    break;
                }
            }
            open?
        }
        Some(_) => {
            let digits = end[..value_end]
                .iter()
                .rev()
                .take_while(|byte| byte.is_ascii_digit() || **byte == b'-')
                .count();
            let start = value_end - digits;
            is_integer(&end[start..value_end]).then_some(start)?
        }
        None => return None,
    };
    let colon = before_whitespace(end, value_start);
    if colon == 0 || end[colon - 1] != b':' {
        return None;
    }
    let key_end = before_whitespace(end, colon - 1);
    let key_start = key_end.checked_sub(4)?;
    if &end[key_start..key_end] != b"\"id\"" || escaped(end, key_start)? {
        return None;
    }
    let before_key = before_whitespace(end, key_start);
    if before_key == 0 || !matches!(end[before_key - 1], b',' | b'{') {
        return None;
    }
    String::from_utf8(end[value_start..value_end].to_vec()).ok()
}

/// A string or an integer at the start of `rest`, when it ends within it.
fn leading_scalar(rest: &[u8]) -> Option<String> {
    if rest.first() == Some(&b'"') {
        let close = string_end(rest, 0)?;
        return String::from_utf8(rest[..=close].to_vec()).ok();
    }
    let digits = rest
        .iter()
        .take_while(|byte| byte.is_ascii_digit() || **byte == b'-')
        .count();
    (is_integer(&rest[..digits]) && rest.len() > digits)
        .then(|| String::from_utf8_lossy(&rest[..digits]).into_owned())
}

/// Whether `text` is a JSON integer: an optional minus, then digits.
fn is_integer(text: &[u8]) -> bool {
    let digits = text.strip_prefix(b"-").unwrap_or(text);
    !digits.is_empty() && digits.iter().all(u8::is_ascii_digit)
}

/// The index of the quote that closes the string opened at `open`.
fn string_end(bytes: &[u8], open: usize) -> Option<usize> {
    let mut at = open + 1;
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b'\\' => at += 1,
            b'"' => return Some(at),
            _ => {}
        }
        at += 1;
    }
    None
}

/// Whether the byte at `at` is escaped: an odd run of backslashes before it.
/// `None` when the run reaches the start of `bytes`, which is a cut (and so
/// is a byte at the very start).
fn escaped(bytes: &[u8], at: usize) -> Option<bool> {
    let run = bytes[..at]
        .iter()
        .rev()
        .take_while(|byte| **byte == b'\\')
        .count();
    (run < at).then_some(run % 2 == 1)
}

fn skip_whitespace(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

/// The index just past the last non-whitespace byte before `at`.
fn before_whitespace(bytes: &[u8], mut at: usize) -> usize {
    while at > 0 && bytes[at - 1].is_ascii_whitespace() {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_read_from_the_start_of_a_line() {
        assert_eq!(
            leading_id(br#"{"jsonrpc":"2.0","id": 12,"#),
            Some("12".into())
        );
        assert_eq!(leading_id(br#"{"id":"x","#), Some("\"x\"".into()));
        assert_eq!(leading_id(br#"{"id":"a\"b","#), Some("\"a\\\"b\"".into()));
        assert_eq!(leading_id(br#"{"jsonrpc":"2.0","id":12"#), None);
        assert_eq!(leading_id(br#"{"jsonrpc":"2.0","method":"#), None);
        assert_eq!(leading_id(br#"{"id":-,"#), None, "no digit");
        assert_eq!(leading_id(br#"{"id":1-2,"#), None, "a minus inside");
    }

    #[test]
    fn an_id_in_the_params_is_not_the_messages() {
        let start = br#"{"method":"tools/call","params":{"name":"x","arguments":{"id":3,"list":[{"id":4}],"text":"\"id\":5,"#;
        assert_eq!(leading_id(start), None);
        let start = br#"{"params":{"id":3},"note":"\",\"id\":9","id":7,"#;
        assert_eq!(leading_id(start), Some("7".into()));
    }

    #[test]
    fn ids_are_read_from_the_end_of_a_line() {
        let cut = |end: &[u8]| id_of_cut_line(br#"{"method":"tools/call","params":{"#, end);
        assert_eq!(
            cut(br#"xxx"}},"jsonrpc":"2.0","id":12}"#),
            Some("12".into())
        );
        assert_eq!(cut(b"xx\"}}, \"id\" : -3 }\r\n"), Some("-3".into()));
        assert_eq!(
            cut(br#"xx"}},"jsonrpc":"2.0","id":"a\"b"}"#),
            Some(r#""a\"b""#.into())
        );
        assert_eq!(cut(br#"xx"},"id":"a\\"}"#), Some(r#""a\\""#.into()));
        // Not a member of the outermost object, or not at its end.
        assert_eq!(cut(br#"xx","id":12}}"#), None);
        assert_eq!(cut(br#"xx\",\"id\":12}"#), None);
        assert_eq!(cut(br#"xx"},"id":12,"jsonrpc":"2.0"}"#), None);
        assert_eq!(cut(br#"id":12}"#), None);
        assert_eq!(cut(br#"xx"},"id":-}"#), None, "no digit");
        assert_eq!(cut(br#"xx"},"id":3-4}"#), None, "a minus inside");
        // A backslash run that reaches the cut leaves the string unknowable.
        assert_eq!(cut(br#"\\"id":12}"#), None);
    }
}
