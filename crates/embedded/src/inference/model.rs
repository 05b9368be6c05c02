//! A decoder over GGUF weights, written on candle's tensor ops: the llama
//! architecture (SmolLM2) and Gemma 3.
//!
//! candle-transformers' `quantized_llama::ModelWeights` returns logits for the
//! last position only and keeps its KV cache private. Routing needs both the
//! logits of every position of a scored continuation and a cache it can fork,
//! save and restore, so the forward pass lives here. The arithmetic is the
//! standard llama block: RMS norm, grouped-query attention with interleaved
//! rotary embeddings (GGUF's layout for llama), SwiGLU feed-forward. Gemma 3
//! adds to it: embeddings scaled by the square root of their width, query and
//! key norms, norms after attention and feed-forward, half-split rotary
//! embeddings, a GELU gate, and five layers in six that attend to a sliding
//! window with their own rotary base. GGUF stores Gemma's norm weights with
//! its `1 +` already added, so the same RMS norm serves both.
//!
//! Reading the network from its file is `load`'s; this module runs it.

use std::sync::Arc;

use candle_core::quantized::{QMatMul, QTensor};
use candle_core::{D, DType, Device, Module, Tensor};

use crate::error::{Error, Result};

mod load;

/// The network families this decoder runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Architecture {
    Llama,
    Gemma3,
}

/// Shape and constants of the network, read from the GGUF metadata.
#[derive(Debug, Clone)]
pub(crate) struct Config {
    pub architecture: Architecture,
    pub layers: usize,
    pub heads: usize,
    pub kv_heads: usize,
    pub head_dim: usize,
    pub rms_eps: f32,
    pub rope_base: f32,
    pub context: usize,
    /// Gemma 3's local layers: how many positions back they attend.
    pub sliding_window: Option<usize>,
}

/// One linear projection. The quantized form serves single-token steps,
/// where it is fastest; `dense` is an optional F32 copy used for multi-token
/// prompt chunks, where a dense GEMM outruns the per-row quantized kernel.
struct Linear {
    quantized: QMatMul,
    dense: Option<Tensor>,
}

impl Linear {
    fn forward(&self, xs: &Tensor) -> Result<Tensor> {
        let rows = xs.dims()[..xs.rank() - 1].iter().product::<usize>();
        match &self.dense {
            Some(dense) if rows >= DENSE_MIN_ROWS => {
                let (batch, seq, width) = xs.dims3()?;
                Ok(xs
                    .reshape((batch * seq, width))?
                    .matmul(dense)?
                    .reshape((batch, seq, ()))?)
            }
            _ => Ok(self.quantized.forward(xs)?),
        }
    }
}

/// Rows from which the dense copy of a projection is used when it exists.
const DENSE_MIN_ROWS: usize = 8;

struct Layer {
    attention_norm: Tensor,
    query: Linear,
    key: Linear,
    value: Linear,
    output: Linear,
    ffn_norm: Tensor,
    gate: Linear,
    up: Linear,
    down: Linear,
    /// Gemma 3's extra norms; `None` for llama.
    extra: Option<GemmaNorms>,
    /// Whether the layer attends to a sliding window (Gemma 3's local layers).
    local: bool,
}

struct GemmaNorms {
    query: Tensor,
    key: Tensor,
    after_attention: Tensor,
    after_ffn: Tensor,
}

/// Rotary tables: cosines and sines per position.
struct Rotary {
    cos: Tensor,
    sin: Tensor,
}

/// The loaded network. Immutable and shared: every sequence keeps its own
/// [`KvCache`].
pub(crate) struct Weights {
    pub config: Config,
    embedding: Arc<QTensor>,
    layers: Vec<Layer>,
    norm: Tensor,
    output: QMatMul,
    /// The global layers' rotary tables.
    rotary: Rotary,
    /// The local layers' (Gemma 3).
    local_rotary: Option<Rotary>,
}

/// The attention keys and values of one token sequence, per layer. Cloning
/// is cheap (tensors share storage) and appending never touches the
/// original, so a prefilled prompt can be forked per query.
#[derive(Clone, Default)]
pub(crate) struct KvCache {
    layers: Vec<Option<(Tensor, Tensor)>>,
    /// Tokens the cache covers.
    len: usize,
}

impl KvCache {
    /// Tokens the cache covers.
    pub fn tokens(&self) -> usize {
        self.len
    }

    /// The cache as named tensors, for saving to disk.
    pub fn to_tensors(&self) -> Vec<(String, Tensor)> {
        self.layers
            .iter()
            .enumerate()
            .filter_map(|(index, entry)| entry.as_ref().map(|kv| (index, kv)))
            .flat_map(|(index, (keys, values))| {
                [
                    (format!("k.{index}"), keys.clone()),
                    (format!("v.{index}"), values.clone()),
                ]
            })
            .collect()
    }

    /// Rebuilds a cache saved by [`KvCache::to_tensors`]; `None` when the
    /// tensors do not describe `layers` layers of one length.
    pub fn from_tensors(
        layers: usize,
        mut tensors: std::collections::HashMap<String, Tensor>,
    ) -> Option<Self> {
        let mut entries = Vec::with_capacity(layers);
        let mut len = None;
        for index in 0..layers {
            let keys = tensors.remove(&format!("k.{index}"))?;
            let values = tensors.remove(&format!("v.{index}"))?;
            let this_len = keys.dims().get(2).copied()?;
            if *len.get_or_insert(this_len) != this_len || keys.dims() != values.dims() {
                return None;
            }
            entries.push(Some((keys, values)));
        }
        Some(KvCache {
            layers: entries,
            len: len.unwrap_or(0),
        })
    }
}

/// Which positions' logits a forward pass returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Logits {
    /// Only the last position's: what generation needs.
    Last,
    /// Every position's: what scoring a continuation needs.
    All,
}

impl Weights {
    /// Runs `tokens` after what `cache` holds, appends them to it, and returns
    /// F32 logits of shape `(positions, vocab)`. Like [`Weights::forward_tree`],
    /// it is one step of a [`crate::ModelJob`]: it fails at once when the job
    /// is cancelled.
    pub fn forward(&self, tokens: &[u32], cache: &mut KvCache, logits: Logits) -> Result<Tensor> {
        crate::job::step(tokens.len())?;
        let seq = tokens.len();
        let start = cache.len;
        self.check_room(start, seq)?;
        let group = self.config.heads / self.config.kv_heads;
        let pass = Pass {
            mask: if seq > 1 {
                Some(causal_mask(seq, start, group, None)?)
            } else {
                None
            },
            local_mask: match self.config.sliding_window {
                Some(window) if start + seq > window => {
                    Some(causal_mask(seq, start, group, Some(window))?)
                }
                _ => None,
            },
            rows: self.rotary_rows(|table| table.narrow(0, start, seq))?,
        };
        let out = self.run(tokens, cache, /*keep*/ true, &pass, logits)?;
        cache.len = start + seq;
        Ok(out)
    }

    /// Scores several continuations of `cache` in one pass, without
    /// changing it. The continuations form a forest: `parents[i]` is the
    /// token `tokens[i]` follows (`None`: it follows the cache directly).
    /// Each token sees the cache and its own ancestors only, at the position
    /// it would have in its own continuation, so the logits are those of
    /// running each continuation separately. Returns every token's logits.
    pub fn forward_tree(
        &self,
        tokens: &[u32],
        parents: &[Option<usize>],
        cache: &KvCache,
    ) -> Result<Tensor> {
        crate::job::step(tokens.len())?;
        let seq = tokens.len();
        let start = cache.len;
        let mut depth = vec![0usize; seq];
        for (index, parent) in parents.iter().enumerate() {
            if let Some(parent) = *parent {
                if parent >= index {
                    return Err(Error::Inference(candle_core::Error::Msg(format!(
                        "token {index} follows a later token {parent}"
                    ))));
                }
                depth[index] = depth[parent] + 1;
            }
        }
        let deepest = depth.iter().max().copied().unwrap_or(0);
        self.check_room(start, deepest + 1)?;
        let ancestry: Vec<Vec<bool>> = (0..seq)
            .map(|index| {
                let mut seen = vec![false; seq];
                let mut visible = Some(index);
                while let Some(ancestor) = visible {
                    seen[ancestor] = true;
                    visible = parents[ancestor];
                }
                seen
            })
            .collect();
        let group = self.config.heads / self.config.kv_heads;
        let tree = |window: Option<usize>| {
            mask(seq, start + seq, group, |row, column| {
                match column.checked_sub(start) {
                    Some(node) => ancestry[row][node],
                    None => window.is_none_or(|window| start + depth[row] - column < window),
                }
            })
        };
        let positions: Vec<u32> = depth.iter().map(|d| (start + d) as u32).collect();
        let positions = Tensor::new(positions.as_slice(), &Device::Cpu)?;
        let pass = Pass {
            mask: Some(tree(None)?),
            local_mask: match self.config.sliding_window {
                Some(window) if start + deepest + 1 > window => Some(tree(Some(window))?),
                _ => None,
            },
            rows: self.rotary_rows(|table| table.index_select(&positions, 0))?,
        };
        let mut scratch = cache.clone();
        self.run(
            tokens,
            &mut scratch,
            /*keep*/ false,
            &pass,
            Logits::All,
        )
    }

    /// The rows of each rotary table that a pass's tokens take.
    fn rotary_rows(
        &self,
        select: impl Fn(&Tensor) -> candle_core::Result<Tensor>,
    ) -> Result<(Rotary, Option<Rotary>)> {
        let rows = |table: &Rotary| -> Result<Rotary> {
            Ok(Rotary {
                cos: select(&table.cos)?,
                sin: select(&table.sin)?,
            })
        };
        Ok((
            rows(&self.rotary)?,
            self.local_rotary.as_ref().map(rows).transpose()?,
        ))
    }

    fn check_room(&self, start: usize, seq: usize) -> Result<()> {
        if seq == 0 {
            return Err(Error::Inference(candle_core::Error::Msg(
                "forward pass over no tokens".into(),
            )));
        }
        if start + seq > self.config.context {
            return Err(Error::ContextOverflow {
                tokens: start + seq,
                limit: self.config.context,
            });
        }
        Ok(())
    }

    /// The layers over `tokens`; `keep` appends their keys and values to
    /// `cache`, otherwise they are only attended to in this pass.
    fn run(
        &self,
        tokens: &[u32],
        cache: &mut KvCache,
        keep: bool,
        pass: &Pass,
        logits: Logits,
    ) -> Result<Tensor> {
        let seq = tokens.len();
        if cache.layers.len() != self.layers.len() {
            cache.layers = vec![None; self.layers.len()];
        }
        let ids = Tensor::new(tokens, &Device::Cpu)?.unsqueeze(0)?;
        let mut hidden = self.embedding.embedding(&ids)?;
        if self.config.architecture == Architecture::Gemma3 {
            let width = hidden.dim(D::Minus1)?;
            hidden = (hidden * (width as f64).sqrt())?;
        }
        let eps = self.config.rms_eps;
        for (layer, slot) in self.layers.iter().zip(cache.layers.iter_mut()) {
            let normed = candle_nn::ops::rms_norm(&hidden, &layer.attention_norm, eps)?;
            let mut attended = self.attention(layer, &normed, slot, keep, pass)?;
            if let Some(norms) = &layer.extra {
                attended = candle_nn::ops::rms_norm(&attended, &norms.after_attention, eps)?;
            }
            hidden = (hidden + attended)?;
            let normed = candle_nn::ops::rms_norm(&hidden, &layer.ffn_norm, eps)?;
            let gate = layer.gate.forward(&normed)?;
            let gate = match self.config.architecture {
                Architecture::Llama => candle_nn::ops::silu(&gate)?,
                Architecture::Gemma3 => gate.gelu()?,
            };
            let mut mixed = layer.down.forward(&(gate * layer.up.forward(&normed)?)?)?;
            if let Some(norms) = &layer.extra {
                mixed = candle_nn::ops::rms_norm(&mixed, &norms.after_ffn, eps)?;
            }
            hidden = (hidden + mixed)?;
        }
        let hidden = match logits {
            Logits::Last => hidden.narrow(1, seq - 1, 1)?,
            Logits::All => hidden,
        };
        let hidden = candle_nn::ops::rms_norm(&hidden, &self.norm, eps)?;
        let out = self.output.forward(&hidden)?;
        Ok(out.squeeze(0)?.to_dtype(DType::F32)?)
    }

    fn attention(
        &self,
        layer: &Layer,
        normed: &Tensor,
        slot: &mut Option<(Tensor, Tensor)>,
        keep: bool,
        pass: &Pass,
    ) -> Result<Tensor> {
        let Config {
            heads,
            kv_heads,
            head_dim,
            ..
        } = self.config;
        let (batch, seq, _) = normed.dims3()?;
        let split = |xs: Tensor, count: usize| -> candle_core::Result<Tensor> {
            xs.reshape((batch, seq, count, head_dim))?
                .transpose(1, 2)?
                .contiguous()
        };
        let mut query = split(layer.query.forward(normed)?, heads)?;
        let mut key = split(layer.key.forward(normed)?, kv_heads)?;
        let value = split(layer.value.forward(normed)?, kv_heads)?;
        if let Some(norms) = &layer.extra {
            query = candle_nn::ops::rms_norm(&query, &norms.query, self.config.rms_eps)?;
            key = candle_nn::ops::rms_norm(&key, &norms.key, self.config.rms_eps)?;
        }
        let rotary = match (&pass.rows, layer.local) {
            ((_, Some(local)), true) => local,
            ((global, _), _) => global,
        };
        let rope = match self.config.architecture {
            Architecture::Llama => candle_nn::rotary_emb::rope_i,
            Architecture::Gemma3 => candle_nn::rotary_emb::rope,
        };
        let query = rope(&query, &rotary.cos, &rotary.sin)?;
        let key = rope(&key, &rotary.cos, &rotary.sin)?;
        let (key, value) = match slot.as_ref() {
            Some((past_key, past_value)) => (
                Tensor::cat(&[past_key, &key], 2)?,
                Tensor::cat(&[past_value, &value], 2)?,
            ),
            None => (key, value),
        };
        if keep {
            *slot = Some((key.clone(), value.clone()));
        }

        // Grouped-query attention without copying keys: the query heads that
        // share a key/value head are stacked along the sequence axis, so each
        // group is one matmul against its own keys.
        let group = heads / kv_heads;
        let query = query.reshape((batch, kv_heads, group * seq, head_dim))?;
        let scores = (query.matmul(&key.t()?)? / (head_dim as f64).sqrt())?;
        let mask = match &pass.local_mask {
            Some(local) if layer.local => Some(local),
            _ => pass.mask.as_ref(),
        };
        let scores = match mask {
            Some(mask) => scores.broadcast_add(mask)?,
            None => scores,
        };
        let weights = candle_nn::ops::softmax_last_dim(&scores)?;
        let mixed = weights.matmul(&value)?;
        let mixed = mixed
            .reshape((batch, heads, seq, head_dim))?
            .transpose(1, 2)?
            .reshape((batch, seq, heads * head_dim))?;
        layer.output.forward(&mixed)
    }
}

/// What one forward pass needs beside its tokens.
struct Pass {
    /// Which cached and new positions each new token sees; `None`: all.
    mask: Option<Tensor>,
    /// The same for local layers, where their window hides some positions.
    local_mask: Option<Tensor>,
    /// The rotary rows of the tokens' positions: global, and local where
    /// the model has local layers.
    rows: (Rotary, Option<Rotary>),
}

/// An additive mask of `seq` rows over `width` positions, open where
/// `visible(row, position)`, repeated for the `group` query heads stacked
/// per key/value head.
fn mask(
    seq: usize,
    width: usize,
    group: usize,
    visible: impl Fn(usize, usize) -> bool,
) -> Result<Tensor> {
    let cells: Vec<f32> = (0..seq)
        .flat_map(|row| (0..width).map(move |column| (row, column)))
        .map(|(row, column)| {
            if visible(row, column) {
                0.0
            } else {
                f32::NEG_INFINITY
            }
        })
        .collect();
    let mask = Tensor::from_vec(cells, (seq, width), &Device::Cpu)?;
    Ok(mask.repeat((group, 1))?)
}

/// The mask of `seq` new tokens after `start` cached ones: each sees the
/// positions up to its own, the last `window` of them if there is one.
fn causal_mask(seq: usize, start: usize, group: usize, window: Option<usize>) -> Result<Tensor> {
    mask(seq, start + seq, group, |row, column| {
        let position = start + row;
        column <= position && window.is_none_or(|window| position - column < window)
    })
}

/// Log-softmax over the last axis, as a plain vector per row.
pub(crate) fn log_softmax_rows(logits: &Tensor) -> Result<Vec<Vec<f32>>> {
    let normalized = candle_nn::ops::log_softmax(logits, D::Minus1)?;
    Ok(match normalized.rank() {
        1 => vec![normalized.to_vec1()?],
        _ => normalized.to_vec2()?,
    })
}

#[cfg(test)]
mod tests {
    use std::fs::File;
    use std::path::Path;

    use super::*;
    use candle_core::quantized::GgmlDType;
    use candle_core::quantized::gguf_file::{self, Value};

    #[test]
    fn causal_mask_lets_new_tokens_see_the_prefix_and_earlier_tokens_only() {
        let rows: Vec<Vec<f32>> = causal_mask(2, 3, 2, None).unwrap().to_vec2().unwrap();
        let open = 0.0;
        let shut = f32::NEG_INFINITY;
        let expected = [
            vec![open, open, open, open, shut],
            vec![open, open, open, open, open],
        ];
        assert_eq!(rows[..2], expected[..]);
        assert_eq!(rows[2..], expected[..], "repeated for the second head");
    }

    #[test]
    fn a_sliding_window_hides_what_lies_behind_it() {
        let rows: Vec<Vec<f32>> = causal_mask(2, 3, 1, Some(2)).unwrap().to_vec2().unwrap();
        let open = 0.0;
        let shut = f32::NEG_INFINITY;
        assert_eq!(
            rows,
            [
                vec![shut, shut, open, open, shut],
                vec![shut, shut, shut, open, open],
            ]
        );
    }

    const VOCAB: usize = 11;
    const WIDTH: usize = 8;
    const HEAD_DIM: usize = 4;

    /// A Gemma 3 network of seven layers (six local with a window of 3, one
    /// global), tiny and with fixed pseudo-random weights, written as GGUF.
    fn tiny_gemma(dir: &Path) -> std::path::PathBuf {
        let mut seed = 7u64;
        let mut values = |shape: (usize, usize)| {
            let data: Vec<f32> = (0..shape.0 * shape.1)
                .map(|_| {
                    seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                    ((seed >> 33) as f32 / (1u64 << 31) as f32 - 0.5) * 0.8
                })
                .collect();
            let tensor = Tensor::from_vec(data, shape, &Device::Cpu).unwrap();
            QTensor::quantize(&tensor, GgmlDType::F32).unwrap()
        };
        let ones = |width: usize| {
            let tensor = Tensor::ones(width, DType::F32, &Device::Cpu).unwrap();
            QTensor::quantize(&tensor, GgmlDType::F32).unwrap()
        };
        let mut tensors: Vec<(String, QTensor)> = vec![
            ("token_embd.weight".into(), values((VOCAB, WIDTH))),
            ("output_norm.weight".into(), ones(WIDTH)),
        ];
        for index in 0..7 {
            let name = |part: &str| format!("blk.{index}.{part}.weight");
            for norm in [
                "attn_norm",
                "ffn_norm",
                "post_attention_norm",
                "post_ffw_norm",
            ] {
                tensors.push((name(norm), ones(WIDTH)));
            }
            tensors.push((name("attn_q_norm"), ones(HEAD_DIM)));
            tensors.push((name("attn_k_norm"), ones(HEAD_DIM)));
            tensors.push((name("attn_q"), values((2 * HEAD_DIM, WIDTH))));
            tensors.push((name("attn_k"), values((HEAD_DIM, WIDTH))));
            tensors.push((name("attn_v"), values((HEAD_DIM, WIDTH))));
            tensors.push((name("attn_output"), values((WIDTH, 2 * HEAD_DIM))));
            tensors.push((name("ffn_gate"), values((16, WIDTH))));
            tensors.push((name("ffn_up"), values((16, WIDTH))));
            tensors.push((name("ffn_down"), values((WIDTH, 16))));
        }
        let metadata = [
            ("general.architecture", Value::String("gemma3".into())),
            ("gemma3.block_count", Value::U32(7)),
            ("gemma3.embedding_length", Value::U32(WIDTH as u32)),
            ("gemma3.attention.head_count", Value::U32(2)),
            ("gemma3.attention.head_count_kv", Value::U32(1)),
            ("gemma3.attention.key_length", Value::U32(HEAD_DIM as u32)),
            ("gemma3.attention.layer_norm_rms_epsilon", Value::F32(1e-6)),
            ("gemma3.rope.freq_base", Value::F32(1_000_000.0)),
            ("gemma3.attention.sliding_window", Value::U32(3)),
            ("gemma3.context_length", Value::U32(32)),
        ];
        let path = dir.join("tiny-gemma.gguf");
        let mut file = File::create(&path).unwrap();
        let metadata: Vec<(&str, &Value)> = metadata.iter().map(|(k, v)| (*k, v)).collect();
        let tensors: Vec<(&str, &QTensor)> = tensors.iter().map(|(k, v)| (k.as_str(), v)).collect();
        gguf_file::write(&mut file, &metadata, &tensors).unwrap();
        path
    }

    fn assert_close(left: &[Vec<f32>], right: &[Vec<f32>]) {
        assert_eq!(left.len(), right.len());
        for (a, b) in left.iter().zip(right) {
            for (x, y) in a.iter().zip(b) {
                assert!((x - y).abs() < 1e-4, "{a:?}\n{b:?}");
            }
        }
    }

    #[test]
    fn gemma_steps_one_token_at_a_time_as_in_one_pass_beyond_its_window() {
        let dir = tempfile::tempdir().unwrap();
        let (weights, _) = Weights::load(&tiny_gemma(dir.path()), false).unwrap();
        assert_eq!(weights.config.architecture, Architecture::Gemma3);
        assert_eq!(
            weights
                .layers
                .iter()
                .map(|layer| layer.local)
                .collect::<Vec<_>>(),
            [true, true, true, true, true, false, true]
        );
        let tokens = [1, 5, 9, 2, 2, 7, 3, 10];
        let whole = weights
            .forward(&tokens, &mut KvCache::default(), Logits::All)
            .unwrap()
            .to_vec2::<f32>()
            .unwrap();
        let mut cache = KvCache::default();
        let stepped: Vec<Vec<f32>> = tokens
            .iter()
            .map(|&token| {
                let logits = weights.forward(&[token], &mut cache, Logits::Last).unwrap();
                logits.flatten_all().unwrap().to_vec1().unwrap()
            })
            .collect();
        assert_close(&whole, &stepped);
        assert_eq!(cache.tokens(), tokens.len());
    }

    #[test]
    fn gemma_scores_a_tree_of_continuations_as_if_run_one_by_one() {
        let dir = tempfile::tempdir().unwrap();
        let (weights, _) = Weights::load(&tiny_gemma(dir.path()), false).unwrap();
        let mut prefix = KvCache::default();
        weights
            .forward(&[4, 8, 1, 6], &mut prefix, Logits::Last)
            .unwrap();
        // Two continuations sharing their first token: [3, 9] and [3, 2].
        let tree = weights
            .forward_tree(&[3, 9, 2], &[None, Some(0), Some(0)], &prefix)
            .unwrap()
            .to_vec2::<f32>()
            .unwrap();
        let run = |tokens: &[u32]| -> Vec<Vec<f32>> {
            let mut cache = prefix.clone();
            weights
                .forward(tokens, &mut cache, Logits::All)
                .unwrap()
                .to_vec2()
                .unwrap()
        };
        let first = run(&[3, 9]);
        let second = run(&[3, 2]);
        assert_close(
            &tree,
            &[first[0].clone(), first[1].clone(), second[1].clone()],
        );
        assert_eq!(prefix.tokens(), 4, "scoring leaves the cache as it was");
    }
}
