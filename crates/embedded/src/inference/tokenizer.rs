//! The model's tokenizer, built from the GGUF file's own metadata.
//!
//! SmolLM2 uses GPT-2-style byte-level BPE: digits are split one by one, then
//! the byte-level pre-tokenizer runs with no prefix space, and the control
//! tokens (`<|im_start|>`, `<|im_end|>`, ...) are matched whole. candle's
//! `TokenizerFromGguf` adds a prefix space to every text, which shifts every
//! token id of this model, so the pipeline is assembled here instead.

use std::collections::HashMap;

use candle_core::quantized::gguf_file::{Content, Value};
use tokenizers::decoders::byte_level::ByteLevel as ByteLevelDecoder;
use tokenizers::models::bpe::{BPE, Vocab};
use tokenizers::pre_tokenizers::PreTokenizerWrapper;
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::pre_tokenizers::digits::Digits;
use tokenizers::pre_tokenizers::sequence::Sequence;
use tokenizers::{AddedToken, Tokenizer as HfTokenizer};

use crate::error::{Error, Result};

/// GGUF `tokenizer.ggml.token_type` of control tokens.
const CONTROL_TOKEN: i64 = 3;

/// Text to token ids and back, with each token's raw bytes at hand for
/// constrained decoding.
pub struct Tokenizer {
    inner: HfTokenizer,
    /// The bytes each token stands for (empty for control tokens).
    bytes: Vec<Vec<u8>>,
    /// Whether each token is a control token such as `<|im_end|>`.
    control: Vec<bool>,
    ids: HashMap<String, u32>,
}

impl std::fmt::Debug for Tokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokenizer")
            .field("vocab_size", &self.bytes.len())
            .finish()
    }
}

impl Tokenizer {
    /// Builds the tokenizer from `tokenizer.ggml.tokens`, `.merges` and
    /// `.token_type`.
    pub fn from_gguf(content: &Content) -> Result<Self> {
        let model = content
            .metadata
            .get("tokenizer.ggml.model")
            .and_then(|value| value.to_string().ok().cloned())
            .unwrap_or_default();
        if model != "gpt2" {
            return Err(Error::Tokenizer(format!(
                "tokenizer.ggml.model is {model:?}; only byte-level BPE (gpt2) is supported"
            )));
        }
        let tokens = string_list(content, "tokenizer.ggml.tokens")?;
        let merges = string_list(content, "tokenizer.ggml.merges")?
            .into_iter()
            .map(|merge| {
                merge
                    .split_once(' ')
                    .map(|(left, right)| (left.to_owned(), right.to_owned()))
                    .ok_or_else(|| {
                        Error::Tokenizer(format!("tokenizer.ggml.merges: bad entry {merge:?}"))
                    })
            })
            .collect::<Result<Vec<_>>>()?;
        let types = content
            .metadata
            .get("tokenizer.ggml.token_type")
            .ok_or_else(|| Error::Tokenizer("tokenizer.ggml.token_type is missing".into()))?
            .to_vec()
            .map_err(|err| Error::Tokenizer(format!("tokenizer.ggml.token_type: {err}")))?
            .iter()
            .map(integer)
            .collect::<Vec<_>>();
        if types.len() != tokens.len() {
            return Err(Error::Tokenizer(format!(
                "{} token types for {} tokens",
                types.len(),
                tokens.len()
            )));
        }

        let ids: HashMap<String, u32> = tokens
            .iter()
            .enumerate()
            .map(|(id, token)| (token.clone(), id as u32))
            .collect();
        let bpe = BPE::builder()
            .vocab_and_merges(
                ids.iter()
                    .map(|(token, id)| (token.clone(), *id))
                    .collect::<Vocab>(),
                merges,
            )
            .build()
            .map_err(|err| Error::Tokenizer(format!("bpe: {err}")))?;
        let mut inner = HfTokenizer::new(bpe);
        inner.with_pre_tokenizer(Some(PreTokenizerWrapper::Sequence(Sequence::new(vec![
            PreTokenizerWrapper::Digits(Digits::new(/*individual_digits*/ true)),
            PreTokenizerWrapper::ByteLevel(ByteLevel::new(
                /*add_prefix_space*/ false, /*trim_offsets*/ true,
                /*use_regex*/ true,
            )),
        ]))));
        inner.with_decoder(Some(ByteLevelDecoder::default()));

        let control: Vec<bool> = types.iter().map(|&kind| kind == CONTROL_TOKEN).collect();
        let specials: Vec<AddedToken> = tokens
            .iter()
            .zip(&control)
            .filter(|(_, is_control)| **is_control)
            .map(|(token, _)| AddedToken::from(token.clone(), /*special*/ true))
            .collect();
        inner
            .add_special_tokens(specials)
            .map_err(|err| Error::Tokenizer(format!("control tokens: {err}")))?;

        let byte_of = unicode_to_byte();
        let bytes = tokens
            .iter()
            .zip(&control)
            .map(|(token, is_control)| {
                if *is_control {
                    Vec::new()
                } else {
                    token
                        .chars()
                        .map(|c| byte_of.get(&c).copied().unwrap_or(b'?'))
                        .collect()
                }
            })
            .collect();
        Ok(Tokenizer {
            inner,
            bytes,
            control,
            ids,
        })
    }

    /// Token ids of `text`. Control tokens written in the text, such as
    /// `<|im_start|>`, become their single ids.
    pub fn encode(&self, text: &str) -> Result<Vec<u32>> {
        let encoding = self
            .inner
            .encode_fast(text, /*add_special_tokens*/ false)
            .map_err(|err| Error::Tokenizer(format!("encode: {err}")))?;
        Ok(encoding.get_ids().to_vec())
    }

    /// The text of `ids`, leaving out control tokens. Bytes that do not form
    /// valid UTF-8 are replaced.
    pub fn decode(&self, ids: &[u32]) -> String {
        let bytes: Vec<u8> = ids
            .iter()
            .flat_map(|&id| self.bytes(id).iter().copied())
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// The raw bytes token `id` stands for; empty for control tokens and ids
    /// outside the vocabulary.
    pub fn bytes(&self, id: u32) -> &[u8] {
        self.bytes.get(id as usize).map_or(&[], Vec::as_slice)
    }

    pub fn is_control(&self, id: u32) -> bool {
        self.control.get(id as usize).copied().unwrap_or(false)
    }

    /// The id of a token by its vocabulary spelling (`<|im_end|>`, `Ġthe`).
    pub fn token_id(&self, token: &str) -> Option<u32> {
        self.ids.get(token).copied()
    }

    pub fn vocab_size(&self) -> usize {
        self.bytes.len()
    }
}

fn string_list(content: &Content, key: &str) -> Result<Vec<String>> {
    let value = content
        .metadata
        .get(key)
        .ok_or_else(|| Error::Tokenizer(format!("{key} is missing")))?;
    value
        .to_vec()
        .map_err(|err| Error::Tokenizer(format!("{key}: {err}")))?
        .iter()
        .map(|item| {
            item.to_string()
                .cloned()
                .map_err(|err| Error::Tokenizer(format!("{key}: {err}")))
        })
        .collect()
}

fn integer(value: &Value) -> i64 {
    match value {
        Value::U8(v) => i64::from(*v),
        Value::I8(v) => i64::from(*v),
        Value::U16(v) => i64::from(*v),
        Value::I16(v) => i64::from(*v),
        Value::U32(v) => i64::from(*v),
        Value::I32(v) => i64::from(*v),
        Value::U64(v) => *v as i64,
        Value::I64(v) => *v,
        _ => -1,
    }
}

/// The inverse of byte-level BPE's byte-to-character table: printable
/// Latin-1 bytes stand for themselves, the other 68 bytes are shifted to
/// code points from U+0100 up, in byte order.
fn unicode_to_byte() -> HashMap<char, u8> {
    let printable =
        |byte: u8| (b'!'..=b'~').contains(&byte) || (0xA1..=0xAC).contains(&byte) || byte >= 0xAE;
    let mut shifted = 0u32;
    (0..=255u8)
        .map(|byte| {
            let code = if printable(byte) {
                u32::from(byte)
            } else {
                shifted += 1;
                255 + shifted
            };
            (char::from_u32(code).unwrap_or('?'), byte)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_table_maps_space_and_newline_like_gpt2() {
        let table = unicode_to_byte();
        assert_eq!(table.len(), 256);
        assert_eq!(table[&'Ġ'], b' ');
        assert_eq!(table[&'Ċ'], b'\n');
        assert_eq!(table[&'A'], b'A');
        assert_eq!(table[&'é'], 0xE9);
    }
}
