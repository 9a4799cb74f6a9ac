//! The command line over the built binary, one module per command or
//! concern: settings and exit codes, text outputs, the Claude Code hook,
//! prompts shaped by the program, search, spills, and what packaging
//! promises.

#[path = "../real_logs/mod.rs"]
mod real_logs;
#[path = "../skip/mod.rs"]
mod skip;

mod agent_prompts;
mod commands;
mod formats;
mod help_words;
mod hook;
mod packaging;
mod search;
mod spill;
mod team;
