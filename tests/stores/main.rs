//! Each agent's own store read with zero configuration, through the built
//! binary: `candidates` and `prepare` on fixtures written here and on the
//! shared real transcripts (`tests/real_logs`, skipped and said when
//! absent). One module per agent.

#[path = "../real_logs/mod.rs"]
mod real_logs;
#[path = "../skip/mod.rs"]
mod skip;
mod support;

mod aider;
mod big_rows;
mod claude_code;
mod cline;
mod cline_cli;
mod codex;
mod continue_dev;
mod copilot_chat;
mod copilot_cli;
mod cursor;
mod databases;
mod gemini;
mod opencode;
mod pi;
mod qwen_code;
mod side_files;
