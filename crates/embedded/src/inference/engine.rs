//! The model and its tokenizer together: prefill a prompt, extend it, score
//! a continuation, generate.

use std::collections::HashMap;
use std::path::Path;

use crate::answer::NumberGrounding;
use crate::error::Result;
use crate::inference::chatml::Template;
use crate::inference::generate::{Generated, GenerationLimits, generate};
use crate::inference::model::{KvCache, Logits, Weights, log_softmax_rows};
use crate::inference::tokenizer::Tokenizer;
use crate::tuning::PREFILL_CHUNK;

pub(crate) struct Engine {
    pub weights: Weights,
    pub tokenizer: Tokenizer,
    template: Template,
    /// The token a prompt opens with, for models that expect one (Gemma).
    bos: Option<u32>,
}

/// A processed token sequence: its KV cache and the log-probabilities of the
/// token that would follow it. Cloning forks it.
#[derive(Clone)]
pub(crate) struct State {
    pub cache: KvCache,
    /// Log-probability of every vocabulary entry as the next token.
    pub next: Vec<f32>,
}

impl State {
    /// Nothing processed yet.
    pub fn empty() -> Self {
        State {
            cache: KvCache::default(),
            next: Vec::new(),
        }
    }

    /// Tokens processed: the prompt so far, a prefix it was forked from
    /// included.
    pub fn tokens(&self) -> usize {
        self.cache.tokens()
    }
}

impl Engine {
    pub fn load(path: &Path, dense: bool) -> Result<Self> {
        let (weights, content) = Weights::load(path, dense)?;
        let tokenizer = Tokenizer::from_gguf(&content)?;
        let metadata = |key: &str| content.metadata.get(key);
        let bos = metadata("tokenizer.ggml.add_bos_token")
            .and_then(|value| value.to_bool().ok())
            .filter(|&add| add)
            .and_then(|_| metadata("tokenizer.ggml.bos_token_id")?.to_u32().ok());
        let template = Template::detect(|token| tokenizer.token_id(token).is_some());
        Ok(Engine {
            weights,
            tokenizer,
            template,
            bos,
        })
    }

    /// The tokens of a whole prompt composed in ChatML, in the model's own
    /// template and opening token.
    pub fn encode_prompt(&self, text: &str) -> Result<Vec<u32>> {
        let mut tokens: Vec<u32> = self.bos.into_iter().collect();
        tokens.extend(self.tokenizer.encode(&self.template.render(text))?);
        Ok(tokens)
    }

    /// Processes `text` from an empty context.
    pub fn prefill(&self, text: &str) -> Result<State> {
        let tokens = self.encode_prompt(text)?;
        self.extend_tokens(&State::empty(), &tokens)
    }

    /// Forks `state` and processes `text` after it.
    pub fn extend(&self, state: &State, text: &str) -> Result<State> {
        let tokens = self.tokenizer.encode(&self.template.render(text))?;
        self.extend_tokens(state, &tokens)
    }

    pub fn extend_tokens(&self, state: &State, tokens: &[u32]) -> Result<State> {
        let mut next = state.clone();
        for chunk in tokens.chunks(PREFILL_CHUNK) {
            let logits = self.weights.forward(chunk, &mut next.cache, Logits::Last)?;
            next.next = log_softmax_rows(&logits)?.pop().unwrap_or_default();
        }
        Ok(next)
    }

    /// Sums of log-probabilities of several continuations of `state`,
    /// computed in one pass: the continuations are laid out as a tree
    /// sharing common prefixes, each token attending only to its own
    /// ancestors. One batched pass costs about as much as two single-token
    /// steps, where scoring them one by one costs one step per token.
    pub fn score_many(&self, state: &State, candidates: &[Vec<u32>]) -> Result<Vec<f32>> {
        let mut nodes: HashMap<(Option<usize>, u32), usize> = HashMap::new();
        let mut tokens: Vec<u32> = Vec::new();
        let mut parents: Vec<Option<usize>> = Vec::new();
        // For each candidate, the tree node after each of its fed tokens.
        let mut paths: Vec<Vec<usize>> = Vec::with_capacity(candidates.len());
        for candidate in candidates {
            let mut path = Vec::new();
            let mut parent = None;
            for &token in candidate.iter().take(candidate.len().saturating_sub(1)) {
                let node = *nodes.entry((parent, token)).or_insert_with(|| {
                    tokens.push(token);
                    parents.push(parent);
                    tokens.len() - 1
                });
                path.push(node);
                parent = Some(node);
            }
            paths.push(path);
        }
        let rows = if tokens.is_empty() {
            Vec::new()
        } else {
            log_softmax_rows(&self.weights.forward_tree(&tokens, &parents, &state.cache)?)?
        };
        Ok(candidates
            .iter()
            .zip(&paths)
            .map(|(candidate, path)| {
                let Some(&first) = candidate.first() else {
                    return 0.0;
                };
                logprob(&state.next, first)
                    + path
                        .iter()
                        .zip(&candidate[1..])
                        .map(|(&node, &token)| logprob(&rows[node], token))
                        .sum::<f32>()
            })
            .collect())
    }

    /// Generates free text after `state`, streaming pieces to `on_piece`.
    pub fn generate(
        &self,
        state: &State,
        limits: &GenerationLimits,
        grounding: Option<&NumberGrounding>,
        on_piece: &mut dyn FnMut(&str),
    ) -> Result<Generated> {
        let mut cache = state.cache.clone();
        generate(
            &self.weights,
            &self.tokenizer,
            &mut cache,
            state.next.clone(),
            limits,
            grounding,
            on_piece,
        )
    }
}

pub(crate) fn logprob(row: &[f32], token: u32) -> f32 {
    row.get(token as usize)
        .copied()
        .unwrap_or(f32::NEG_INFINITY)
}
