//! How well a candidate value fits each of a tool's parameters, by the
//! parameter's own description and examples: "6pm" fits "When, e.g. 6pm,
//! tomorrow 9am", "call the dentist" fits "What to be reminded of, e.g. call
//! mom", a path fits "Path of the file, e.g. notes/todo.txt".
//!
//! Two measures: character n-gram similarity with digits folded (so 3pm
//! meets 6pm), and whether the candidate has a shape the parameter's
//! examples have.

use std::collections::BTreeSet;

use riverse_tool::ToolManifest;

use crate::candidates::Candidate;
use crate::shapes::{Shape, shaped_tokens};
use crate::similarity::SimilarityIndex;

/// A tool's parameters, ready to be compared with candidate values.
#[derive(Debug, Clone)]
pub struct ParamAffinity {
    similarity: SimilarityIndex,
    /// Per parameter, the shapes its description writes.
    shapes: Vec<BTreeSet<Shape>>,
}

/// How one candidate fits one parameter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fit {
    /// Similarity to the parameter's description and examples, 0 to 1.
    pub similarity: f32,
    /// The candidate has a shape the parameter's examples have.
    pub shape: bool,
    /// The candidate has a shape that another parameter's examples have and
    /// this one's do not: "3時" is the reminder's time, not its text.
    pub sibling_shape: bool,
}

impl ParamAffinity {
    /// The parameters of `tool`, in declaration order.
    pub fn new(tool: &ToolManifest) -> Self {
        let texts: Vec<Vec<String>> = tool
            .parameters
            .iter()
            .map(|(name, description)| param_texts(name, description))
            .collect();
        let shapes = tool
            .parameters
            .values()
            .map(|description| {
                shaped_tokens(description)
                    .into_iter()
                    .map(|shaped| shaped.shape)
                    .collect()
            })
            .collect();
        ParamAffinity {
            similarity: SimilarityIndex::new(&texts),
            shapes,
        }
    }

    /// How `candidate` fits each parameter, in declaration order.
    pub fn fits(&self, candidate: &Candidate) -> Vec<Fit> {
        let similarity = self.similarity.scores(&fold_digits(&candidate.value));
        let has = |shapes: &BTreeSet<Shape>| candidate.shape.is_some_and(|s| shapes.contains(&s));
        let anywhere = self.shapes.iter().any(has);
        similarity
            .into_iter()
            .zip(&self.shapes)
            .map(|(similarity, shapes)| Fit {
                similarity,
                shape: has(shapes),
                sibling_shape: anywhere && !has(shapes),
            })
            .collect()
    }
}

/// A parameter's texts: its name with separators as spaces, and its
/// description. The examples a description lists are not texts of their
/// own: matched alone, "km" of "Unit of the value, e.g. km, lb, F" would
/// make every kilometre a source unit.
fn param_texts(name: &str, description: &str) -> Vec<String> {
    vec![name.replace(['_', '-'], " "), fold_digits(description)]
}

/// Every ASCII digit as `0`: a time or amount is known by its shape.
fn fold_digits(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_ascii_digit() { '0' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reminder() -> ToolManifest {
        serde_json::from_value(serde_json::json!({
            "name": "reminder",
            "description": "Set a reminder",
            "parameters": {
                "text": "What to be reminded of, e.g. call mom",
                "time": "When, e.g. 6pm, tomorrow 9am, in 20 minutes"
            },
        }))
        .unwrap()
    }

    fn candidate(value: &str, shape: Option<Shape>) -> Candidate {
        Candidate {
            bytes: 0..value.len(),
            value: value.to_owned(),
            shape,
        }
    }

    #[test]
    fn a_value_fits_the_parameter_whose_examples_it_resembles() {
        let affinity = ParamAffinity::new(&reminder());
        for (value, shape, param) in [
            ("3pm", Some(Shape::ClockTime), 1),
            ("in 30 minutes", None, 1),
            ("tomorrow morning", None, 1),
            ("call the dentist", None, 0),
        ] {
            let fits = affinity.fits(&candidate(value, shape));
            let other = 1 - param;
            assert!(
                fits[param].similarity > fits[other].similarity,
                "{value}: {fits:?}"
            );
        }
    }

    #[test]
    fn a_shape_fits_where_the_examples_have_it() {
        let affinity = ParamAffinity::new(&reminder());
        let fits = affinity.fits(&candidate("8am", Some(Shape::ClockTime)));
        assert!(fits[1].shape && !fits[0].shape);
        assert!(fits[0].sibling_shape && !fits[1].sibling_shape);
        let fits = affinity.fits(&candidate("8am", None));
        assert!(!fits[1].shape && !fits[0].sibling_shape);
        let fits = affinity.fits(&candidate("a.txt", Some(Shape::Path)));
        assert!(!fits[0].sibling_shape, "no parameter has paths");
    }
}
