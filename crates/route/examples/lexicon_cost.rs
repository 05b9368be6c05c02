//! What the Chinese and Japanese lexicon costs: loading it (once per
//! process, on the first CJK message) and reading a message with it, beside
//! the glossary's reading of the same message as the baseline.
//!
//! ```sh
//! cargo run --release -p riverse-route --example lexicon_cost
//! ```
//!
//! Loading is timed in fresh processes (the example runs itself with
//! `--load-once`), reading over many rounds; medians are printed.

use std::hint::black_box;
use std::process::Command;
use std::time::{Duration, Instant};

use riverse_route::{glossary, lexicon};

const MESSAGES: [&str; 6] = [
    "取消搬家订单 M-9012",
    "我昨天在地铁1号线丢了一把蓝色的雨伞，联系邮箱 li.wei@qq.com",
    "给我看一下联赛进球最多的前十名",
    "一部リーグの順位表を見せて",
    "届出番号LR-90021の状況はどうなっていますか",
    "在庫に赤いバルキーの毛糸はある？",
];

const LOADS: usize = 15;
const ROUNDS: usize = 2_000;

fn main() {
    if std::env::args().any(|arg| arg == "--load-once") {
        let started = Instant::now();
        black_box(lexicon::english_words("毛糸を"));
        black_box(lexicon::english_words("毛线"));
        println!("{}", started.elapsed().as_micros());
        return;
    }
    let me = std::env::current_exe().expect("the example's own path");
    let loads: Vec<Duration> = (0..LOADS)
        .map(|_| {
            let output = Command::new(&me)
                .arg("--load-once")
                .output()
                .expect("the example runs itself");
            let micros: u64 = String::from_utf8_lossy(&output.stdout)
                .trim()
                .parse()
                .expect("a time in microseconds");
            Duration::from_micros(micros)
        })
        .collect();
    println!(
        "loading both lexicons (first CJK message): median {:?} over {LOADS} processes",
        median(loads)
    );
    let glossary = per_message(|message| glossary::glosses(message).len());
    let lexicon = per_message(|message| lexicon::unglossed_english_words(message).len());
    println!("reading a message, glossary (baseline): median {glossary:?}");
    println!(
        "reading a message, lexicon beside the glossary: median {lexicon:?} ({:.1}× the glossary)",
        lexicon.as_secs_f64() / glossary.as_secs_f64()
    );
}

/// The median time `read` takes per message over [`MESSAGES`].
fn per_message(read: impl Fn(&str) -> usize) -> Duration {
    let rounds: Vec<Duration> = (0..ROUNDS)
        .map(|_| {
            let started = Instant::now();
            for message in MESSAGES {
                black_box(read(black_box(message)));
            }
            started.elapsed() / MESSAGES.len() as u32
        })
        .collect();
    median(rounds)
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}
