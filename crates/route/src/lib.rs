//! The text rules of the embedded model's routing, as pure functions over a
//! message and the tools' manifests: no model, no I/O.
//!
//! - [`Boundaries::of`]: where a parameter value copied from a message may
//!   start and end, and what it may never contain (Japanese particles,
//!   honorifics and te-form verbs, quotation brackets, possessives).
//! - [`numbers`]: the numbers a message writes, full-width digits included.
//! - [`MessageSpans`]: both, with the words that carry no value of their own
//!   (prepositions, function words, the tool's own action words).
//! - [`candidates`]: the spans of a message that may be a string value,
//!   with tokens of a distinctive shape ([`shaped_tokens`]) whole and words
//!   that name the tool ([`Triggers`]) and Japanese predicates left out.
//! - [`implied_flag`]: the boolean a message implies for a parameter it
//!   speaks of.
//! - [`enumerations`]: candidates joined into lists ("coffee and oat
//!   milk"), the values of a list parameter.
//! - [`ParamAffinity`]: how well a candidate fits each parameter's
//!   description and the shapes of its examples.
//! - [`extend_expression`] and [`is_whole_request`]: what makes an arithmetic
//!   expression whole, and a span that is the whole request.
//! - [`param_options`], [`snap_to_option`] and [`options_named`]: the
//!   options a string parameter takes, the one a copied value names, and
//!   those a list's items name in their own words.
//! - [`as_clock_time`] and [`labelled_number`]: a time written as the
//!   `HH:MM` a parameter asks for, and a number its description labels
//!   with a word ("1 (urgent) to 4 (low)") named by that word;
//!   [`clock_times_in`]: every clock time of a message, those said in
//!   words among them ([`spoken_clock_times`]: "ten in the morning").
//! - [`opens_street_address`]: a number that is a house number ("12 Elm
//!   Street"), no quantity.
//! - [`CodePattern`]: a record's code written the way a parameter's
//!   example or format is ("RQ-19977" for "e.g. RQ-12345",
//!   "foi-2026-0433" for "format FOI-YYYY-NNNN").
//! - [`currency_mentions`]: the currencies a message names, as the ISO
//!   4217 codes a parameter asks for ([`wants_currency_code`]);
//!   [`as_language`]: the language a value names, as the English name or
//!   the code a parameter about a language ([`wants_language`]) asks for.
//! - [`in_described_scale`]: a number put in the unit or scale its
//!   parameter's description asks for ("2 hours" in minutes, "10%" as a
//!   decimal), and [`unit_fits`]: whether a number's unit suits a
//!   parameter at all.
//! - [`message_form`]: whether a message asks a question, asks for
//!   something, states something, or is a bare fragment.
//! - [`requested_actions`] and [`offered_actions`]: what a request asks a
//!   tool to do (create, remove, buy…), and what a tool's manifest offers;
//!   [`Opposites`]: a request for the opposite of what a tool does ("turn
//!   off roaming" of `enable_roaming`).
//! - [`asks_general`]: a question of what is usual or wise in general
//!   ("how long does it usually take?"), which a tool's records seldom
//!   answer.
//! - [`request_parts`]: the requests a message joins ("X, and Y?"), each
//!   routed on its own.
//! - [`answers`] and [`required_params`]: whether a copied value answers
//!   what its parameter means (a time only a parameter about time, a word
//!   naming the tool's slots none), a number the parameter its word names
//!   ([`SlotWords`]), and the parameters a call cannot go without.
//! - [`Purpose`]: whether a tool's texts and a message name a subject in
//!   common, without which the tool does not serve the message; a report
//!   of something broken or lost ([`reports_trouble`]) is about repairs
//!   or losses; a word that one will not attend ([`reports_absence`])
//!   asks for the absence to be told, or the visit cancelled or moved.
//! - [`SimilarityIndex`]: character n-gram similarity between a message and
//!   each tool's texts, widened across languages by the [`glossary`].
//!
//! The word lists the rules consult are data files in `data/` ([`words`]),
//! compiled in. Left out: scoring with the model and decoding values, which
//! `riverse-embedded` does with these rules.

mod absence;
mod actions;
mod addresses;
mod affinity;
mod arithmetic;
mod boundaries;
pub mod calendar;
mod candidates;
mod clause_verbs;
mod currencies;
mod faults;
mod flags;
mod form;
mod formats;
mod general;
pub mod glossary;
mod identifiers;
mod languages;
pub mod lexicon;
mod lists;
mod meaning;
mod message;
mod named;
mod numbers;
mod opposites;
mod options;
mod parts;
mod person_names;
mod purpose;
mod request;
mod runs;
mod scales;
pub mod script;
mod self_named;
mod shapes;
mod similarity;
mod spelled;
mod spoken_times;
#[cfg(test)]
mod test_tools;
mod tool_texts;
mod triggers;
pub mod words;

pub use absence::reports_absence;
pub use actions::{
    Actions, leading_action_verb, offered_actions, requested_actions, unlisted_verb_actions,
    verb_actions,
};
pub use addresses::{
    address_through, coordinates, opens_street_address, postcode_districts, postcodes,
    writes_street_address,
};
pub use affinity::{Fit, ParamAffinity};
pub use arithmetic::extend_expression;
pub use boundaries::{Boundaries, is_forbidden};
pub use candidates::{Candidate, candidates};
pub use clause_verbs::LIGHT_VERBS;
pub use currencies::{currency_code, currency_mentions, wants_currency_code};
pub use faults::{reports_loss, reports_trouble, trouble_subjects};
pub use flags::implied_flag;
pub use form::{MessageForm, is_past_tense, message_form};
pub use formats::{
    NumberLabel, as_clock_time, clock_minutes, clock_span_in, clock_times_in, labelled_number,
    number_labels, trailing_digits, wants_clock_time,
};
pub use general::asks_general;
pub use identifiers::{
    CodePattern, IdentifierKind, identifier_kind, identifier_shaped, is_record_code, names_record,
    number_before_name, takes_identifier, takes_record, written_as_year,
};
pub use languages::{as_language, language_named, wants_language};
pub use lists::{Enumeration, enumerations};
pub use meaning::{
    SlotWords, answers, described_optional, holds_cjk_time, missing_required, name_words,
    names_time_only, required_params, split_identifier, wants_time, works_on,
};
pub use message::MessageSpans;
pub use numbers::{NumberSpan, cjk_number, numbers, numbers_a_thing};
pub use opposites::{OpposedAction, Opposites};
pub use options::{options_named, param_options, snap_to_option};
pub use parts::{asking_sentence, request_parts};
pub use person_names::{
    may_name_a_person, may_name_a_person_as, may_take_own_name, takes_person_name,
    takes_senders_name,
};
pub use purpose::{Purpose, names_values_only, values_only_verb};
pub use request::{RequestLength, is_whole_request};
pub use scales::{
    in_described_scale, is_unit_name, measures_for, unit_fits, writes_measure, written_half,
    written_in_unit_of, written_with_unit,
};
pub use self_named::self_named;
pub use shapes::{QUOTE_PAIRS, Shape, Shaped, shaped_tokens, tool_shapes};
pub use similarity::SimilarityIndex;
pub use spelled::spelled_numbers;
pub use spoken_times::{names_time_of_day, spoken_clock_times};
pub use tool_texts::tool_texts;
pub use triggers::Triggers;
