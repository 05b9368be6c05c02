//! Choosing the string parameters' values together: each parameter gets one
//! candidate span, no span serves two parameters, and the assignment with
//! the best total score wins. Filled one after another, the first parameter
//! takes whatever fits it best, even what fits the next one better ("call
//! mom at 6pm" as the text leaves the time nothing). [`assign_strings`]
//! scores every candidate for every parameter (the model's likelihood and
//! the candidate's fit to the parameter's words), [`best_assignment`]
//! chooses.

use std::ops::Range;

use riverse_route::{
    Candidate, CodePattern, Fit, IdentifierKind, MessageSpans, ParamAffinity, Shape, SlotWords,
    answers, holds_cjk_time, identifier_kind, is_record_code, may_name_a_person_as,
    may_take_own_name, number_before_name, param_options, postcodes, self_named, snap_to_option,
    takes_person_name, takes_senders_name, wants_language, written_as_year,
};
use riverse_tool::{Kind, ToolManifest};

use crate::error::Result;
use crate::inference::engine::{Engine, State};
use crate::route::date_parts::{day_of_named_month, number_of_cjk_date};
use crate::route::dates::{may_write_a_date, wants_iso_date};
use crate::route::fill::{CLOSE, declared, param_name, speaks_of_time};
use crate::route::forms::{inside_token, opens_with_request_verb, written_as_described};
use crate::route::values::{ValueTokens, overlaps};
use crate::route::written::only_a_unit_or_flag;
use crate::tuning::{
    CLOSE_WEIGHT, COVERAGE_BONUS, JOINT_ORDER_PENALTY, NULL_PENALTY, ORDER_PENALTY,
    PARAM_SIMILARITY_WEIGHT, SHAPE_FIT_BONUS, SKIP_PENALTY,
};

/// The best assignment of `spans` to parameters: `scores[p][c]` is how well
/// candidate `c` (whose message bytes are `spans[c]`) fits parameter `p`,
/// `nulls[p]` how well `null` does (`None` in the result);
/// `order_penalty` is subtracted for each pair of parameters whose values
/// lie in the opposite order of their declaration.
pub(crate) fn best_assignment(
    scores: &[Vec<f32>],
    nulls: &[f32],
    spans: &[Range<usize>],
    order_penalty: f32,
) -> Vec<Option<usize>> {
    let mut search = Search {
        scores,
        nulls,
        spans,
        order_penalty,
        best_rest: best_rest(scores, nulls),
        chosen: Vec::new(),
        best: None,
    };
    search.run(0.0);
    search
        .best
        .map(|(_, chosen)| chosen)
        .unwrap_or_else(|| vec![None; scores.len()])
}

/// `best_rest[p]`: the most parameters `p..` could add, an upper bound that
/// lets the search skip branches that cannot win.
fn best_rest(scores: &[Vec<f32>], nulls: &[f32]) -> Vec<f32> {
    let mut rest = vec![0.0; scores.len() + 1];
    for p in (0..scores.len()).rev() {
        let best = scores[p].iter().copied().fold(nulls[p], f32::max);
        rest[p] = rest[p + 1] + best;
    }
    rest
}

struct Search<'a> {
    scores: &'a [Vec<f32>],
    nulls: &'a [f32],
    spans: &'a [Range<usize>],
    order_penalty: f32,
    best_rest: Vec<f32>,
    chosen: Vec<Option<usize>>,
    best: Option<(f32, Vec<Option<usize>>)>,
}

impl Search<'_> {
    fn run(&mut self, total: f32) {
        let param = self.chosen.len();
        if self
            .best
            .as_ref()
            .is_some_and(|(best, _)| total + self.best_rest[param] <= *best)
        {
            return;
        }
        if param == self.scores.len() {
            self.best = Some((total, self.chosen.clone()));
            return;
        }
        let mut order: Vec<usize> = (0..self.scores[param].len()).collect();
        order.sort_by(|&a, &b| self.scores[param][b].total_cmp(&self.scores[param][a]));
        for candidate in order {
            if self.clashes(candidate) {
                continue;
            }
            let gain = self.scores[param][candidate] - self.order_cost(candidate);
            self.chosen.push(Some(candidate));
            self.run(total + gain);
            self.chosen.pop();
        }
        self.chosen.push(None);
        self.run(total + self.nulls[param]);
        self.chosen.pop();
    }

    fn clashes(&self, candidate: usize) -> bool {
        let span = &self.spans[candidate];
        self.chosen
            .iter()
            .flatten()
            .any(|&other| overlaps(span, &self.spans[other]))
    }

    /// The order penalty of placing `candidate` after the values chosen
    /// for earlier parameters.
    fn order_cost(&self, candidate: usize) -> f32 {
        let start = self.spans[candidate].start;
        let swapped = self
            .chosen
            .iter()
            .flatten()
            .filter(|&&other| self.spans[other].start > start)
            .count();
        swapped as f32 * self.order_penalty
    }
}

/// The string parameters to fill, and where they are asked for.
pub(super) struct StringSlots<'a> {
    /// Their indices in the manifest.
    pub(super) strings: &'a [usize],
    /// Whether each is declared a list.
    pub(super) lists: &'a [bool],
    /// The state before their keys: the prompt and the object's numbers.
    pub(super) before: &'a State,
    /// Each one's key, as tokens.
    pub(super) keys: &'a [Vec<u32>],
    /// The last number value's bytes, if any.
    pub(super) anchor: Option<Range<usize>>,
}

/// For each string parameter of `slots`, the index of its value in `found`,
/// or `None` for `null`.
///
/// A value's score is the model's log-probability of the whole
/// continuation after the key (` "`, the value, `"}`), plus its fit to the
/// parameter's description and the content it covers; `null`'s is the
/// log-probability of ` null}`.
pub(super) fn assign_strings(
    engine: &Engine,
    tokens: &ValueTokens,
    tool: &ToolManifest,
    slots: &StringSlots<'_>,
    found: &[Candidate],
    enumerated: &[bool],
    spans: &MessageSpans<'_>,
) -> Result<Vec<Option<usize>>> {
    let StringSlots {
        strings,
        lists,
        before,
        keys,
        anchor,
    } = slots;
    let close = engine.tokenizer.encode(CLOSE)?;
    let values: Vec<Vec<u32>> = found
        .iter()
        .map(|candidate| engine.tokenizer.encode(&candidate.value))
        .collect::<Result<_>>()?;
    // Every option of every parameter after its key, in one token tree:
    // `null`, then each value opened, then each value opened and closed.
    let mut sequences = Vec::with_capacity(keys.len() * (1 + 2 * values.len()));
    for key in *keys {
        sequences.push([key.as_slice(), &tokens.null_closed].concat());
        let opened = [key.as_slice(), &tokens.open_string].concat();
        sequences.extend(
            values
                .iter()
                .map(|value| [opened.as_slice(), value].concat()),
        );
        sequences.extend(
            values
                .iter()
                .map(|value| [opened.as_slice(), value, &close].concat()),
        );
    }
    let all = engine.score_many(before, &sequences)?;
    let affinity = ParamAffinity::new(tool);
    let fits: Vec<Vec<Fit>> = found
        .iter()
        .map(|candidate| affinity.fits(candidate))
        .collect();
    let coverage: Vec<f32> = found
        .iter()
        .map(|candidate| COVERAGE_BONUS * spans.content_units(candidate.bytes.clone()))
        .collect();
    let weight = CLOSE_WEIGHT;
    let codes = CodeFits::of(tool, found);
    let slot_words = SlotWords::of(tool);
    let whole = WholeSpans::of(spans.text);
    // Only a list takes an enumeration, whole or as its text ("flour and
    // yeast" is items, not a list's name).
    let only_lists = only_for_lists(found, enumerated);
    let mut scores: Vec<Vec<f32>> = Vec::with_capacity(strings.len());
    let mut nulls = Vec::with_capacity(strings.len());
    for ((&index, &list), options) in strings
        .iter()
        .zip(lists.iter())
        .zip(all.chunks(1 + 2 * found.len()))
    {
        let (null, values) = options.split_at(1);
        let (copied, closed) = values.split_at(found.len());
        nulls.push(null[0] - NULL_PENALTY);
        scores.push(
            copied
                .iter()
                .zip(closed)
                .zip(&fits)
                .zip(&coverage)
                .zip(&only_lists)
                .zip(found)
                .map(
                    |(((((copied, closed), fits), coverage), &only_list), candidate)| {
                        if only_list && !list {
                            return f32::NEG_INFINITY;
                        }
                        if !may_take(tool, &slot_words, index, candidate, spans, &whole) {
                            return f32::NEG_INFINITY;
                        }
                        let fit = fits[index];
                        let (own_code, sibling_code) = codes.fit(index, candidate);
                        let shape = if fit.shape || own_code {
                            SHAPE_FIT_BONUS
                        } else if fit.sibling_shape || sibling_code {
                            -SHAPE_FIT_BONUS
                        } else {
                            0.0
                        };
                        copied
                            + weight * (closed - copied)
                            + PARAM_SIMILARITY_WEIGHT * fit.similarity
                            + shape
                            + coverage
                    },
                )
                .collect(),
        );
    }
    if let (Some(anchor), Some(first)) = (anchor.as_ref(), scores.first_mut()) {
        for (score, candidate) in first.iter_mut().zip(found) {
            *score -= after_number_penalty(spans, anchor, &candidate.bytes);
        }
    }
    let spans: Vec<Range<usize>> = found.iter().map(|c| c.bytes.clone()).collect();
    Ok(best_assignment(
        &scores,
        &nulls,
        &spans,
        JOINT_ORDER_PENALTY,
    ))
}

/// Whether the parameter at `index` may take `candidate`: a value answers
/// what its parameter means (no time for a place, no word naming a slot),
/// is written the way its description says, and is neither the request's
/// opening verb nor a piece of a longer token or of a postcode. A record's
/// code is no option, and a clock time ("7:30pm") or a Chinese or Japanese
/// span run on into a time (苗床过去) is no value of a parameter about
/// anything but time, nor is an email address of any parameter but the
/// one for it, nor the day of a month named beside it ("20" of
/// "Dec 20") or a number a CJK date's unit follows ("2027" of 2027年3月1日).
/// A person's name is one (see [`may_name_a_person_as`] and [`WholeSpans`]).
fn may_take(
    tool: &ToolManifest,
    slot_words: &SlotWords,
    index: usize,
    candidate: &Candidate,
    spans: &MessageSpans<'_>,
    whole: &WholeSpans,
) -> bool {
    let name = param_name(tool, index);
    let description = tool.parameters.get(name).map_or("", String::as_str);
    // A street's number, a postcode or a year: no identifier.
    let number_of_a_name = identifier_kind(name, description).is_some()
        && (number_before_name(spans.text, &candidate.bytes)
            || written_as_year(spans.text, &candidate.bytes));
    answers(tool, slot_words, name, &candidate.value)
        && !address_for_another(tool, name, description, candidate)
        && written_as_described(description, &candidate.value)
        && !opens_with_request_verb(spans.text, candidate.bytes.start)
        && !inside_token(spans.text, &candidate.bytes)
        && !whole.cut_postcode(&candidate.bytes)
        && !only_a_unit_or_flag(tool, name, &candidate.value)
        && !number_of_a_name
        && !code_for_options(tool, name, &candidate.value)
        && (!takes_person_name(name, description)
            || may_name_a_person_as(name, &candidate.value, spans.text))
        && whole.fits_own_name(name, description, candidate, spans.text)
        && (!holds_cjk_time(&candidate.value) && candidate.shape != Some(Shape::ClockTime)
            || speaks_of_time(name, description)
            || writes_content(name))
        && (!wants_iso_date(description) || may_write_a_date(description, &candidate.value))
        && (speaks_of_time(name, description)
            || !day_of_named_month(spans.text, &candidate.bytes)
                && !number_of_cjk_date(spans.text, &candidate.bytes))
}

/// Whether `candidate` is an email address and the tool has a parameter
/// for one other than `name`: the address is that parameter's, not a
/// message's or a note's.
fn address_for_another(
    tool: &ToolManifest,
    name: &str,
    description: &str,
    candidate: &Candidate,
) -> bool {
    let is_email = |name: &str, description: &str| {
        identifier_kind(name, description) == Some(IdentifierKind::Email)
    };
    candidate.shape == Some(Shape::Email)
        && !is_email(name, description)
        && tool
            .parameters
            .iter()
            .any(|(other, meaning)| other != name && is_email(other, meaning))
}

/// Which parameters give an example code or a format a candidate is
/// written as ("foi-2026-0433" for "request reference, format
/// FOI-YYYY-NNNN"): a shape of their own, as an email is.
struct CodeFits {
    /// Each parameter's example patterns, in the tool's order.
    patterns: Vec<Vec<CodePattern>>,
}

impl CodeFits {
    fn of(tool: &ToolManifest, found: &[Candidate]) -> Self {
        let coded = found
            .iter()
            .any(|candidate| CodePattern::of(&candidate.value).is_some());
        let patterns = tool
            .parameters
            .values()
            .map(|description| match coded {
                true => CodePattern::examples_in(description),
                false => Vec::new(),
            })
            .collect();
        CodeFits { patterns }
    }

    /// Whether `candidate` is written as an example of parameter `index`,
    /// and whether it is written as another parameter's and not this one's.
    fn fit(&self, index: usize, candidate: &Candidate) -> (bool, bool) {
        let Some(written) = CodePattern::of(&candidate.value) else {
            return (false, false);
        };
        let fits = |patterns: &Vec<CodePattern>| patterns.contains(&written);
        let own = self.patterns.get(index).is_some_and(fits);
        let sibling = self
            .patterns
            .iter()
            .enumerate()
            .any(|(other, patterns)| other != index && fits(patterns));
        (own, sibling && !own)
    }
}

/// The spans of a message that are each one value: the writer's own
/// name and its postcodes. Found once per fill; no piece of one is a value.
struct WholeSpans {
    own_name: Option<Range<usize>>,
    postcodes: Vec<Range<usize>>,
}

impl WholeSpans {
    fn of(message: &str) -> Self {
        WholeSpans {
            own_name: self_named(message),
            postcodes: postcodes(message),
        }
    }

    /// Whether `bytes` hold part of a postcode and not all of it ("1DD"
    /// of "OX4 1DD").
    fn cut_postcode(&self, bytes: &Range<usize>) -> bool {
        self.postcodes.iter().any(|postcode| {
            let overlaps = bytes.start < postcode.end && postcode.start < bytes.end;
            let holds = bytes.start <= postcode.start && postcode.end <= bytes.end;
            overlaps && !holds
        })
    }

    /// Whether `candidate` fits parameter `name` as far as the writer's
    /// own name goes: the name they sign or introduce themselves with is
    /// no value of a parameter for someone else's name, and no piece of it
    /// is any value ("Lindqvist" of "I'm Sarah Lindqvist"); the value of a
    /// parameter for the asker's name (`member_name`) is that name when the
    /// message gives it.
    fn fits_own_name(
        &self,
        name: &str,
        description: &str,
        candidate: &Candidate,
        message: &str,
    ) -> bool {
        let Some(own) = &self.own_name else {
            return true;
        };
        let is_own = candidate.value == message[own.clone()].trim();
        let inside = own.start <= candidate.bytes.start && candidate.bytes.end <= own.end;
        match is_own {
            true => may_take_own_name(name, description),
            false => !inside && !takes_senders_name(name, description),
        }
    }
}

/// Words of a parameter's name that say it takes what is written or said,
/// which may speak of any time ("会议改到下午三点" is a message's text).
const CONTENT_WORDS: [&str; 10] = [
    "message",
    "text",
    "body",
    "content",
    "note",
    "notes",
    "comment",
    "description",
    "details",
    "summary",
];

/// Whether parameter `name` takes what is written or said.
fn writes_content(name: &str) -> bool {
    name.to_lowercase()
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|word| CONTENT_WORDS.contains(&word))
}

/// Whether a record's code is no value of parameter `name` for naming
/// none of its options: "S-009912" is no `priority` of routine or urgent,
/// and is left for the sample's id (an option is read from the whole
/// message when the model gives none). A list's items and a language are
/// read their own ways.
fn code_for_options(tool: &ToolManifest, name: &str, value: &str) -> bool {
    let options = param_options(tool, name);
    let description = tool.parameters.get(name).map_or("", String::as_str);
    !options.is_empty()
        && declared(tool, name) != Some(Kind::List)
        && !wants_language(name, description)
        && is_record_code(value)
        && snap_to_option(value, "", &options).is_none()
}

/// Per candidate, whether only a list may take it: an enumeration, or a
/// span with an enumeration's text.
fn only_for_lists(found: &[Candidate], enumerated: &[bool]) -> Vec<bool> {
    let enumeration_text: Vec<&Range<usize>> = found
        .iter()
        .zip(enumerated)
        .filter(|(_, enumeration)| **enumeration)
        .map(|(candidate, _)| &candidate.bytes)
        .collect();
    found
        .iter()
        .map(|candidate| enumeration_text.contains(&&candidate.bytes))
        .collect()
}

/// The order prior of the first string value after a number value (`3
/// meters`: the unit after the number is the one it is in): the content it
/// skips after the number, at [`SKIP_PENALTY`] a unit, up to
/// [`ORDER_PENALTY`], which a value before the number pays.
fn after_number_penalty(
    spans: &MessageSpans<'_>,
    number: &Range<usize>,
    value: &Range<usize>,
) -> f32 {
    if value.start < number.start {
        return ORDER_PENALTY;
    }
    let skipped = spans.content_units(number.end..value.start.max(number.end));
    (skipped * SKIP_PENALTY).min(ORDER_PENALTY)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_parameter_gets_the_value_that_fits_it_best_overall() {
        // "call mom at 6pm": "call mom at 6pm" whole fits the text best
        // alone, but leaves the time nothing.
        let spans = [0..15, 0..8, 12..15];
        let scores = vec![vec![-2.0, -3.0, -9.0], vec![-20.0, -12.0, -1.0]];
        assert_eq!(
            best_assignment(&scores, &[-50.0; 2], &spans, 0.0),
            [Some(1), Some(2)]
        );
    }

    #[test]
    fn a_code_written_as_a_parameters_example_fits_that_parameter() {
        let withdraw = crate::test_tools::tool(
            "withdraw_request",
            "Withdraws a request.",
            &[
                ("reference", "request reference, format FOI-YYYY-NNNN"),
                ("reason", "optional; reason for withdrawing"),
            ],
        );
        let code = Candidate {
            value: "foi-2026-0433".to_owned(),
            bytes: 9..22,
            shape: None,
        };
        let codes = CodeFits::of(&withdraw, std::slice::from_ref(&code));
        assert_eq!(codes.fit(0, &code), (true, false));
        assert_eq!(codes.fit(1, &code), (false, true));
        let word = Candidate {
            value: "moving".to_owned(),
            bytes: 0..6,
            shape: None,
        };
        assert_eq!(codes.fit(0, &word), (false, false));
    }

    #[test]
    fn null_wins_over_values_that_fit_worse() {
        let spans = [0..4, 5..9];
        let scores = vec![vec![-3.0, -8.0], vec![-9.0, -7.0]];
        assert_eq!(
            best_assignment(&scores, &[-5.0, -5.0], &spans, 0.0),
            [Some(0), None]
        );
        assert_eq!(best_assignment(&[vec![]], &[-5.0], &[], 0.0), [None]);
    }

    #[test]
    fn no_span_serves_two_parameters() {
        let spans = [0..4, 5..9];
        let scores = vec![vec![-1.0, -5.0], vec![-1.0, -6.0]];
        let nulls = [-50.0; 2];
        assert_eq!(
            best_assignment(&scores, &nulls, &spans, 0.0),
            [Some(1), Some(0)]
        );
        let overlapping = [0..4, 2..6];
        let chosen = best_assignment(&scores, &nulls, &overlapping, 0.0);
        assert!(chosen.contains(&None), "{chosen:?}");
        let one = vec![vec![-1.0], vec![-1.0]];
        assert_eq!(
            best_assignment(&one, &nulls, std::slice::from_ref(&(0..4)), 0.0)[1],
            None,
            "one span"
        );
    }

    #[test]
    fn values_in_declaration_order_win_a_close_call() {
        let spans = [0..2, 5..7];
        let scores = vec![vec![-1.0, -1.5], vec![-1.5, -1.0]];
        let nulls = [-50.0; 2];
        assert_eq!(
            best_assignment(&scores, &nulls, &spans, 3.0),
            [Some(0), Some(1)]
        );
        let scores = vec![vec![-1.5, -1.0], vec![-1.0, -1.5]];
        assert_eq!(
            best_assignment(&scores, &nulls, &spans, 3.0),
            [Some(0), Some(1)]
        );
        assert_eq!(
            best_assignment(&scores, &nulls, &spans, 0.0),
            [Some(1), Some(0)]
        );
    }

    #[test]
    fn the_search_agrees_with_trying_everything() {
        // Three parameters over five overlapping spans, many score tables.
        let spans = [0..3, 2..5, 5..8, 8..9, 1..9];
        let mut seed = 11u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            -((seed >> 40) as f32 / (1u64 << 20) as f32)
        };
        for _ in 0..200 {
            let scores: Vec<Vec<f32>> = (0..3).map(|_| (0..5).map(|_| next()).collect()).collect();
            let found = best_assignment(&scores, &[-1.0e4; 3], &spans, 1.5);
            let total = |chosen: &[Option<usize>]| {
                let mut sum = 0.0;
                for (p, c) in chosen.iter().enumerate() {
                    let Some(c) = c else { return f32::NEG_INFINITY };
                    sum += scores[p][*c];
                    for (q, d) in chosen[..p].iter().enumerate() {
                        let d = d.unwrap();
                        if overlaps(&spans[*c], &spans[d]) {
                            return f32::NEG_INFINITY;
                        }
                        if spans[d].start > spans[*c].start {
                            sum -= 1.5;
                        }
                        let _ = q;
                    }
                }
                sum
            };
            let mut best = f32::NEG_INFINITY;
            for a in 0..5 {
                for b in 0..5 {
                    for c in 0..5 {
                        best = best.max(total(&[Some(a), Some(b), Some(c)]));
                    }
                }
            }
            assert!((total(&found) - best).abs() < 1e-4, "{found:?}");
        }
    }
}
