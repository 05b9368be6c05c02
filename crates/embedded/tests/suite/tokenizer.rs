//! The tokenizer built from the GGUF metadata. Expected ids come from an
//! independent plain-Python byte-level BPE over the same file's vocabulary
//! and merges (digits split first, no prefix space); `Hello` = 19556 and
//! `<|im_start|>` = 1 are also SmolLM2's published ids.

use pretty_assertions::assert_eq;

use super::model;

#[test]
fn english_encodes_to_known_ids() {
    let tokenizer = model().tokenizer();
    assert_eq!(
        tokenizer.encode("Hello, world!").unwrap(),
        [19556, 28, 905, 17]
    );
    assert_eq!(
        tokenizer
            .encode("The quick brown fox jumps over the lazy dog.")
            .unwrap(),
        [504, 2365, 6354, 16438, 27003, 690, 260, 23790, 2767, 30]
    );
}

#[test]
fn text_has_no_prefix_space() {
    // With a prefix space "What" would be "ĠWhat" (a different id).
    let ids = model()
        .tokenizer()
        .encode("What time is it in Tokyo?")
        .unwrap();
    assert_eq!(ids, [1780, 655, 314, 357, 281, 19081, 47]);
}

#[test]
fn japanese_encodes_to_known_byte_level_ids() {
    assert_eq!(
        model().tokenizer().encode("東京の天気は？").unwrap(),
        [
            30679, 126, 16736, 122, 26453, 18614, 119, 177, 125, 241, 7365, 124, 8083, 249
        ]
    );
}

#[test]
fn digits_are_split_one_by_one() {
    assert_eq!(
        model()
            .tokenizer()
            .encode("I paid $1234.56 for 2 🍕🍕")
            .unwrap(),
        [
            57, 5940, 1885, 33, 34, 35, 36, 30, 37, 38, 327, 216, 34, 15107, 231, 239, 10813, 231,
            239
        ]
    );
}

#[test]
fn emoji_and_code_encode_to_known_ids() {
    let tokenizer = model().tokenizer();
    assert_eq!(
        tokenizer.encode("I love 🦀 and 🍕! 👍🏽").unwrap(),
        [
            57, 2606, 15107, 116, 218, 284, 15107, 231, 239, 17, 15107, 235, 231, 10813, 233, 138
        ]
    );
    assert_eq!(
        tokenizer
            .encode("def add(a, b):\n    return a + b  # 42")
            .unwrap(),
        [
            1604, 803, 24, 81, 28, 278, 727, 472, 1003, 253, 1232, 278, 216, 907, 216, 36, 34
        ]
    );
}

#[test]
fn control_tokens_in_text_are_single_ids() {
    assert_eq!(
        model()
            .tokenizer()
            .encode("<|im_start|>user\nWhat time is it?<|im_end|>\n")
            .unwrap(),
        [1, 4093, 198, 1780, 655, 314, 357, 47, 2, 198]
    );
}

#[test]
fn decoding_undoes_encoding() {
    let tokenizer = model().tokenizer();
    for text in [
        "Hello, world!",
        "東京の天気は？明日は雨が降りますか。",
        "北京今天天气怎么样？",
        "I love 🦀 and 🍕! 👍🏽 👨‍👩‍👧",
        "fn main() {\n    println!(\"{}\", 1 + 2);\n}\n",
        "  leading and trailing spaces  ",
        "tabs\tand\r\nwindows lines",
        "Ünïcödé — “quotes” …",
    ] {
        let ids = tokenizer.encode(text).unwrap();
        assert_eq!(tokenizer.decode(&ids), text);
    }
}

#[test]
fn decoding_leaves_out_control_tokens() {
    let tokenizer = model().tokenizer();
    let ids = tokenizer
        .encode("<|im_start|>assistant\nHi<|im_end|>")
        .unwrap();
    assert_eq!(tokenizer.decode(&ids), "assistant\nHi");
    assert!(tokenizer.is_control(1));
    assert_eq!(tokenizer.token_id("<|im_end|>"), Some(2));
    assert_eq!(tokenizer.vocab_size(), 49152);
}
