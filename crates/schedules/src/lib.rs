//! When a schedule runs: a five-field cron expression read in an IANA time
//! zone.
//!
//! [`Cadence::parse`] checks a cron expression (`minute hour day month
//! weekday`) and a zone name (default: the machine's, [`machine_zone`]);
//! [`Cadence::next_after`] is the first run after an instant, and
//! [`Cadence::missed`] the runs between two instants, at most a given number
//! ([`Missed`] says when there were more). Every instant is a parameter: the
//! caller owns the clock, so tests compute across a daylight-saving change
//! rather than wait for one.
//!
//! Cron matching, with daylight-saving gaps and overlaps, is croner's; zones
//! are chrono-tz's copy of the IANA database. A wall-clock time that a gap
//! skips runs once, at the first minute after the gap; one that an overlap
//! repeats runs once, at its first pass.
//!
//! Left to the caller: what a schedule runs, storing runs, and waiting.

use std::str::FromStr;

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use croner::Cron;
use croner::parser::{CronParser, Seconds};

#[cfg(test)]
mod tests;

/// The most runs [`Cadence::missed`] looks through when asked for more:
/// a minute-by-minute schedule stopped for a week is 10,080 ticks.
pub const MAX_MISSED: usize = 1000;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("cron {cron:?}: {why}")]
    BadCron { cron: String, why: String },
    #[error("time zone {zone:?} is not an IANA time zone name (such as \"Europe/Berlin\")")]
    UnknownZone { zone: String },
}

/// A parsed cron expression and the zone its wall-clock times are read in.
#[derive(Debug, Clone)]
pub struct Cadence {
    cron: Cron,
    /// As written, trimmed.
    expression: String,
    zone: Tz,
}

/// The runs between two instants, oldest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Missed {
    pub ticks: Vec<DateTime<Utc>>,
    /// There were more after the last of `ticks` than the cap allowed.
    pub capped: bool,
}

impl Cadence {
    /// `cron` must be five fields; `zone` an IANA name, `None` for the
    /// machine's.
    pub fn parse(cron: &str, zone: Option<&str>) -> Result<Cadence, Error> {
        let expression = cron.split_whitespace().collect::<Vec<_>>().join(" ");
        let bad = |why: String| Error::BadCron {
            cron: cron.to_owned(),
            why,
        };
        let fields = expression
            .split(' ')
            .filter(|field| !field.is_empty())
            .count();
        if fields != 5 {
            return Err(bad(format!(
                "{fields} fields; a schedule takes five (minute hour day month weekday), as in \"0 20 * * 0\""
            )));
        }
        let parser = CronParser::builder().seconds(Seconds::Disallowed).build();
        let cron = parser
            .parse(&expression)
            .map_err(|err| bad(field_at_fault(&parser, &expression, &err.to_string())))?;
        let zone = parse_zone(zone)?;
        Ok(Cadence {
            cron,
            expression,
            zone,
        })
    }

    /// The expression, its fields separated by one space.
    pub fn expression(&self) -> &str {
        &self.expression
    }

    /// The zone's IANA name.
    pub fn zone(&self) -> Tz {
        self.zone
    }

    /// The first run strictly after `after`; `None` when the expression
    /// never matches again (`0 0 30 2 *`).
    pub fn next_after(&self, after: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let local = after.with_timezone(&self.zone);
        self.cron
            .find_next_occurrence(&local, /*inclusive*/ false)
            .ok()
            .map(|next| next.with_timezone(&Utc))
    }

    /// The runs after `from` up to and including `to`, at most `cap` (and
    /// never more than [`MAX_MISSED`]).
    pub fn missed(&self, from: DateTime<Utc>, to: DateTime<Utc>, cap: usize) -> Missed {
        let cap = cap.min(MAX_MISSED);
        let mut ticks = Vec::new();
        let mut at = from;
        while let Some(next) = self.next_after(at).filter(|next| *next <= to) {
            if ticks.len() == cap {
                return Missed {
                    ticks,
                    capped: true,
                };
            }
            ticks.push(next);
            at = next;
        }
        Missed {
            ticks,
            capped: false,
        }
    }
}

/// An IANA zone name; `None` (or blank) for the machine's zone.
pub fn parse_zone(zone: Option<&str>) -> Result<Tz, Error> {
    match zone.map(str::trim) {
        None | Some("") => Ok(machine_zone()),
        Some(name) => Tz::from_str(name).map_err(|_| Error::UnknownZone {
            zone: name.to_owned(),
        }),
    }
}

/// The machine's time zone (`TZ`, else the system's setting); UTC when it
/// can't be told or isn't an IANA name.
pub fn machine_zone() -> Tz {
    let from_env = std::env::var("TZ")
        .ok()
        .map(|tz| tz.trim_start_matches(':').to_owned());
    from_env
        .and_then(|name| Tz::from_str(&name).ok())
        .or_else(|| {
            iana_time_zone::get_timezone()
                .ok()
                .and_then(|name| Tz::from_str(&name).ok())
        })
        .unwrap_or(Tz::UTC)
}

/// The names of the five fields, in order.
const FIELDS: [&str; 5] = ["minute", "hour", "day", "month", "weekday"];

/// Croner's error names no field: each is tried alone, the others `*`, so
/// that the message says which one is wrong.
fn field_at_fault(parser: &CronParser, expression: &str, error: &str) -> String {
    let fields: Vec<&str> = expression.split(' ').collect();
    let alone = |index: usize| {
        let mut pattern = ["*"; 5];
        pattern[index] = fields[index];
        parser.parse(&pattern.join(" ")).is_err()
    };
    let why = lowercase_first(error);
    match (0..FIELDS.len()).find(|&index| alone(index)) {
        Some(index) => format!("{} {:?}: {why}", FIELDS[index], fields[index]),
        None => why,
    }
}

fn lowercase_first(text: &str) -> String {
    let text = text.trim_end_matches('.');
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}
