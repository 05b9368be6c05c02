//! `shell: true` templates, read the way `sh` reads them.
//!
//! Pasting a quoted value into the template's text is only safe where the
//! template puts no quotes of its own around the placeholder: inside
//! `"Hello {name}"` or `'{name}'` the value's quotes close the template's.
//! So no value is pasted at all. Each placeholder becomes a positional
//! parameter in the script (`"${1}"`, or `${1}` inside double quotes, or
//! `'"${1}"'` inside single quotes) and the values are passed after it:
//! `sh -c SCRIPT sh VALUE...`. `sh` expands a parameter once and never reads
//! its text as script.
//!
//! A placeholder inside `$(...)`, backquotes, `${...}`, `$'...'` or a
//! here-document is refused: there the script's own quoting rules differ, and
//! a template does not need it. So is a placeholder in a script that sets
//! its own positional parameters (`set -- a b`, `shift`, a function): there
//! `"${1}"` would no longer be the value.

use crate::words::Word;

/// A checked `shell: true` template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ShellTemplate {
    segments: Vec<Segment>,
    /// The top-level simple commands, word by word, for the program checks.
    pub(crate) commands: Vec<Vec<Word>>,
    /// Every top-level word, redirection targets included: what the
    /// protected-path check fills and reads.
    pub(crate) words: Vec<Word>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    /// Script text, copied as it is.
    Script(String),
    /// A placeholder and the quotes around it in the template.
    Value { name: String, quoting: Quoting },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quoting {
    Unquoted,
    Double,
    Single,
}

/// The script and the values to pass after it, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Script {
    pub(crate) text: String,
    pub(crate) values: Vec<String>,
}

impl ShellTemplate {
    pub(crate) fn parse(template: &str) -> Result<ShellTemplate, String> {
        Reader::new(template).read()
    }

    /// The script for one call; `value` gives a parameter's text, `None`
    /// when the call did not give it (its placeholder is then removed).
    pub(crate) fn render(&self, value: impl Fn(&str) -> Option<String>) -> Script {
        let mut text = String::new();
        let mut values = Vec::new();
        for segment in &self.segments {
            match segment {
                Segment::Script(script) => text.push_str(script),
                Segment::Value { name, quoting } => {
                    let Some(given) = value(name) else {
                        continue;
                    };
                    values.push(given);
                    let n = values.len();
                    text.push_str(&match quoting {
                        Quoting::Unquoted => format!("\"${{{n}}}\""),
                        Quoting::Double => format!("${{{n}}}"),
                        Quoting::Single => format!("'\"${{{n}}}\"'"),
                    });
                }
            }
        }
        Script { text, values }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Unquoted,
    Double,
    Single,
}

/// Where a nested part of the script ends.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Close {
    /// `$(...)` and `$((...))`.
    Paren,
    /// `${...}`.
    Brace,
    /// `` `...` ``.
    Backquote,
}

struct Reader<'a> {
    source: &'a str,
    at: usize,
    segments: Vec<Segment>,
    script: String,
    commands: Vec<Vec<Word>>,
    command: Vec<Word>,
    words: Vec<Word>,
    word: Option<Word>,
    /// The next word names a redirection's file, not an argument.
    redirect_target: bool,
    heredoc: bool,
    /// `name() ...`: a function, whose `$1` is not the template's.
    function: bool,
    placeholders: usize,
}

impl<'a> Reader<'a> {
    fn new(source: &'a str) -> Self {
        Reader {
            source,
            at: 0,
            segments: Vec::new(),
            script: String::new(),
            commands: Vec::new(),
            command: Vec::new(),
            words: Vec::new(),
            word: None,
            redirect_target: false,
            heredoc: false,
            function: false,
            placeholders: 0,
        }
    }

    fn read(mut self) -> Result<ShellTemplate, String> {
        let mut state = State::Unquoted;
        while let Some(c) = self.peek() {
            state = match state {
                State::Unquoted => self.unquoted(c)?,
                State::Double => self.double(c)?,
                State::Single => self.single(c),
            };
        }
        if state != State::Unquoted {
            return Err("unbalanced quotes".into());
        }
        if self.heredoc && self.placeholders > 0 {
            return Err("a placeholder in a script with a here-document is not supported".into());
        }
        self.end_command();
        if self.placeholders > 0 && (self.function || self.commands.iter().any(|c| rebinds(c))) {
            return Err(
                "the script sets the positional parameters (set --, shift or a function) that \
                 carry its values; such a script can't have placeholders"
                    .into(),
            );
        }
        self.flush_script();
        Ok(ShellTemplate {
            segments: self.segments,
            commands: self.commands,
            words: self.words,
        })
    }

    fn peek(&self) -> Option<char> {
        self.source[self.at..].chars().next()
    }

    fn rest(&self) -> &'a str {
        &self.source[self.at..]
    }

    /// Copies the next character into the script and returns it.
    fn take(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += c.len_utf8();
        self.script.push(c);
        Some(c)
    }

    fn word(&mut self) -> &mut Word {
        self.word.get_or_insert_with(Word::default)
    }

    fn end_word(&mut self) {
        if let Some(word) = self.word.take() {
            self.words.push(word.clone());
            if self.redirect_target {
                self.redirect_target = false;
            } else {
                self.command.push(word);
            }
        }
    }

    fn end_command(&mut self) {
        self.end_word();
        if !self.command.is_empty() {
            self.commands.push(std::mem::take(&mut self.command));
        }
    }

    fn flush_script(&mut self) {
        if !self.script.is_empty() {
            self.segments
                .push(Segment::Script(std::mem::take(&mut self.script)));
        }
    }

    /// A `{name}` placeholder at the reader's position, consumed.
    fn placeholder(&mut self, quoting: Quoting) -> bool {
        let Some(name) = placeholder_at(self.rest()) else {
            return false;
        };
        self.at += name.len() + 2;
        self.flush_script();
        self.segments.push(Segment::Value {
            name: name.to_owned(),
            quoting,
        });
        self.word().push_value(name);
        self.placeholders += 1;
        true
    }

    fn unquoted(&mut self, c: char) -> Result<State, String> {
        if c == '{' && self.placeholder(Quoting::Unquoted) {
            return Ok(State::Unquoted);
        }
        if c == '$' {
            self.dollar()?;
            return Ok(State::Unquoted);
        }
        self.take();
        match c {
            ' ' | '\t' => self.end_word(),
            '(' if self.rest().trim_start_matches([' ', '\t']).starts_with(')') => {
                self.function = true;
                self.end_command();
            }
            '\n' | ';' | '&' | '|' | '(' | ')' => self.end_command(),
            '<' | '>' => {
                if c == '<' && self.peek() == Some('<') {
                    self.heredoc = true;
                }
                self.end_word();
                self.redirect_target = true;
            }
            '#' if self.word.is_none() => self.comment(),
            '\\' => {
                if let Some(escaped) = self.take()
                    && escaped != '\n'
                {
                    self.word().push_literal(&escaped.to_string());
                }
            }
            '\'' => {
                self.word();
                return Ok(State::Single);
            }
            '"' => {
                self.word();
                return Ok(State::Double);
            }
            '`' => {
                self.nested(Close::Backquote)?;
                self.word().push_literal("`");
            }
            other => self.word().push_literal(&other.to_string()),
        }
        Ok(State::Unquoted)
    }

    fn double(&mut self, c: char) -> Result<State, String> {
        if c == '{' && self.placeholder(Quoting::Double) {
            return Ok(State::Double);
        }
        if c == '$' {
            self.dollar()?;
            return Ok(State::Double);
        }
        self.take();
        match c {
            '"' => return Ok(State::Unquoted),
            '\\' => {
                if let Some(escaped) = self.take() {
                    self.word().push_literal(&escaped.to_string());
                }
            }
            '`' => {
                self.nested(Close::Backquote)?;
                self.word().push_literal("`");
            }
            other => self.word().push_literal(&other.to_string()),
        }
        Ok(State::Double)
    }

    fn single(&mut self, c: char) -> State {
        if c == '{' && self.placeholder(Quoting::Single) {
            return State::Single;
        }
        self.take();
        if c == '\'' {
            return State::Unquoted;
        }
        self.word().push_literal(&c.to_string());
        State::Single
    }

    /// `$(`, `${`, `$'` or a plain `$`. What a substitution yields is
    /// literal text to the checks: not a value.
    fn dollar(&mut self) -> Result<(), String> {
        self.take();
        match self.peek() {
            Some('(') => {
                self.take();
                self.nested(Close::Paren)?;
            }
            Some('{') => {
                self.take();
                self.nested(Close::Brace)?;
            }
            Some('\'') => {
                self.take();
                self.ansi_c_quoted()?;
            }
            _ => {}
        }
        self.word().push_literal("$");
        Ok(())
    }

    fn comment(&mut self) {
        while let Some(c) = self.peek() {
            if c == '\n' {
                break;
            }
            self.take();
        }
    }

    fn refuse_placeholder(&self, where_: &str) -> Result<(), String> {
        match placeholder_at(self.rest()) {
            Some(name) => Err(format!(
                "placeholder {{{name}}} is inside {where_}, where its value can't be passed safely"
            )),
            None => Ok(()),
        }
    }

    fn ansi_c_quoted(&mut self) -> Result<(), String> {
        loop {
            self.refuse_placeholder("$'...'")?;
            match self.take() {
                None => return Err("unbalanced quotes".into()),
                Some('\\') => {
                    self.take();
                }
                Some('\'') => return Ok(()),
                Some(_) => {}
            }
        }
    }

    /// Copies a nested part of the script up to its end, refusing any
    /// placeholder inside it.
    fn nested(&mut self, close: Close) -> Result<(), String> {
        let what = match close {
            Close::Paren => "$(...)",
            Close::Brace => "${...}",
            Close::Backquote => "backquotes",
        };
        let mut depth = 0usize;
        loop {
            self.refuse_placeholder(what)?;
            let Some(c) = self.take() else {
                return Err(format!("{what} is not closed"));
            };
            match (c, close) {
                (')', Close::Paren) if depth == 0 => return Ok(()),
                (')', Close::Paren) => depth -= 1,
                ('(', Close::Paren) => depth += 1,
                ('}', Close::Brace) | ('`', Close::Backquote) => return Ok(()),
                ('\\', _) => {
                    self.take();
                }
                ('\'', _) => self.skip_single(what)?,
                ('"', _) => self.skip_double(what)?,
                ('`', _) => self.nested(Close::Backquote)?,
                ('$', _) => match self.peek() {
                    Some('(') => {
                        self.take();
                        self.nested(Close::Paren)?;
                    }
                    Some('{') => {
                        self.take();
                        self.nested(Close::Brace)?;
                    }
                    _ => {}
                },
                _ => {}
            }
        }
    }

    fn skip_single(&mut self, what: &str) -> Result<(), String> {
        loop {
            self.refuse_placeholder(what)?;
            match self.take() {
                None => return Err("unbalanced quotes".into()),
                Some('\'') => return Ok(()),
                Some(_) => {}
            }
        }
    }

    fn skip_double(&mut self, what: &str) -> Result<(), String> {
        loop {
            self.refuse_placeholder(what)?;
            match self.take() {
                None => return Err("unbalanced quotes".into()),
                Some('"') => return Ok(()),
                Some('\\') => {
                    self.take();
                }
                Some('`') => self.nested(Close::Backquote)?,
                Some('$') => match self.peek() {
                    Some('(') => {
                        self.take();
                        self.nested(Close::Paren)?;
                    }
                    Some('{') => {
                        self.take();
                        self.nested(Close::Brace)?;
                    }
                    _ => {}
                },
                Some(_) => {}
            }
        }
    }
}

/// Whether a simple command sets `$1`, `$2`...: `set` with operands (or
/// `--`), `shift`, or a `function` definition.
fn rebinds(command: &[Word]) -> bool {
    const BEFORE: &[&str] = &[
        "command", "builtin", "eval", "exec", "then", "else", "elif", "do", "if", "while", "until",
        "!", "{", "time",
    ];
    let literals: Vec<Option<String>> = command.iter().map(Word::literal).collect();
    let mut words = literals
        .iter()
        .map(Option::as_deref)
        .skip_while(|word| word.is_some_and(|word| BEFORE.contains(&word) || is_assignment(word)));
    match words.next().flatten() {
        Some("shift" | "function") => true,
        Some("set") => {
            let mut takes_argument = false;
            words.any(|word| {
                let option = std::mem::take(&mut takes_argument);
                match word {
                    _ if option => false,
                    Some("-o" | "+o") => {
                        takes_argument = true;
                        false
                    }
                    Some("-" | "--") | None => true,
                    Some(word) => !word.starts_with(['-', '+']),
                }
            })
        }
        _ => false,
    }
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit())
    })
}

/// The name of the `{name}` placeholder `text` starts with.
fn placeholder_at(text: &str) -> Option<&str> {
    use crate::template::{Piece, pieces};
    let close = text.strip_prefix('{')?.find('}')?;
    match pieces(&text[..close + 2]).first() {
        Some(Piece::Placeholder(name)) => Some(name),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn render(template: &str, given: &[(&str, &str)]) -> Script {
        ShellTemplate::parse(template).unwrap().render(|name| {
            given
                .iter()
                .find(|(param, _)| *param == name)
                .map(|(_, value)| (*value).to_owned())
        })
    }

    #[test]
    fn each_placeholder_becomes_a_positional_parameter_whatever_its_quotes() {
        assert_eq!(
            render(
                r#"echo "Hello {name}" '{name}' {name} x{missing}y"#,
                &[("name", "$(id)")]
            ),
            Script {
                text: r#"echo "Hello ${1}" ''"${2}"'' "${3}" xy"#.into(),
                values: vec!["$(id)".into(), "$(id)".into(), "$(id)".into()],
            }
        );
    }

    #[test]
    fn shell_syntax_that_looks_like_a_placeholder_is_left_alone() {
        assert_eq!(
            render(r#"echo ${HOME} \{a} "\{a}" # {a}"#, &[("a", "v")]),
            Script {
                text: r#"echo ${HOME} \{a} "\{a}" # {a}"#.into(),
                values: vec![],
            }
        );
    }

    #[test]
    fn placeholders_inside_nested_scripts_are_refused() {
        for template in [
            "echo $(echo {a})",
            "echo \"$(printf '%s' {a})\"",
            "echo `echo {a}`",
            "echo ${X:-{a}}",
            "echo $'{a}'",
            "cat <<EOF\n{a}\nEOF",
        ] {
            assert!(
                ShellTemplate::parse(template).is_err(),
                "{template:?} was accepted"
            );
        }
        assert!(ShellTemplate::parse("echo \"{a}").is_err());
    }

    #[test]
    fn a_script_that_rebinds_its_positional_parameters_has_no_placeholders() {
        for template in [
            "set -- a b; echo {x}",
            "set - a; echo {x}",
            "set -e a; echo {x}",
            "if true; then shift; fi; echo {x}",
            "f() { echo \"$1\"; }; f {x}",
            "f () { echo; }; echo {x}",
            "function f { echo; }; echo {x}",
        ] {
            assert!(
                ShellTemplate::parse(template).is_err(),
                "{template:?} was accepted"
            );
        }
        for template in [
            "set -e; echo {x}",
            "set -o pipefail; echo {x} | cat",
            "echo set -- {x}",
            "set -- a b; echo \"$1\"",
            "(echo {x})",
        ] {
            assert!(
                ShellTemplate::parse(template).is_ok(),
                "{template:?} was refused"
            );
        }
    }

    #[test]
    fn commands_are_split_into_words() {
        let template = ShellTemplate::parse("cd /tmp && FOO=1 sh -c 'echo {a}' > out; ls").unwrap();
        let words: Vec<Vec<String>> = template
            .commands
            .iter()
            .map(|command| {
                command
                    .iter()
                    .map(|word| word.literal().unwrap_or_else(|| "<value>".into()))
                    .collect()
            })
            .collect();
        assert_eq!(
            words,
            [
                vec!["cd", "/tmp"],
                vec!["FOO=1", "sh", "-c", "<value>"],
                vec!["ls"]
            ]
        );
    }
}
