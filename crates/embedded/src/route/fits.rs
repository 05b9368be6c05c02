//! Values a message writes that only some tools take: a day for a tool
//! with a date parameter, a measure in the unit a parameter asks for ("2
//! kg" for `min_weight_kg`), a record's number for a tool that takes a
//! record ("batch 12" for `batch_id`, "#412", "SR-50177"). Each kind a
//! tool takes and the message writes is evidence the message is about
//! that tool, whatever words it uses for the tool's subject ("Saw 3
//! goldfinches … this morning" for `record_sighting`).

use chrono::NaiveDate;
use riverse_route::{CodePattern, measures_for, names_record, takes_identifier};
use riverse_tool::ToolManifest;

use crate::route::dates::{iso_date, wants_iso_date};
use crate::route::days::named_days;

/// The kinds of value one tool's parameters take.
#[derive(Debug, Clone, Default)]
pub(crate) struct Takes {
    /// A parameter asks for a date.
    day: bool,
    /// Parameters' names and descriptions, for their units.
    measured: Vec<(String, String)>,
    /// The words of the names of parameters that take a record's
    /// identifier (`batch` of `batch_id`), lowercase; empty when none does.
    record_words: Vec<String>,
    /// Some parameter takes a record's identifier.
    record: bool,
    /// The patterns of the example codes its identifier parameters give
    /// ("quote reference, e.g. RQ-12345").
    code_patterns: Vec<CodePattern>,
}

impl Takes {
    pub fn of(tool: &ToolManifest) -> Self {
        let day = tool.parameters.iter().any(|(name, description)| {
            wants_iso_date(description) || name.to_lowercase().contains("date")
        });
        let measured = tool
            .parameters
            .iter()
            .map(|(name, description)| (name.clone(), description.clone()))
            .collect();
        let records: Vec<&String> = tool
            .parameters
            .iter()
            .filter(|(name, description)| takes_identifier(name, description))
            .map(|(name, _)| name)
            .collect();
        let record_words = records
            .iter()
            .flat_map(|name| {
                name.to_lowercase()
                    .split(['_', '-'])
                    .filter(|word| word.len() >= 3 && !["number", "ref"].contains(word))
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            })
            .collect();
        let code_patterns = tool
            .parameters
            .iter()
            .filter(|(name, description)| takes_identifier(name, description))
            .flat_map(|(_, description)| CodePattern::examples_in(description))
            .collect();
        Takes {
            day,
            measured,
            record_words,
            record: !records.is_empty(),
            code_patterns,
        }
    }

    /// Whether some parameter takes a record's identifier (see
    /// [`riverse_route::takes_record`]).
    pub fn takes_record(&self) -> bool {
        self.record
    }

    /// Whether `message` writes a code the way an identifier parameter's
    /// example does ("RQ-19977" for "e.g. RQ-12345"): it names one of this
    /// tool's records.
    pub fn writes_own_code(&self, message: &str) -> bool {
        self.code_patterns
            .iter()
            .any(|pattern| pattern.written_in(message))
    }

    /// How many kinds of value this tool takes that `written` writes.
    pub fn fits(&self, written: &Written) -> u32 {
        let day = self.day && written.day;
        let measure = self
            .measured
            .iter()
            .any(|(name, description)| measures_for(&written.message, name, description));
        let record = self.record
            && (written.record
                || self
                    .record_words
                    .iter()
                    .any(|word| written.numbered.iter().any(|noun| noun == word)));
        [day, measure, record].into_iter().map(u32::from).sum()
    }
}

/// The kinds of value a message writes.
#[derive(Debug, Clone)]
pub(crate) struct Written {
    message: String,
    /// It names a day ("yesterday", "Dec 12", 明天).
    day: bool,
    /// It writes a record's identifier ("SR-50177", "#412", "4471").
    record: bool,
    /// The words it writes a number right after ("batch" of "batch 12"),
    /// lowercase.
    numbered: Vec<String>,
}

impl Written {
    pub fn of(message: &str, today: NaiveDate) -> Self {
        let day = !named_days(message, today, false).is_empty() || iso_date(message).is_some();
        let hashed = message.split_whitespace().any(|token| {
            token
                .strip_prefix('#')
                .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
        });
        let words: Vec<&str> = message
            .split(|c: char| c.is_whitespace() || ",;:".contains(c))
            .filter(|word| !word.is_empty())
            .collect();
        let numbered = words
            .windows(2)
            .filter(|pair| {
                pair[1]
                    .trim_start_matches('#')
                    .starts_with(|c: char| c.is_ascii_digit())
            })
            .map(|pair| pair[0].to_lowercase())
            .collect();
        Written {
            message: message.to_owned(),
            day,
            record: names_record(message) || hashed,
            numbered,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_tools::tool;

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 12, 5).expect("a day")
    }

    #[test]
    fn a_day_a_measure_and_a_record_number_each_fit_the_tool_that_takes_them() {
        let catches = tool(
            "search_catches",
            "Searches the club's catches.",
            &[
                ("water", "Water name"),
                ("min_weight_kg", "optional; smallest weight"),
                ("date", "Day caught, YYYY-MM-DD"),
            ],
        );
        let takes = Takes::of(&catches);
        let written = Written::of("any tench over 2 kg at Kingfisher Lake yesterday?", today());
        assert_eq!(takes.fits(&written), 2);
        let batch = Takes::of(&tool(
            "update_batch",
            "Updates a batch.",
            &[("batch_id", "The batch's number")],
        ));
        assert_eq!(
            batch.fits(&Written::of("Batch 12 is bottled now", today())),
            1
        );
        assert_eq!(batch.fits(&Written::of("what's fermenting?", today())), 0);
    }

    #[test]
    fn a_value_of_another_kind_fits_nothing() {
        let takes = Takes::of(&tool(
            "book",
            "Books a slot.",
            &[("duration_minutes", "Length in minutes")],
        ));
        assert_eq!(takes.fits(&Written::of("a 6.2kg carp", today())), 0);
        assert_eq!(takes.fits(&Written::of("for 2 hours", today())), 1);
    }
}
