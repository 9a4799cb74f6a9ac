//! Generates a large, realistic Claude Code transcript for benchmarks.
//!
//! ```sh
//! cargo run --release --example gen_claude_log -- OUT.jsonl [SIZE_MB]
//! ```
//!
//! Turns shaped like Claude Code 2.1's: a string prompt, an assistant
//! message split over thinking / text / tool_use lines sharing one
//! `message.id`, tool results (some large, with `<system-reminder>`
//! inside), progress, file-history-snapshot and queue-operation lines, an
//! `isMeta` caveat and wrapper-only command lines, a rewind now and then
//! (a side branch left behind), inline sidechain lines, four 1 MiB tool
//! results, and one compaction (boundary + summary) at the middle. About
//! 2 KB per line. Deterministic: the same size gives the same bytes.

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

const SID: &str = "bench-claude-0000-0000-000000000000";

/// A tiny xorshift generator: deterministic, no dependency.
struct Gen(u64);

impl Gen {
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

    fn text_between(&mut self, min: usize, spread: u64) -> String {
        let extra = (self.next() % spread) as usize;
        self.text(min + extra)
    }
}

struct Out {
    w: BufWriter<File>,
    written: u64,
    n: u64,
    gen: Gen,
}

impl Out {
    fn emit(&mut self, line: String) -> std::io::Result<()> {
        self.written += line.len() as u64 + 1;
        self.w.write_all(line.as_bytes())?;
        self.w.write_all(b"\n")
    }

    fn uuid(&mut self) -> String {
        self.n += 1;
        format!("00000000-0000-4000-8000-{:012x}", self.n)
    }

    fn common(&self, parent: &Option<String>, uuid: &str, side: bool) -> String {
        let parent = parent
            .as_ref()
            .map_or("null".to_string(), |p| format!("\"{p}\""));
        format!(
            r#""parentUuid":{parent},"isSidechain":{side},"userType":"external","cwd":"/home/ana/shop","sessionId":"{SID}","version":"2.1.7","gitBranch":"main","uuid":"{uuid}","timestamp":"2026-01-14T19:{:02}:{:02}.{:03}Z""#,
            self.n / 3600 % 60,
            self.n / 60 % 60,
            self.n % 1000
        )
    }

    fn user(
        &mut self,
        parent: &Option<String>,
        content: String,
        extra: &str,
    ) -> std::io::Result<String> {
        let uuid = self.uuid();
        let line = format!(
            r#"{{{},"type":"user","message":{{"role":"user","content":{content}}}{extra}}}"#,
            self.common(parent, &uuid, false)
        );
        self.emit(line)?;
        Ok(uuid)
    }

    fn assistant(
        &mut self,
        parent: &Option<String>,
        msg: &str,
        block: String,
        side: bool,
    ) -> std::io::Result<String> {
        let uuid = self.uuid();
        let line = format!(
            r#"{{{},"message":{{"model":"claude-sonnet-4-5-20250929","id":"{msg}","type":"message","role":"assistant","content":[{block}],"stop_reason":null,"usage":{{"input_tokens":3,"output_tokens":4}}}},"requestId":"req_{msg}","type":"assistant"}}"#,
            self.common(parent, &uuid, side)
        );
        self.emit(line)?;
        Ok(uuid)
    }
}

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let out = args
        .next()
        .unwrap_or_else(|| "bench-data/claude.jsonl".to_string());
    let size_mb: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(100);
    let target = size_mb * 1_000_000;
    if let Some(dir) = std::path::Path::new(&out).parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut o = Out {
        w: BufWriter::with_capacity(1 << 20, File::create(&out)?),
        written: 0,
        n: 0,
        gen: Gen(0x2545_f491_4f6c_dd1d),
    };
    o.emit(r#"{"type":"summary","summary":"Another session's topic","leafUuid":"ffffffff-0000-4000-8000-000000000000"}"#.into())?;
    let mut compacted = false;
    let mut big_marks = vec![target * 7 / 8, target * 5 / 8, target * 3 / 8, target / 8];
    let mut parent: Option<String> = None;
    let mut turn = 0u64;
    while o.written < target {
        turn += 1;
        if turn.is_multiple_of(7) {
            o.emit(format!(
                r#"{{"type":"file-history-snapshot","messageId":"m{turn}","snapshot":{{"messageId":"m{turn}","trackedFileBackups":{{"src/cart.rs":{{"backupFileName":"b@v{turn}","version":{turn},"backupTime":"2026-01-14T19:20:03.207Z"}}}},"timestamp":"2026-01-14T19:20:03.207Z"}},"isSnapshotUpdate":false}}"#
            ))?;
        }
        if !compacted && o.written >= target / 2 {
            compacted = true;
            let uuid = o.uuid();
            let boundary = format!(
                r#"{{"parentUuid":null,"logicalParentUuid":{},"isSidechain":false,"sessionId":"{SID}","type":"system","subtype":"compact_boundary","content":"Conversation compacted","compactMetadata":{{"trigger":"auto","preTokens":170000}},"uuid":"{uuid}","timestamp":"2026-01-14T20:00:00.000Z"}}"#,
                parent
                    .as_ref()
                    .map_or("null".into(), |p| format!("\"{p}\""))
            );
            o.emit(boundary)?;
            let summary = o.gen.text(6000);
            parent = Some(o.user(
                &Some(uuid),
                summary,
                r#","isCompactSummary":true,"isVisibleInTranscriptOnly":true"#,
            )?);
        }
        if turn.is_multiple_of(25) {
            // A slash command: caveat (isMeta), wrappers only, its output.
            let caveat = r#""<local-command-caveat>Caveat: The messages below were generated by the user while running local commands.</local-command-caveat>""#;
            let p = o.user(&parent, caveat.into(), r#","isMeta":true"#)?;
            let p = o.user(&Some(p), r#""<command-name>/mcp</command-name>\n            <command-message>mcp</command-message>\n            <command-args></command-args>""#.into(), "")?;
            parent = Some(o.user(
                &Some(p),
                r#""<local-command-stdout>Reconnected.</local-command-stdout>""#.into(),
                "",
            )?);
        }
        let prompt = o.gen.text_between(80, 600);
        let asked = o.user(&parent, prompt, "")?;
        if turn.is_multiple_of(11) {
            // A rewind: this answer is abandoned, the prompt asked again.
            let msg = format!("msg_rewound_{turn}");
            let text = o.gen.text(800);
            o.assistant(
                &Some(asked.clone()),
                &msg,
                format!(r#"{{"type":"text","text":{text}}}"#),
                false,
            )?;
        }
        let msg = format!("msg_bdrk_{turn:012}");
        let thinking = o.gen.text_between(300, 2000);
        let p = o.assistant(
            &Some(asked),
            &msg,
            format!(r#"{{"type":"thinking","thinking":{thinking},"signature":"EsYBCkYICBgCKkD"}}"#),
            false,
        )?;
        let text = o.gen.text_between(200, 1500);
        let p = o.assistant(
            &Some(p),
            &msg,
            format!(r#"{{"type":"text","text":{text}}}"#),
            false,
        )?;
        let input = o.gen.text_between(200, 1200);
        let tool = format!("toolu_{turn:012}");
        let p = o.assistant(&Some(p), &msg, format!(r#"{{"type":"tool_use","id":"{tool}","name":"Edit","input":{{"file_path":"/home/ana/shop/src/cart.rs","old_string":{input},"new_string":"x"}}}}"#), false)?;
        let progress_uuid = o.uuid();
        let progress = format!(
            r#"{{{},"type":"progress","data":{{"type":"hook_progress","hookEvent":"PostToolUse","hookName":"PostToolUse:Edit","command":"callback"}},"parentToolUseID":"{tool}","toolUseID":"{tool}"}}"#,
            o.common(&Some(p.clone()), &progress_uuid, false)
        );
        o.emit(progress)?;
        let size = if big_marks.last().is_some_and(|&m| o.written >= m) {
            big_marks.pop();
            1 << 20
        } else {
            1000 + (o.gen.next() % 6000) as usize
        };
        let result = o.gen.text(size);
        let content = format!(
            r#"[{{"tool_use_id":"{tool}","type":"tool_result","content":[{{"type":"text","text":{result}}},{{"type":"text","text":"<system-reminder>\nWhenever you read a file, check it.\n</system-reminder>"}}]}}]"#
        );
        let r = o.user(&Some(p), content, r#","toolUseResult":{"filePath":"/home/ana/shop/src/cart.rs","oldString":"a","newString":"x","structuredPatch":[],"userModified":false}"#)?;
        if turn.is_multiple_of(13) {
            // An old inline sub-agent exchange: never on the main surface.
            let side = o.gen.text(600);
            o.assistant(
                &Some(r.clone()),
                &format!("msg_side_{turn}"),
                format!(r#"{{"type":"text","text":{side}}}"#),
                true,
            )?;
        }
        if turn.is_multiple_of(9) {
            o.emit(format!(
                r#"{{"type":"queue-operation","operation":"enqueue","timestamp":"2026-01-14T19:20:03.207Z","sessionId":"{SID}","content":"/mcp"}}"#
            ))?;
        }
        let reply_msg = format!("msg_reply_{turn:012}");
        let reply = o.gen.text_between(300, 2500);
        parent = Some(o.assistant(
            &Some(r),
            &reply_msg,
            format!(r#"{{"type":"text","text":{reply}}}"#),
            false,
        )?);
    }
    o.w.flush()
}
