//! Running the model: GGUF weights and the llama forward pass ([`model`]),
//! the tokenizer built from the GGUF metadata, prefilling, scoring and
//! generating on forked states ([`engine`]), the ChatML template, and
//! prefilled prompts saved between processes ([`prompt_cache`]).

pub(crate) mod chatml;
pub(crate) mod engine;
pub(crate) mod generate;
pub(crate) mod model;
pub(crate) mod prompt_cache;
pub(crate) mod tokenizer;
