//! Generates a large, realistic session log for benchmarks.
//!
//! ```sh
//! cargo run --release --example gen_log -- OUT.jsonl [SIZE_MB]
//! ```
//!
//! About 600 events per MB (60,000 for 100 MB) of every kind (user and assistant messages with
//! reasoning and tool calls, deltas, tool results, titles, plugin messages,
//! unknown events), a few 1 MiB assistant messages, and one compaction near
//! the middle. Deterministic: the same size gives the same bytes.

use std::fs::File;
use std::io::{BufWriter, Write};

const WORDS: &[&str] = &[
    "cart",
    "tax",
    "rounding",
    "checkout",
    "</referenced-sessions>",
    "naïve",
    "会话",
    "😀",
    "quote\"d",
    "back\\slash",
    "tab\there",
    "line\nbreak",
    "x<y",
    "deploy",
    "inventory",
    "refactor",
    "test",
    "cache",
];

/// A tiny xorshift generator: deterministic, no dependency.
struct Gen(u64);

impl Gen {
    /// A JSON string of `min` to `min + spread` bytes.
    fn text_between(&mut self, min: usize, spread: u64) -> String {
        let extra = (self.next() % spread) as usize;
        self.text(min + extra)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A JSON string of about `len` bytes of words.
    fn text(&mut self, len: usize) -> String {
        let mut s = String::with_capacity(len + 16);
        while s.len() < len {
            s.push_str(WORDS[(self.next() % WORDS.len() as u64) as usize]);
            s.push(' ');
        }
        serde_json::to_string(&s).unwrap_or_default()
    }
}

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let out = args
        .next()
        .unwrap_or_else(|| "bench-data/big.jsonl".to_string());
    let size_mb: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(100);
    let target = size_mb * 1_000_000;
    if let Some(dir) = std::path::Path::new(&out).parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut w = BufWriter::with_capacity(1 << 20, File::create(&out)?);
    let mut written = 0u64;
    let emit = |w: &mut BufWriter<File>, written: &mut u64, line: String| -> std::io::Result<()> {
        *written += line.len() as u64 + 1;
        w.write_all(line.as_bytes())?;
        w.write_all(b"\n")
    };
    emit(
        &mut w,
        &mut written,
        r#"{"type":"session","version":1,"id":"bench-big","createdAt":1764400000000,"cwd":"/home/ana/shop"}"#.into(),
    )?;
    let mut gen = Gen(0x2545_f491_4f6c_dd1d);
    // Byte marks: the compaction at the middle, 1 MiB messages at 1/8,
    // 3/8, 5/8 and 7/8 of the log.
    let mut compacted = false;
    let mut big_marks = vec![target * 7 / 8, target * 5 / 8, target * 3 / 8, target / 8];
    let mut seq = 0u64;
    while written < target {
        seq += 1;
        let line = if !compacted && written >= target / 2 {
            compacted = true;
            format!(
                r#"{{"seq":{seq},"type":"user/message","data":{{"id":"c{seq}","source":{{"kind":"compaction","marker":"@hydraharness/harness-compaction","throughSeq":{}}},"content":[{{"type":"text","text":{}}}]}}}}"#,
                seq - 1,
                gen.text(4000)
            )
        } else if big_marks.last().is_some_and(|&mark| written >= mark) {
            big_marks.pop();
            format!(
                r#"{{"seq":{seq},"type":"assistant/message","data":{{"message":{{"id":"a{seq}","content":[{{"type":"text","text":{}}}]}}}}}}"#,
                gen.text(1 << 20)
            )
        } else {
            match seq % 10 {
                0 | 5 => format!(
                    r#"{{"seq":{seq},"type":"user/message","data":{{"id":"u{seq}","source":{{"kind":"user"}},"content":[{{"type":"text","text":{}}}]}}}}"#,
                    gen.text_between(300, 1100)
                ),
                1 | 6 => format!(
                    r#"{{"seq":{seq},"type":"assistant/delta","data":{{"messageId":"a{seq}","text":{}}}}}"#,
                    gen.text(40)
                ),
                2 | 7 => format!(
                    r#"{{"seq":{seq},"type":"assistant/message","data":{{"message":{{"id":"a{seq}","content":[{{"type":"reasoning","text":{}}},{{"type":"text","text":{}}},{{"type":"tool_call","id":"t{seq}","name":"read","input":{{"path":"src/cart.rs"}}}}]}}}}}}"#,
                    gen.text(300),
                    gen.text_between(700, 3600)
                ),
                3 | 8 => format!(
                    r#"{{"seq":{seq},"type":"tool/result","data":{{"callId":"t{seq}","content":[{{"type":"text","text":{}}}]}}}}"#,
                    gen.text_between(1200, 2800)
                ),
                4 => format!(
                    r#"{{"seq":{seq},"type":"session/title","data":{{"title":"Bench session {seq}"}}}}"#
                ),
                _ => format!(
                    r#"{{"seq":{seq},"type":"user/message","data":{{"id":"p{seq}","source":{{"kind":"plugin","plugin":"lint"}},"content":[{{"type":"text","text":{}}}]}},"future":{{"x":[1,2,3]}}}}"#,
                    gen.text(300)
                ),
            }
        };
        emit(&mut w, &mut written, line)?;
    }
    w.flush()?;
    eprintln!("wrote {out}: {seq} events, {written} bytes");
    Ok(())
}
