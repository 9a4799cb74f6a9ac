//! OpenCode's older `storage/` tree: any bytes as a session file parse
//! without a panic; what parses is a row named by its file, whose revert
//! (when any) is a JSON object the projection reads.
#![no_main]

use hydra_session_lsp::store::opencode::tree::parse_session;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some(row) = parse_session("ses_fuzz", data) {
        assert_eq!(row.id, "ses_fuzz");
        assert_eq!(row.worktree, None);
        if let Some(revert) = &row.revert {
            assert!(revert.starts_with('{') && revert.ends_with('}'), "{revert}");
        }
    }
});
