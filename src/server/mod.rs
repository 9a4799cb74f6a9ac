//! The language server: the protocol edge over the core.

pub mod position;
pub mod to_proto;

/// Runs the language server on stdin/stdout until `exit` or stdin EOF.
/// Returns the process exit status (0 after `shutdown`, 1 without).
pub fn run_stdio() -> i32 {
    eprintln!("hydra-session-lsp: the language server is not built yet");
    1
}
