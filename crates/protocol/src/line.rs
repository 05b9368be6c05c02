//! What can be read of a JSON-RPC line that was too long to read whole.

/// How much of an over-long line a reader keeps: enough to read its id.
pub const KEPT_OF_TOO_LONG: usize = 4096;

/// The id of a JSON-RPC message from the start of its line, as JSON text
/// (`7`, `"abc"`), when it can be read there.
pub fn leading_id(start: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(start);
    let after = text.find("\"id\"")? + 4;
    let rest = text[after..].trim_start().strip_prefix(':')?.trim_start();
    if let Some(quoted) = rest.strip_prefix('"') {
        let mut escaped = false;
        for (at, character) in quoted.char_indices() {
            match character {
                '\\' if !escaped => escaped = true,
                '"' if !escaped => return Some(format!("\"{}\"", &quoted[..at])),
                _ => escaped = false,
            }
        }
        return None;
    }
    let number: String = rest
        .chars()
        .take_while(|character| character.is_ascii_digit() || *character == '-')
        .collect();
    (!number.is_empty() && rest.len() > number.len()).then_some(number)
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
    }
}
