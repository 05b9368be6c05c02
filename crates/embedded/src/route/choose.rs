//! Choosing the tool: calibrated model scores combined with similarity.

use riverse_tool::ToolManifest;

use crate::engine::{Engine, State, logprob};
use crate::error::Result;
use crate::prompt_cache::PromptCache;
use crate::route::prompt::{
    CONTENT_FREE, NONE, SMALL_TALK, choice_candidate, choice_prefix, choice_suffix,
};
use crate::similarity::SimilarityIndex;

/// The choice prompt of one tool set, prefilled, with everything derived
/// from the manifests alone.
pub(crate) struct ChoicePrefix {
    pub state: State,
    /// Tool names, then [`NONE`].
    pub candidates: Vec<String>,
    /// Token ids of each candidate as scored after the prompt.
    candidate_tokens: Vec<Vec<u32>>,
    /// Each candidate's mean score on content-free messages.
    calibration: Vec<f32>,
    similarity: SimilarityIndex,
}

/// Why a candidate won or lost, for reports and evaluation.
#[derive(Debug, Clone, PartialEq)]
pub struct CandidateScore {
    /// A tool name, or `none`.
    pub name: String,
    /// The model's log-probability of the name, minus its content-free mean.
    pub model: f32,
    /// Best character n-gram similarity to the candidate's texts, 0 to 1.
    pub similarity: f32,
    /// What the decision compares.
    pub combined: f32,
    /// The candidate could not win, so `model` is only an upper bound (its
    /// first token's log-probability) and was not computed in full.
    pub pruned: bool,
}

/// How strongly similarity counts against calibrated log-probabilities:
/// a perfect textual match is worth this many nats. Chosen with
/// [`CALL_MARGIN`] on the evaluation's dev split (`examples/route_eval.rs`);
/// neighbouring values (6 to 10, 3 to 5) score within a case or two.
const SIMILARITY_WEIGHT: f32 = 12.0;

/// Candidates scored in full per batch while pruning: a batch costs one
/// forward pass whatever its size, so a few at a time avoids a second pass.
const PRUNE_BATCH: usize = 3;

/// A tool must beat `none` by this much (in combined units) to be called.
/// The model gives every tool a positive calibrated score for almost any
/// real sentence, small talk included, so a tool has to be clearly ahead.
const CALL_MARGIN: f32 = 4.0;

impl ChoicePrefix {
    /// Prefills the choice prompt of `tools` and calibrates it, or reads
    /// both back from `disk`.
    pub fn build(
        engine: &Engine,
        tools: &[ToolManifest],
        disk: Option<&PromptCache>,
    ) -> Result<Self> {
        let prompt = choice_prefix(tools);
        let mut candidates: Vec<String> = tools.iter().map(|tool| tool.name.clone()).collect();
        candidates.push(NONE.to_owned());
        let candidate_tokens = candidate_tokens(engine, &candidates)?;
        let mut texts: Vec<Vec<String>> = tools.iter().map(candidate_texts).collect();
        texts.push(SMALL_TALK.iter().map(|text| (*text).to_owned()).collect());
        let similarity = SimilarityIndex::new(&texts);
        // Everything the saved calibration depends on.
        let key = format!("choice\n{prompt}\n{candidate_tokens:?}\n{CONTENT_FREE:?}");
        let layers = engine.weights.config.layers;
        if let Some((state, calibration)) = disk.and_then(|disk| disk.load(&key, layers))
            && calibration.len() == candidates.len()
        {
            return Ok(ChoicePrefix {
                state,
                candidates,
                candidate_tokens,
                calibration,
                similarity,
            });
        }
        let mut prefix = ChoicePrefix {
            state: engine.prefill(&prompt)?,
            candidates,
            candidate_tokens,
            calibration: Vec::new(),
            similarity,
        };
        let mut sums = vec![0.0; prefix.candidates.len()];
        for message in CONTENT_FREE {
            for (sum, score) in sums.iter_mut().zip(prefix.raw_scores(engine, message)?) {
                *sum += score;
            }
        }
        prefix.calibration = sums
            .into_iter()
            .map(|sum| sum / CONTENT_FREE.len() as f32)
            .collect();
        if let Some(disk) = disk {
            disk.save(&key, &prefix.state, &prefix.calibration);
        }
        Ok(prefix)
    }

    /// Log-probability of each candidate name as the reply to `message`.
    fn raw_scores(&self, engine: &Engine, message: &str) -> Result<Vec<f32>> {
        let state = engine.extend(&self.state, &choice_suffix(message))?;
        engine.score_many(&state, &self.candidate_tokens)
    }

    /// Every candidate's scores for `message`, in candidate order.
    ///
    /// Only candidates that can still win are scored in full: a name's
    /// log-probability is at most that of its first token, which the
    /// message's prefill already gives, so tools whose bound falls below the
    /// best full score are left at their bound (and marked `pruned`). Most
    /// messages need the full score of two or three names only.
    pub fn score(&self, engine: &Engine, message: &str) -> Result<Vec<CandidateScore>> {
        let state = engine.extend(&self.state, &choice_suffix(message))?;
        let similarity = self.similarity.scores(message);
        let count = self.candidates.len();
        let bonus = |index: usize| SIMILARITY_WEIGHT * similarity[index] - self.calibration[index];
        let mut model: Vec<f32> = (0..count)
            .map(|index| {
                let first = self.candidate_tokens[index].first().copied().unwrap_or(0);
                logprob(&state.next, first)
            })
            .collect();
        let mut exact: Vec<bool> = self
            .candidate_tokens
            .iter()
            .map(|tokens| tokens.len() <= 1)
            .collect();
        let none = count - 1;
        let mut wanted: Vec<usize> = vec![none];
        loop {
            let mut order: Vec<usize> = (0..count).filter(|&index| !exact[index]).collect();
            order.sort_by(|&a, &b| (model[b] + bonus(b)).total_cmp(&(model[a] + bonus(a))));
            let best_exact = (0..count)
                .filter(|&index| exact[index] && index != none)
                .map(|index| model[index] + bonus(index))
                .fold(f32::NEG_INFINITY, f32::max);
            wanted.extend(
                order
                    .iter()
                    .copied()
                    .filter(|&index| model[index] + bonus(index) > best_exact)
                    .take(PRUNE_BATCH),
            );
            wanted.retain(|&index| !exact[index]);
            if wanted.is_empty() {
                break;
            }
            let sequences: Vec<Vec<u32>> = wanted
                .iter()
                .map(|&index| self.candidate_tokens[index].clone())
                .collect();
            for (&index, score) in wanted.iter().zip(engine.score_many(&state, &sequences)?) {
                model[index] = score;
                exact[index] = true;
            }
            wanted.clear();
        }
        Ok(self
            .candidates
            .iter()
            .enumerate()
            .map(|(index, name)| {
                let model = model[index] - self.calibration[index];
                CandidateScore {
                    name: name.clone(),
                    model,
                    similarity: similarity[index],
                    combined: model + SIMILARITY_WEIGHT * similarity[index],
                    pruned: !exact[index],
                }
            })
            .collect())
    }
}

/// The tokens each candidate is scored by: its name, and the reply's closing
/// `"}` only where the name alone is a prefix of another name (`web` and
/// `web_search`). Leaving the closing out of unambiguous names spares a
/// forward pass per single-token name without changing which name wins.
fn candidate_tokens(engine: &Engine, candidates: &[String]) -> Result<Vec<Vec<u32>>> {
    let plain: Vec<Vec<u32>> = candidates
        .iter()
        .map(|name| engine.tokenizer.encode(name))
        .collect::<Result<_>>()?;
    candidates
        .iter()
        .zip(&plain)
        .enumerate()
        .map(|(index, (name, tokens))| {
            let full = engine.tokenizer.encode(&choice_candidate(name))?;
            let ambiguous = plain
                .iter()
                .enumerate()
                .any(|(other, theirs)| other != index && theirs.starts_with(tokens));
            Ok(if ambiguous || !full.starts_with(tokens) {
                full
            } else {
                tokens.clone()
            })
        })
        .collect()
}

/// The winning tool's index among `scores`, or `None` for no tool.
pub(crate) fn decide(scores: &[CandidateScore]) -> Option<usize> {
    let (none, tools) = scores.split_last()?;
    let (best, top) = tools
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.combined.total_cmp(&b.1.combined))?;
    (top.combined > none.combined + CALL_MARGIN).then_some(best)
}

/// The texts a tool is recognised by: its description, its examples, and its
/// name with separators as spaces (`convert_units` reads "convert units").
fn candidate_texts(tool: &ToolManifest) -> Vec<String> {
    let mut texts = vec![tool.description.clone(), tool.name.replace(['_', '-'], " ")];
    texts.extend(tool.examples.iter().cloned());
    texts
}
