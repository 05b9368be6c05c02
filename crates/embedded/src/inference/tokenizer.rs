//! The model's tokenizer, built from the GGUF file's own metadata.
//!
//! SmolLM2 uses GPT-2-style byte-level BPE: digits are split one by one, then
//! the byte-level pre-tokenizer runs with no prefix space, and the control
//! tokens (`<|im_start|>`, `<|im_end|>`, ...) are matched whole. candle's
//! `TokenizerFromGguf` adds a prefix space to every text, which shifts every
//! token id of this model, so the pipeline is assembled here instead. Gemma 3
//! uses SentencePiece BPE, rebuilt from the pieces' scores.

use std::collections::HashMap;

use candle_core::quantized::gguf_file::{Content, Value};
use tokenizers::decoders::byte_level::ByteLevel as ByteLevelDecoder;
use tokenizers::models::bpe::{BPE, Vocab};
use tokenizers::normalizers::replace::Replace;
use tokenizers::pre_tokenizers::PreTokenizerWrapper;
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::pre_tokenizers::digits::Digits;
use tokenizers::pre_tokenizers::sequence::Sequence;
use tokenizers::{AddedToken, Tokenizer as HfTokenizer};

use crate::error::{Error, Result};

/// GGUF `tokenizer.ggml.token_type` of ordinary pieces.
const NORMAL_TOKEN: i64 = 1;
/// GGUF `tokenizer.ggml.token_type` of control tokens.
const CONTROL_TOKEN: i64 = 3;
/// GGUF `tokenizer.ggml.token_type` of pieces matched whole (space runs).
const USER_DEFINED_TOKEN: i64 = 4;
/// GGUF `tokenizer.ggml.token_type` of `<0xNN>` byte tokens.
const BYTE_TOKEN: i64 = 6;

/// How SentencePiece writes a space.
const SPACE: &str = "\u{2581}";

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
        match model.as_str() {
            "gpt2" => Self::byte_level_bpe(content),
            "llama" => Self::sentencepiece_bpe(content),
            _ => Err(Error::Tokenizer(format!(
                "tokenizer.ggml.model is {model:?}; only byte-level BPE (gpt2) and \
                 SentencePiece (llama) are supported"
            ))),
        }
    }

    fn byte_level_bpe(content: &Content) -> Result<Self> {
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
        let types = token_types(content, tokens.len())?;

        let ids = token_ids(&tokens);
        let mut inner = bpe_tokenizer(&ids, merges, /*byte_fallback*/ false)?;
        inner.with_pre_tokenizer(Some(PreTokenizerWrapper::Sequence(Sequence::new(vec![
            PreTokenizerWrapper::Digits(Digits::new(/*individual_digits*/ true)),
            PreTokenizerWrapper::ByteLevel(ByteLevel::new(
                /*add_prefix_space*/ false, /*trim_offsets*/ true,
                /*use_regex*/ true,
            )),
        ]))));
        inner.with_decoder(Some(ByteLevelDecoder::default()));

        let control = add_control_tokens(&mut inner, &tokens, &types)?;

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

    /// Gemma's tokenizer: SentencePiece BPE over the text with spaces written
    /// `▁`, pieces merged in the order of their scores, bytes outside the
    /// vocabulary as `<0xNN>` tokens. The GGUF file keeps scores, not merges,
    /// so the merges are rebuilt: every split of a piece into two pieces is a
    /// merge ranked by the whole piece's score, which is how SentencePiece
    /// itself picks the next pair. User-defined pieces (newline and space
    /// runs) are matched whole before that, control tokens too.
    fn sentencepiece_bpe(content: &Content) -> Result<Self> {
        let tokens = string_list(content, "tokenizer.ggml.tokens")?;
        let types = token_types(content, tokens.len())?;
        let scores = number_list(content, "tokenizer.ggml.scores", tokens.len())?;
        let ids = token_ids(&tokens);
        let mergeable = |id: usize| types[id] == NORMAL_TOKEN;
        let mut ranked: Vec<(f64, usize, (String, String))> = Vec::new();
        for (id, piece) in tokens.iter().enumerate().filter(|(id, _)| mergeable(*id)) {
            for (cut, _) in piece.char_indices().skip(1) {
                let (left, right) = piece.split_at(cut);
                let known = |part: &str| ids.get(part).is_some_and(|&id| mergeable(id as usize));
                if known(left) && known(right) {
                    ranked.push((scores[id], id, (left.to_owned(), right.to_owned())));
                }
            }
        }
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let merges = ranked.into_iter().map(|(_, _, pair)| pair).collect();
        let mut inner = bpe_tokenizer(&ids, merges, /*byte_fallback*/ true)?;
        let spaces = Replace::new(" ", SPACE)
            .map_err(|err| Error::Tokenizer(format!("space normalizer: {err}")))?;
        inner
            .with_normalizer(Some(spaces))
            .map_err(|err| Error::Tokenizer(format!("space normalizer: {err}")))?;
        let control = add_control_tokens(&mut inner, &tokens, &types)?;
        let user_defined: Vec<AddedToken> = of_type(&tokens, &types, USER_DEFINED_TOKEN)
            .map(|token| AddedToken::from(token.clone(), /*special*/ false).normalized(false))
            .collect();
        inner
            .add_tokens(user_defined)
            .map_err(|err| Error::Tokenizer(format!("user-defined tokens: {err}")))?;
        let bytes = tokens
            .iter()
            .zip(&types)
            .map(|(token, &kind)| match kind {
                CONTROL_TOKEN => Vec::new(),
                BYTE_TOKEN => byte_token(token).map_or_else(Vec::new, |byte| vec![byte]),
                _ => token.replace(SPACE, " ").into_bytes(),
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

/// `tokenizer.ggml.token_type`: one kind per token.
fn token_types(content: &Content, tokens: usize) -> Result<Vec<i64>> {
    Ok(number_list(content, "tokenizer.ggml.token_type", tokens)?
        .into_iter()
        .map(|kind| kind as i64)
        .collect())
}

/// The tokens of one kind.
fn of_type<'a>(
    tokens: &'a [String],
    types: &'a [i64],
    kind: i64,
) -> impl Iterator<Item = &'a String> {
    tokens
        .iter()
        .zip(types)
        .filter(move |(_, t)| **t == kind)
        .map(|(token, _)| token)
}

/// Makes the control tokens match whole, and returns which tokens they are.
fn add_control_tokens(
    inner: &mut HfTokenizer,
    tokens: &[String],
    types: &[i64],
) -> Result<Vec<bool>> {
    let specials: Vec<AddedToken> = of_type(tokens, types, CONTROL_TOKEN)
        .map(|token| AddedToken::from(token.clone(), /*special*/ true))
        .collect();
    inner
        .add_special_tokens(specials)
        .map_err(|err| Error::Tokenizer(format!("control tokens: {err}")))?;
    Ok(types.iter().map(|&kind| kind == CONTROL_TOKEN).collect())
}

/// Each token's id by its spelling.
fn token_ids(tokens: &[String]) -> HashMap<String, u32> {
    tokens
        .iter()
        .enumerate()
        .map(|(id, token)| (token.clone(), id as u32))
        .collect()
}

/// A BPE tokenizer over `ids` with `merges` in order of rank.
fn bpe_tokenizer(
    ids: &HashMap<String, u32>,
    merges: Vec<(String, String)>,
    byte_fallback: bool,
) -> Result<HfTokenizer> {
    let vocab = ids
        .iter()
        .map(|(token, id)| (token.clone(), *id))
        .collect::<Vocab>();
    let bpe = BPE::builder()
        .vocab_and_merges(vocab, merges)
        .byte_fallback(byte_fallback)
        .build()
        .map_err(|err| Error::Tokenizer(format!("bpe: {err}")))?;
    Ok(HfTokenizer::new(bpe))
}

/// A list of numbers of one entry per token.
fn number_list(content: &Content, key: &str, tokens: usize) -> Result<Vec<f64>> {
    let values = content
        .metadata
        .get(key)
        .ok_or_else(|| Error::Tokenizer(format!("{key} is missing")))?
        .to_vec()
        .map_err(|err| Error::Tokenizer(format!("{key}: {err}")))?
        .iter()
        .map(|value| match value {
            Value::F32(v) => f64::from(*v),
            Value::F64(v) => *v,
            other => integer(other) as f64,
        })
        .collect::<Vec<_>>();
    if values.len() != tokens {
        return Err(Error::Tokenizer(format!(
            "{key} has {} entries for {tokens} tokens",
            values.len()
        )));
    }
    Ok(values)
}

/// The byte a SentencePiece byte token such as `<0x0A>` stands for.
fn byte_token(token: &str) -> Option<u8> {
    let hex = token.strip_prefix("<0x")?.strip_suffix('>')?;
    u8::from_str_radix(hex, 16).ok()
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
    use candle_core::quantized::gguf_file;

    /// A SentencePiece vocabulary: control tokens, two user-defined pieces,
    /// the bytes of `é`, and pieces whose scores make `bc` merge before `ab`.
    fn sentencepiece() -> Tokenizer {
        let pieces: [(&str, i64, f32); 15] = [
            ("<pad>", CONTROL_TOKEN, 0.0),
            ("<eos>", CONTROL_TOKEN, 0.0),
            ("<bos>", CONTROL_TOKEN, 0.0),
            ("<start_of_turn>", CONTROL_TOKEN, 0.0),
            ("\n", USER_DEFINED_TOKEN, 0.0),
            ("  ", USER_DEFINED_TOKEN, 0.0),
            ("<0xC3>", BYTE_TOKEN, 0.0),
            ("<0xA9>", BYTE_TOKEN, 0.0),
            ("a", NORMAL_TOKEN, -10.0),
            ("b", NORMAL_TOKEN, -11.0),
            ("c", NORMAL_TOKEN, -12.0),
            ("\u{2581}", NORMAL_TOKEN, -13.0),
            ("ab", NORMAL_TOKEN, -5.0),
            ("bc", NORMAL_TOKEN, -4.0),
            ("\u{2581}ab", NORMAL_TOKEN, -3.0),
        ];
        let list = |values: Vec<Value>| Value::Array(values);
        let metadata = [
            ("tokenizer.ggml.model", Value::String("llama".into())),
            (
                "tokenizer.ggml.tokens",
                list(pieces.iter().map(|p| Value::String(p.0.into())).collect()),
            ),
            (
                "tokenizer.ggml.token_type",
                list(pieces.iter().map(|p| Value::I32(p.1 as i32)).collect()),
            ),
            (
                "tokenizer.ggml.scores",
                list(pieces.iter().map(|p| Value::F32(p.2)).collect()),
            ),
        ];
        let metadata: Vec<(&str, &Value)> = metadata.iter().map(|(k, v)| (*k, v)).collect();
        let mut file = std::io::Cursor::new(Vec::new());
        gguf_file::write(&mut file, &metadata, &[]).unwrap();
        file.set_position(0);
        Tokenizer::from_gguf(&Content::read(&mut file).unwrap()).unwrap()
    }

    #[test]
    fn sentencepiece_merges_the_best_scored_pair_first() {
        let tokenizer = sentencepiece();
        // `bc` outscores `ab`, so "abc" is a + bc, not ab + c.
        assert_eq!(tokenizer.encode("abc").unwrap(), [8, 13]);
        assert_eq!(tokenizer.encode("ab ab").unwrap(), [12, 14], "a space is ▁");
        assert_eq!(tokenizer.decode(&[12, 14]), "ab ab");
    }

    #[test]
    fn sentencepiece_matches_user_defined_and_control_pieces_whole() {
        let tokenizer = sentencepiece();
        assert_eq!(
            tokenizer.encode("<start_of_turn>a\nb  c").unwrap(),
            [3, 8, 4, 9, 5, 10]
        );
        assert!(tokenizer.is_control(3));
        assert_eq!(tokenizer.decode(&[3, 8, 4, 9]), "a\nb");
    }

    #[test]
    fn sentencepiece_falls_back_to_bytes() {
        let tokenizer = sentencepiece();
        assert_eq!(tokenizer.encode("é").unwrap(), [6, 7]);
        assert_eq!(tokenizer.decode(&[6, 7]), "é");
    }

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
