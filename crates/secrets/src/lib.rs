//! Secret values kept out of everything a tool sends.
//!
//! A [`Redactor`] knows each secret's value and looks for it in a text as it
//! is written and as the usual encodings write it (base64 in either alphabet
//! at any of its three alignments, hex, URL escapes, JSON escapes), also
//! where a line break falls inside it; each one found becomes
//! `[secret:NAME]`.
//!
//! The process keeps one redactor that every sink uses ([`register`],
//! [`scrub`]). Secrets are only ever added to it: a sink never scrubs less
//! than every secret named anywhere in the process, whichever settings named
//! it, and a process that names none pays one atomic load per text.

mod variants;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use aho_corasick::{AhoCorasick, MatchKind};
use parking_lot::{Mutex, RwLock};
use serde_json::Value;

/// The shortest secret value accepted: a shorter one would be found in
/// ordinary text, and its encodings more often still.
pub const MIN_SECRET_CHARS: usize = 8;

/// What a secret is replaced by.
pub fn placeholder(name: &str) -> String {
    format!("[secret:{name}]")
}

/// A value refused as a secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooShort {
    pub name: String,
    pub chars: usize,
}

impl std::fmt::Display for TooShort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "secret \"{}\" is {} characters long; a secret needs at least {MIN_SECRET_CHARS} \
             to be told apart from ordinary output",
            self.name, self.chars
        )
    }
}

impl std::error::Error for TooShort {}

/// Secrets and every way of writing them, looked for in one pass.
pub struct Redactor {
    /// The placeholder of each pattern's secret, by pattern index.
    placeholders: Vec<Arc<str>>,
    /// `None` with no secrets.
    finder: Option<AhoCorasick>,
}

impl Redactor {
    /// A redactor for `secrets`, name and value; values under
    /// [`MIN_SECRET_CHARS`] are refused.
    pub fn new<'a>(
        secrets: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Self, TooShort> {
        let mut placeholders = Vec::new();
        let mut patterns = Vec::new();
        for (name, value) in secrets {
            let chars = value.chars().count();
            if chars < MIN_SECRET_CHARS {
                return Err(TooShort {
                    name: name.to_owned(),
                    chars,
                });
            }
            let shown: Arc<str> = placeholder(name).into();
            for pattern in variants::variants(value) {
                placeholders.push(shown.clone());
                patterns.push(pattern);
            }
        }
        let finder = (!patterns.is_empty()).then(|| {
            AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostLongest)
                .build(&patterns)
                .expect("secret patterns are plain strings")
        });
        Ok(Redactor {
            placeholders,
            finder,
        })
    }

    pub fn is_empty(&self) -> bool {
        self.finder.is_none()
    }

    /// `text` with every secret found replaced; borrowed when none was.
    pub fn scrub<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let Some(finder) = &self.finder else {
            return Cow::Borrowed(text);
        };
        let joined = Joined::new(text);
        let mut scrubbed = String::new();
        let mut copied = 0;
        for found in finder.find_iter(joined.text()) {
            let (start, end) = joined.original(found.start(), found.end());
            scrubbed.push_str(&text[copied..start]);
            scrubbed.push_str(&self.placeholders[found.pattern().as_usize()]);
            copied = end;
        }
        if copied == 0 && scrubbed.is_empty() {
            return Cow::Borrowed(text);
        }
        scrubbed.push_str(&text[copied..]);
        Cow::Owned(scrubbed)
    }

    /// Scrubs a string in place; true when it changed.
    pub fn scrub_string(&self, text: &mut String) -> bool {
        match self.scrub(text) {
            Cow::Borrowed(_) => false,
            Cow::Owned(scrubbed) => {
                *text = scrubbed;
                true
            }
        }
    }

    /// Scrubs every string of a JSON value, keys included.
    pub fn scrub_value(&self, value: &mut Value) {
        if self.is_empty() {
            return;
        }
        match value {
            Value::String(text) => {
                self.scrub_string(text);
            }
            Value::Array(items) => items.iter_mut().for_each(|item| self.scrub_value(item)),
            Value::Object(map) => {
                let keys_clean = map.keys().all(|key| !self.contains(key));
                if keys_clean {
                    map.values_mut().for_each(|item| self.scrub_value(item));
                } else {
                    let entries = std::mem::take(map);
                    for (key, mut item) in entries {
                        self.scrub_value(&mut item);
                        map.insert(self.scrub(&key).into_owned(), item);
                    }
                }
            }
            _ => {}
        }
    }

    /// Whether `text` holds a secret, written any way the redactor knows.
    pub fn contains(&self, text: &str) -> bool {
        self.finder
            .as_ref()
            .is_some_and(|finder| finder.is_match(Joined::new(text).text()))
    }
}

/// A text with its line breaks taken out, so that a secret a line break
/// cuts is found whole, and the way back to the text's own offsets.
struct Joined<'a> {
    text: Cow<'a, str>,
    /// The original offset of each byte of `text`, when breaks were taken out.
    offsets: Option<Vec<usize>>,
}

impl<'a> Joined<'a> {
    fn new(text: &'a str) -> Self {
        if !text.bytes().any(is_break) {
            return Joined {
                text: Cow::Borrowed(text),
                offsets: None,
            };
        }
        let mut joined = Vec::with_capacity(text.len());
        let mut offsets = Vec::with_capacity(text.len());
        for (offset, byte) in text.bytes().enumerate() {
            if !is_break(byte) {
                joined.push(byte);
                offsets.push(offset);
            }
        }
        let joined = String::from_utf8(joined).expect("only ASCII breaks were taken out");
        Joined {
            text: Cow::Owned(joined),
            offsets: Some(offsets),
        }
    }

    fn text(&self) -> &str {
        &self.text
    }

    /// The original byte range of the joined range `start..end` (not empty).
    fn original(&self, start: usize, end: usize) -> (usize, usize) {
        match &self.offsets {
            None => (start, end),
            Some(offsets) => (offsets[start], offsets[end - 1] + 1),
        }
    }
}

fn is_break(byte: u8) -> bool {
    byte == b'\n' || byte == b'\r'
}

/// The process's secrets, by value (the first name given a value keeps it).
static NAMED: Mutex<BTreeMap<String, String>> = Mutex::new(BTreeMap::new());
/// The latest value registered under each name, for what Riverse sends
/// itself (`${secret:NAME}` in a YAML agent's headers).
static VALUES: Mutex<BTreeMap<String, String>> = Mutex::new(BTreeMap::new());
static CURRENT: RwLock<Option<Arc<Redactor>>> = RwLock::new(None);
/// Set once any secret is registered: until then a scrub is one load.
static ANY: AtomicBool = AtomicBool::new(false);

/// Adds secrets to the process's redactor (values already known are kept
/// under their first name). Nothing is added when one is refused.
pub fn register<'a>(secrets: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<(), TooShort> {
    let secrets: Vec<_> = secrets.into_iter().collect();
    Redactor::new(secrets.iter().copied())?;
    VALUES.lock().extend(
        secrets
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned())),
    );
    let mut named = NAMED.lock();
    let before = named.len();
    for (name, value) in secrets {
        named
            .entry(value.to_owned())
            .or_insert_with(|| name.to_owned());
    }
    if named.len() == before {
        return Ok(());
    }
    let redactor = Redactor::new(
        named
            .iter()
            .map(|(value, name)| (name.as_str(), value.as_str())),
    )?;
    *CURRENT.write() = Some(Arc::new(redactor));
    ANY.store(true, Ordering::Release);
    Ok(())
}

/// The value last registered under `name`.
pub fn value_of(name: &str) -> Option<String> {
    VALUES.lock().get(name).cloned()
}

/// The process's redactor; `None` while no secret is known.
pub fn current() -> Option<Arc<Redactor>> {
    if !ANY.load(Ordering::Acquire) {
        return None;
    }
    CURRENT.read().clone()
}

/// `text` with every secret of the process replaced.
pub fn scrub(text: &str) -> Cow<'_, str> {
    match current() {
        None => Cow::Borrowed(text),
        Some(redactor) => match redactor.scrub(text) {
            Cow::Borrowed(_) => Cow::Borrowed(text),
            Cow::Owned(scrubbed) => Cow::Owned(scrubbed),
        },
    }
}

/// Scrubs a string in place with the process's secrets.
pub fn scrub_string(text: &mut String) {
    if let Some(redactor) = current() {
        redactor.scrub_string(text);
    }
}

/// Scrubs every string of a JSON value with the process's secrets.
pub fn scrub_value(value: &mut Value) {
    if let Some(redactor) = current() {
        redactor.scrub_value(value);
    }
}

#[cfg(test)]
mod tests;
