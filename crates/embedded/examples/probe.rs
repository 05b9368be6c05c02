use riverse_embedded::*;
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let t = std::time::Instant::now();
    let model = EmbeddedModel::load_file(std::path::Path::new(&path)).unwrap();
    eprintln!("load {:?}", t.elapsed());
    for text in [
        "Hello, world!",
        "東京の天気は？",
        "I paid $1234.56 for 2 🍕🍕",
        "<|im_start|>user\nWhat time is it?<|im_end|>\n",
    ] {
        eprintln!("{:?} {:?}", text, model.tokenizer().encode(text).unwrap());
    }
    let prompt = "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n<|im_start|>user\nWrite a short poem about the sea.<|im_end|>\n<|im_start|>assistant\n";
    let long = prompt.repeat(8);
    let c = model.complete(&long, 1, &mut |_| {}).unwrap();
    eprintln!(
        "prefill {} tokens {:?} = {:.1} tok/s",
        c.prompt_tokens,
        c.prompt_time,
        c.prompt_tokens as f64 / c.prompt_time.as_secs_f64()
    );
    let c = model
        .complete(prompt, 100, &mut |p| eprint!("{p}"))
        .unwrap();
    eprintln!(
        "\ngen {} tokens {:?} = {:.1} tok/s",
        c.generated_tokens,
        c.generation_time,
        c.generated_tokens as f64 / c.generation_time.as_secs_f64()
    );
}
