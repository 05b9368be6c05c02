//! A llama-architecture decoder over GGUF weights, written on candle's tensor
//! ops.
//!
//! candle-transformers' `quantized_llama::ModelWeights` returns logits for the
//! last position only and keeps its KV cache private. Routing needs both the
//! logits of every position of a scored continuation and a cache it can fork,
//! save and restore, so the forward pass lives here. The arithmetic is the
//! standard llama block: RMS norm, grouped-query attention with interleaved
//! rotary embeddings (GGUF's layout for llama), SwiGLU feed-forward.

use std::fs::File;
use std::io::BufReader;
use std::path::Path;
use std::sync::Arc;

use candle_core::quantized::gguf_file::Content;
use candle_core::quantized::{GgmlDType, QMatMul, QTensor};
use candle_core::{D, DType, Device, Module, Tensor};

use crate::error::{Error, Result};

/// Shape and constants of the network, read from the GGUF metadata.
#[derive(Debug, Clone)]
pub(crate) struct Config {
    pub layers: usize,
    pub heads: usize,
    pub kv_heads: usize,
    pub head_dim: usize,
    pub rms_eps: f32,
    pub rope_base: f32,
    pub context: usize,
}

/// One linear projection. The quantized form serves single-token steps,
/// where it is fastest; `dense` is an optional F32 copy used for multi-token
/// prompt chunks, where a dense GEMM outruns the per-row quantized kernel.
struct Linear {
    quantized: QMatMul,
    dense: Option<Tensor>,
}

impl Linear {
    fn new(tensor: QTensor, dense: bool) -> Result<Self> {
        let tensor = requantize(tensor)?;
        let dense = if dense {
            Some(tensor.dequantize(&Device::Cpu)?.t()?.contiguous()?)
        } else {
            None
        };
        Ok(Linear {
            quantized: QMatMul::from_qtensor(tensor)?,
            dense,
        })
    }

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

/// Converts formats that candle multiplies with a scalar loop into Q8_0,
/// which has an AVX2 kernel. For SmolLM2's Q4_1 weights this makes each step
/// several times faster for 15 % more memory, and Q8_0 holds 4-bit values
/// almost exactly.
fn requantize(tensor: QTensor) -> Result<QTensor> {
    match tensor.dtype() {
        GgmlDType::Q4_1 | GgmlDType::Q5_0 | GgmlDType::Q5_1 => {
            let values = tensor.dequantize(&Device::Cpu)?;
            Ok(QTensor::quantize(&values, GgmlDType::Q8_0)?)
        }
        _ => Ok(tensor),
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
}

/// The loaded network. Immutable and shared: every sequence keeps its own
/// [`KvCache`].
pub(crate) struct Weights {
    pub config: Config,
    embedding: Arc<QTensor>,
    layers: Vec<Layer>,
    norm: Tensor,
    output: QMatMul,
    cos: Tensor,
    sin: Tensor,
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
    /// Reads a llama GGUF file. `dense` also keeps an F32 copy of every
    /// projection for faster multi-token prompt processing.
    pub fn load(path: &Path, dense: bool) -> Result<(Self, Content)> {
        let invalid = |reason: String| Error::InvalidModel {
            path: path.to_path_buf(),
            reason,
        };
        let file = File::open(path).map_err(|err| match err.kind() {
            std::io::ErrorKind::NotFound => Error::ModelNotFound {
                path: path.to_path_buf(),
            },
            _ => Error::io(format!("open {}", path.display()), err),
        })?;
        let mut reader = BufReader::new(file);
        let content =
            Content::read(&mut reader).map_err(|err| invalid(format!("not a GGUF file: {err}")))?;
        let architecture = metadata_string(&content, "general.architecture").unwrap_or_default();
        if architecture != "llama" {
            return Err(invalid(format!(
                "architecture {architecture:?} is not supported (llama only)"
            )));
        }
        let number = |key: &str| -> Result<f64> {
            content
                .metadata
                .get(key)
                .and_then(|value| {
                    value
                        .to_u32()
                        .map(f64::from)
                        .or_else(|_| value.to_f32().map(f64::from))
                        .or_else(|_| value.to_u64().map(|v| v as f64))
                        .ok()
                })
                .ok_or_else(|| invalid(format!("metadata {key} is missing")))
        };
        let heads = number("llama.attention.head_count")? as usize;
        let embedding_length = number("llama.embedding_length")? as usize;
        let config = Config {
            layers: number("llama.block_count")? as usize,
            heads,
            kv_heads: number("llama.attention.head_count_kv")? as usize,
            head_dim: embedding_length / heads.max(1),
            rms_eps: number("llama.attention.layer_norm_rms_epsilon")? as f32,
            rope_base: number("llama.rope.freq_base").unwrap_or(10_000.0) as f32,
            context: number("llama.context_length")? as usize,
        };
        if config.kv_heads == 0 || !config.heads.is_multiple_of(config.kv_heads) {
            return Err(invalid(format!(
                "{} heads can't share {} key/value heads",
                config.heads, config.kv_heads
            )));
        }

        let device = Device::Cpu;
        let mut tensor = |name: &str| {
            content
                .tensor(&mut reader, name, &device)
                .map_err(|err| invalid(format!("tensor {name}: {err}")))
        };
        let embedding = Arc::new(tensor("token_embd.weight")?);
        let output = match tensor("output.weight") {
            Ok(output) => QMatMul::from_qtensor(output)?,
            // Tied embeddings: the output projection is the embedding table.
            Err(_) => QMatMul::from_arc(embedding.clone())?,
        };
        let norm = tensor("output_norm.weight")?.dequantize(&device)?;
        let mut layers = Vec::with_capacity(config.layers);
        for index in 0..config.layers {
            let mut part = |name: &str| tensor(&format!("blk.{index}.{name}.weight"));
            layers.push(Layer {
                attention_norm: part("attn_norm")?.dequantize(&device)?,
                query: Linear::new(part("attn_q")?, dense)?,
                key: Linear::new(part("attn_k")?, dense)?,
                value: Linear::new(part("attn_v")?, dense)?,
                output: Linear::new(part("attn_output")?, dense)?,
                ffn_norm: part("ffn_norm")?.dequantize(&device)?,
                gate: Linear::new(part("ffn_gate")?, dense)?,
                up: Linear::new(part("ffn_up")?, dense)?,
                down: Linear::new(part("ffn_down")?, dense)?,
            });
        }
        let (cos, sin) = rotary_tables(&config)?;
        Ok((
            Weights {
                config,
                embedding,
                layers,
                norm,
                output,
                cos,
                sin,
            },
            content,
        ))
    }

    /// Runs `tokens` after what `cache` holds, appends them to it, and returns
    /// F32 logits of shape `(positions, vocab)`. Like [`Weights::forward_tree`],
    /// it is one step of a [`crate::ModelJob`]: it fails at once when the job
    /// is cancelled.
    pub fn forward(&self, tokens: &[u32], cache: &mut KvCache, logits: Logits) -> Result<Tensor> {
        crate::job::step(tokens.len())?;
        let seq = tokens.len();
        let start = cache.len;
        self.check_room(start, seq)?;
        let mask = if seq > 1 {
            Some(causal_mask(
                seq,
                start,
                self.config.heads / self.config.kv_heads,
            )?)
        } else {
            None
        };
        let cos = self.cos.narrow(0, start, seq)?;
        let sin = self.sin.narrow(0, start, seq)?;
        let out = self.run(
            tokens,
            cache,
            /*keep*/ true,
            mask.as_ref(),
            &cos,
            &sin,
            logits,
        )?;
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
        let width = start + seq;
        let mut mask = vec![0f32; seq * width];
        for index in 0..seq {
            let row = &mut mask[index * width + start..(index + 1) * width];
            row.fill(f32::NEG_INFINITY);
            let mut visible = Some(index);
            while let Some(ancestor) = visible {
                row[ancestor] = 0.0;
                visible = parents[ancestor];
            }
        }
        let group = self.config.heads / self.config.kv_heads;
        let mask = Tensor::from_vec(mask, (seq, width), &Device::Cpu)?.repeat((group, 1))?;
        let positions: Vec<u32> = depth.iter().map(|d| (start + d) as u32).collect();
        let positions = Tensor::new(positions.as_slice(), &Device::Cpu)?;
        let cos = self.cos.index_select(&positions, 0)?;
        let sin = self.sin.index_select(&positions, 0)?;
        let mut scratch = cache.clone();
        self.run(
            tokens,
            &mut scratch,
            /*keep*/ false,
            Some(&mask),
            &cos,
            &sin,
            Logits::All,
        )
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
    #[allow(clippy::too_many_arguments)]
    fn run(
        &self,
        tokens: &[u32],
        cache: &mut KvCache,
        keep: bool,
        mask: Option<&Tensor>,
        cos: &Tensor,
        sin: &Tensor,
        logits: Logits,
    ) -> Result<Tensor> {
        let seq = tokens.len();
        if cache.layers.len() != self.layers.len() {
            cache.layers = vec![None; self.layers.len()];
        }
        let ids = Tensor::new(tokens, &Device::Cpu)?.unsqueeze(0)?;
        let mut hidden = self.embedding.embedding(&ids)?;
        for (layer, slot) in self.layers.iter().zip(cache.layers.iter_mut()) {
            let normed =
                candle_nn::ops::rms_norm(&hidden, &layer.attention_norm, self.config.rms_eps)?;
            let attended = self.attention(layer, &normed, slot, keep, mask, cos, sin)?;
            hidden = (hidden + attended)?;
            let normed = candle_nn::ops::rms_norm(&hidden, &layer.ffn_norm, self.config.rms_eps)?;
            let gate = candle_nn::ops::silu(&layer.gate.forward(&normed)?)?;
            let mixed = (gate * layer.up.forward(&normed)?)?;
            hidden = (hidden + layer.down.forward(&mixed)?)?;
        }
        let hidden = match logits {
            Logits::Last => hidden.narrow(1, seq - 1, 1)?,
            Logits::All => hidden,
        };
        let hidden = candle_nn::ops::rms_norm(&hidden, &self.norm, self.config.rms_eps)?;
        let out = self.output.forward(&hidden)?;
        Ok(out.squeeze(0)?.to_dtype(DType::F32)?)
    }

    #[allow(clippy::too_many_arguments)]
    fn attention(
        &self,
        layer: &Layer,
        normed: &Tensor,
        slot: &mut Option<(Tensor, Tensor)>,
        keep: bool,
        mask: Option<&Tensor>,
        cos: &Tensor,
        sin: &Tensor,
    ) -> Result<Tensor> {
        let Config {
            heads,
            kv_heads,
            head_dim,
            ..
        } = self.config;
        let (batch, seq, width) = normed.dims3()?;
        let split = |xs: Tensor, count: usize| -> candle_core::Result<Tensor> {
            xs.reshape((batch, seq, count, head_dim))?
                .transpose(1, 2)?
                .contiguous()
        };
        let query = split(layer.query.forward(normed)?, heads)?;
        let key = split(layer.key.forward(normed)?, kv_heads)?;
        let value = split(layer.value.forward(normed)?, kv_heads)?;
        let query = candle_nn::rotary_emb::rope_i(&query, cos, sin)?;
        let key = candle_nn::rotary_emb::rope_i(&key, cos, sin)?;
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
        let scores = match mask {
            Some(mask) => scores.broadcast_add(mask)?,
            None => scores,
        };
        let weights = candle_nn::ops::softmax_last_dim(&scores)?;
        let mixed = weights.matmul(&value)?;
        let mixed = mixed
            .reshape((batch, heads, seq, head_dim))?
            .transpose(1, 2)?
            .reshape((batch, seq, width))?;
        layer.output.forward(&mixed)
    }
}

/// Additive causal mask for `seq` new tokens after `start` cached ones,
/// repeated for the `group` query heads stacked per key/value head.
fn causal_mask(seq: usize, start: usize, group: usize) -> Result<Tensor> {
    let width = start + seq;
    let row: Vec<f32> = (0..seq)
        .flat_map(|i| {
            (0..width).map(move |j| {
                if j > start + i {
                    f32::NEG_INFINITY
                } else {
                    0.0
                }
            })
        })
        .collect();
    let mask = Tensor::from_vec(row, (seq, width), &Device::Cpu)?;
    Ok(mask.repeat((group, 1))?)
}

fn rotary_tables(config: &Config) -> Result<(Tensor, Tensor)> {
    let half = config.head_dim / 2;
    let inverse: Vec<f32> = (0..half)
        .map(|i| {
            1.0 / config
                .rope_base
                .powf(2.0 * i as f32 / config.head_dim as f32)
        })
        .collect();
    let inverse = Tensor::from_vec(inverse, (1, half), &Device::Cpu)?;
    let positions = Tensor::arange(0u32, config.context as u32, &Device::Cpu)?
        .to_dtype(DType::F32)?
        .reshape((config.context, 1))?;
    let angles = positions.matmul(&inverse)?;
    Ok((angles.cos()?, angles.sin()?))
}

fn metadata_string(content: &Content, key: &str) -> Option<String> {
    content
        .metadata
        .get(key)
        .and_then(|value| value.to_string().ok().cloned())
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
    use super::*;

    #[test]
    fn causal_mask_lets_new_tokens_see_the_prefix_and_earlier_tokens_only() {
        let mask = causal_mask(2, 3, 2).unwrap();
        let rows: Vec<Vec<f32>> = mask.to_vec2().unwrap();
        let open = 0.0;
        let shut = f32::NEG_INFINITY;
        let expected = [
            vec![open, open, open, open, shut],
            vec![open, open, open, open, open],
        ];
        assert_eq!(rows[..2], expected[..]);
        assert_eq!(rows[2..], expected[..], "repeated for the second head");
    }
}
