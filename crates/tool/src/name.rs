//! The tool name rule: what LLM function-calling APIs accept.

const MAX_NAME_LEN: usize = 64;

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// `^[A-Za-z0-9_-]{1,64}$`
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty() && name.len() <= MAX_NAME_LEN && name.chars().all(is_name_char)
}

/// Makes a valid name out of any text: other characters become `_`, and the
/// result is cut to the maximum length.
pub fn sanitize_name(raw: &str) -> String {
    let mut name: String = raw
        .chars()
        .map(|c| if is_name_char(c) { c } else { '_' })
        .take(MAX_NAME_LEN)
        .collect();
    if name.is_empty() {
        name.push('_');
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_function_calling_rule() {
        for good in ["weather", "unit-convert", "A_1", &"x".repeat(64)] {
            assert!(is_valid_name(good), "{good}");
        }
        for bad in ["", "has space", "天気", "dot.name", &"x".repeat(65)] {
            assert!(!is_valid_name(bad), "{bad}");
        }
    }

    #[test]
    fn sanitized_names_are_valid() {
        assert_eq!(sanitize_name("gmail.send mail"), "gmail_send_mail");
        assert_eq!(sanitize_name(""), "_");
        assert!(is_valid_name(&sanitize_name(&"天".repeat(100))));
    }
}
