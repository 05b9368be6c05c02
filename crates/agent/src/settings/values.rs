//! The typed values of `settings.yaml`, each validated once as it is read.
//!
//! Riverse's own settings files write booleans and numbers as text now and then
//! (`enabled: "false"`, `timeout: "30"`), and Riverse reads them. So does this
//! module: a [`Scalar`] remembers that its value came as text, and the caller,
//! which knows the key, warns about it. A value that can't be read, or a number
//! outside its documented range, is a deserialization error, so it carries the
//! key path, line and column that the YAML reader adds.

use std::fmt;
use std::marker::PhantomData;
use std::time::Duration;

use serde::de::{self, Deserialize, Deserializer, Visitor};

/// The longest deadline any key accepts: one day. Longer ones are almost
/// certainly typos, and `Duration` arithmetic on deadlines far in the future
/// overflows `Instant`.
pub const MAX_SECONDS: f64 = 86_400.0;

/// A number as YAML wrote it.
#[derive(Debug, Clone, Copy)]
pub enum Number {
    Unsigned(u64),
    Signed(i64),
    /// An integer too large for 64 bits.
    Wide(i128),
    Float(f64),
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Number::Unsigned(n) => write!(f, "{n}"),
            Number::Signed(n) => write!(f, "{n}"),
            Number::Wide(n) => write!(f, "{n}"),
            Number::Float(n) => write!(f, "{n}"),
        }
    }
}

impl Number {
    fn as_f64(self) -> f64 {
        match self {
            Number::Unsigned(n) => n as f64,
            Number::Signed(n) => n as f64,
            Number::Wide(n) => n as f64,
            Number::Float(n) => n,
        }
    }

    fn parse(text: &str) -> Option<Number> {
        let text = text.trim();
        text.parse()
            .map(Number::Unsigned)
            .or_else(|_| text.parse().map(Number::Signed))
            .ok()
            .or_else(|| text.parse().ok().map(Number::Float))
    }
}

/// A value that YAML may give as a scalar of its own type or as text.
pub trait FromScalar: Sized {
    /// What the error message says was expected.
    fn expected() -> String;

    fn from_bool(value: bool) -> Result<Self, String> {
        Err(format!("expected {}, got {value}", Self::expected()))
    }

    fn from_number(value: Number) -> Result<Self, String> {
        Err(format!("expected {}, got {value}", Self::expected()))
    }

    /// Text is read as a number or a boolean where that is what is expected.
    fn from_text(text: &str) -> Result<Self, String> {
        match Number::parse(text) {
            Some(number) => Self::from_number(number),
            None => Err(format!("expected {}, got {text:?}", Self::expected())),
        }
    }
}

/// A scalar setting and, when YAML gave it as text, that text.
#[derive(Debug, Clone, PartialEq)]
pub struct Scalar<T> {
    pub value: T,
    pub written_as_text: Option<String>,
}

impl<'de, T: FromScalar> Deserialize<'de> for Scalar<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ScalarVisitor(PhantomData))
    }
}

struct ScalarVisitor<T>(PhantomData<T>);

impl<T> ScalarVisitor<T> {
    fn plain<E: de::Error>(result: Result<T, String>) -> Result<Scalar<T>, E> {
        result.map_err(E::custom).map(|value| Scalar {
            value,
            written_as_text: None,
        })
    }
}

impl<'de, T: FromScalar> Visitor<'de> for ScalarVisitor<T> {
    type Value = Scalar<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&T::expected())
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<Self::Value, E> {
        Self::plain(T::from_bool(value))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Self::Value, E> {
        Self::plain(T::from_number(Number::Unsigned(value)))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Self::Value, E> {
        Self::plain(T::from_number(Number::Signed(value)))
    }

    fn visit_u128<E: de::Error>(self, value: u128) -> Result<Self::Value, E> {
        let wide = i128::try_from(value).unwrap_or(i128::MAX);
        Self::plain(T::from_number(Number::Wide(wide)))
    }

    fn visit_i128<E: de::Error>(self, value: i128) -> Result<Self::Value, E> {
        Self::plain(T::from_number(Number::Wide(value)))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Self::Value, E> {
        Self::plain(T::from_number(Number::Float(value)))
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
        T::from_text(text).map_err(E::custom).map(|value| Scalar {
            value,
            written_as_text: Some(text.to_owned()),
        })
    }
}

impl FromScalar for bool {
    fn expected() -> String {
        "true or false".into()
    }

    fn from_bool(value: bool) -> Result<Self, String> {
        Ok(value)
    }

    fn from_text(text: &str) -> Result<Self, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "true" | "yes" | "on" | "1" => Ok(true),
            "false" | "no" | "off" | "0" => Ok(false),
            _ => Err(format!("expected true or false, got {text:?}")),
        }
    }
}

/// Any finite number; ranges are the caller's, who may be lenient about them.
impl FromScalar for f64 {
    fn expected() -> String {
        "a number".into()
    }

    fn from_number(value: Number) -> Result<Self, String> {
        Some(value.as_f64())
            .filter(|n| n.is_finite())
            .ok_or_else(|| format!("expected a finite number, got {value}"))
    }
}

/// A whole number from `MIN` to `MAX`: the range is part of the key's type,
/// so the error that names the key also gives the range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Count<const MIN: u64, const MAX: u64>(pub u64);

impl<const MIN: u64, const MAX: u64> FromScalar for Count<MIN, MAX> {
    fn expected() -> String {
        format!("a whole number from {MIN} to {MAX}")
    }

    fn from_number(value: Number) -> Result<Self, String> {
        let whole = match value {
            Number::Unsigned(n) => Some(n),
            Number::Signed(_) | Number::Wide(_) => None,
            Number::Float(n) if n.fract() == 0.0 && n >= 0.0 && n <= u64::MAX as f64 => {
                Some(n as u64)
            }
            Number::Float(_) => None,
        };
        whole
            .filter(|n| (MIN..=MAX).contains(n))
            .map(Count)
            .ok_or_else(|| format!("expected {}, got {value}", Self::expected()))
    }
}

impl<const MIN: u64, const MAX: u64> Count<MIN, MAX> {
    pub fn get(self) -> usize {
        usize::try_from(self.0).unwrap_or(usize::MAX)
    }
}

/// A deadline in seconds: more than 0, at most [`MAX_SECONDS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seconds(pub Duration);

impl FromScalar for Seconds {
    fn expected() -> String {
        format!("a number of seconds above 0 and at most {MAX_SECONDS}")
    }

    fn from_number(value: Number) -> Result<Self, String> {
        let secs = value.as_f64();
        if secs > 0.0 && secs <= MAX_SECONDS {
            Ok(Seconds(Duration::from_secs_f64(secs)))
        } else {
            Err(format!("expected {}, got {value}", Self::expected()))
        }
    }
}

/// An `http://` or `https://` URL with a host, without a trailing slash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpUrl(String);

impl HttpUrl {
    pub fn parse(text: &str) -> Result<HttpUrl, String> {
        let url = text.trim().trim_end_matches('/');
        let rest = url
            .strip_prefix("http://")
            .or_else(|| url.strip_prefix("https://"));
        match rest {
            Some(rest) if !rest.is_empty() && !rest.starts_with('/') => Ok(HttpUrl(url.to_owned())),
            _ => Err(format!("expected an http:// or https:// URL, got {text:?}")),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// With `/v1` appended unless it already ends with it: what an
    /// OpenAI-compatible API's paths are relative to.
    pub fn with_version_path(&self) -> String {
        if self.0.ends_with("/v1") {
            self.0.clone()
        } else {
            format!("{}/v1", self.0)
        }
    }
}

impl<'de> Deserialize<'de> for HttpUrl {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(TextVisitor(HttpUrl::parse))
    }
}

/// Text checked by `check` as it is read, so that an error points at the value.
pub fn checked_text<'de, D, T>(
    deserializer: D,
    check: impl FnOnce(&str) -> Result<T, String>,
) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
{
    deserializer.deserialize_str(TextVisitor(check))
}

/// Checks text as it is read, so that an error points at the value.
struct TextVisitor<F>(F);

impl<'de, T, F: FnOnce(&str) -> Result<T, String>> Visitor<'de> for TextVisitor<F> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("text")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<T, E> {
        (self.0)(text).map_err(E::custom)
    }
}

/// Text that must not be blank; surrounding spaces are dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NonEmpty(pub String);

impl<'de> Deserialize<'de> for NonEmpty {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(TextVisitor(|text: &str| match text.trim() {
            "" => Err("must not be empty".to_owned()),
            trimmed => Ok(NonEmpty(trimmed.to_owned())),
        }))
    }
}

/// Settings that were read but not as written: each becomes one line on stderr.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Warnings(pub Vec<String>);

impl Warnings {
    pub fn push(&mut self, key: &str, message: impl fmt::Display) {
        self.0.push(format!("{key}: {message}"));
    }

    /// The value of `scalar`, warning when it was written as text.
    pub fn take<T: fmt::Display + Clone>(&mut self, key: &str, scalar: Scalar<T>) -> T {
        if let Some(text) = &scalar.written_as_text {
            self.push(
                key,
                format!("{text:?} is text; read as {}", scalar.value.clone()),
            );
        }
        scalar.value
    }
}

impl fmt::Display for Seconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.as_secs_f64())
    }
}

impl<const MIN: u64, const MAX: u64> fmt::Display for Count<MIN, MAX> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn read<T: FromScalar>(yaml: &str) -> Result<Scalar<T>, String> {
        serde_yaml_ng::from_str(yaml).map_err(|err| err.to_string())
    }

    #[test]
    fn numbers_and_booleans_may_be_written_as_text() {
        let workers = read::<Count<1, 8>>("\"3\"").unwrap();
        assert_eq!(
            (workers.value, workers.written_as_text),
            (Count(3), Some("3".into()))
        );
        let enabled = read::<bool>("'false'").unwrap();
        assert_eq!(enabled.value, false);
        assert_eq!(
            read::<Seconds>("2.5").unwrap().value,
            Seconds(Duration::from_millis(2500))
        );
    }

    #[test]
    fn extreme_values_are_errors_that_give_the_range() {
        let cases = [
            "18446744073709551615",
            "1e300",
            "-1",
            "0",
            "1.5",
            ".nan",
            ".inf",
            "-.inf",
            "99999999999999999999999",
            "\"1e19\"",
        ];
        for yaml in cases {
            let err = read::<Count<1, 256>>(yaml).unwrap_err();
            assert!(
                err.starts_with("expected a whole number from 1 to 256, got"),
                "{yaml}: {err}"
            );
        }
        for yaml in [
            "1e300",
            "0",
            "-5",
            ".nan",
            ".inf",
            "1e19",
            "\"86401\"",
            "true",
        ] {
            let err = read::<Seconds>(yaml).unwrap_err();
            assert!(
                err.contains("a number of seconds above 0 and at most 86400"),
                "{yaml}: {err}"
            );
        }
    }

    #[test]
    fn urls_must_be_http_with_a_host() {
        assert_eq!(
            HttpUrl::parse("https://api.example.com/").map(|url| url.with_version_path()),
            Ok("https://api.example.com/v1".to_owned())
        );
        for bad in ["localhost:11434", "ftp://h", "http://", "https:///path"] {
            assert!(HttpUrl::parse(bad).is_err(), "{bad}");
        }
    }
}
