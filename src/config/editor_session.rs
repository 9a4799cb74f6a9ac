//! The agent session whose prompt is being edited, when the editor runs
//! inside an agent's external-editor route (Ctrl+G in Claude Code and
//! Codex; README, "Inside the agents"). That session is `self`: never
//! offered, never referenced — the hook would block a mention of it.
//!
//! What each agent tells its editor (checked on Claude Code 2.1.332 and
//! Codex 0.171.0; neither documents it):
//!
//! - Claude Code runs `$EDITOR /tmp/claude-<uid>/claude-prompt-<uuid>.md`,
//!   a fresh uuid per edit (not the session's id), and sets no session id
//!   in the editor's environment. It does pass on
//!   `CLAUDE_CODE_MESSAGING_SOCKET=…/<pid>.sock`, and keeps
//!   `<claude config>/sessions/<pid>.json` naming that process's
//!   `sessionId` and socket. When both agree, that is the session.
//! - Codex runs `$VISUAL`/`$EDITOR` on `<cwd>/.codex/editor/.tmpXXXXXX.md`
//!   with its own environment, which names no thread: nothing tells the
//!   editor which session it edits.

use std::ffi::OsStr;
use std::path::Path;
use std::sync::OnceLock;

use super::paths;

/// The variable Claude Code passes to the processes it starts.
const CLAUDE_SOCKET: &str = "CLAUDE_CODE_MESSAGING_SOCKET";

/// A session file is a few hundred bytes; more is not one.
const MAX_SESSION_FILE: u64 = 64 * 1024;

/// The session this process was started to edit the prompt of, read once
/// from the environment; `None` outside an agent or when it cannot tell.
pub fn launching_session() -> Option<String> {
    static SESSION: OnceLock<Option<String>> = OnceLock::new();
    SESSION
        .get_or_init(|| {
            let socket = std::env::var_os(CLAUDE_SOCKET)?;
            claude_session(&socket, &paths::claude_config_dir()?)
        })
        .clone()
}

/// The Claude Code session of the process whose messaging socket is
/// `socket`, from `<claude_dir>/sessions/<pid>.json`: only when that file
/// names the same process and the same socket.
pub fn claude_session(socket: &OsStr, claude_dir: &Path) -> Option<String> {
    let socket = socket.to_str()?;
    let pid = Path::new(socket)
        .file_name()?
        .to_str()?
        .strip_suffix(".sock")?;
    if pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Through fsio: a FIFO planted there answers at once, never hangs.
    let path = claude_dir.join("sessions").join(format!("{pid}.json"));
    let bytes = crate::fsio::read_side_file(&path, MAX_SESSION_FILE).ok()?;
    let entry: SessionFile = serde_json::from_slice(&bytes).ok()?;
    let same_process = entry.pid.to_string() == pid;
    let same_socket = entry.messaging_socket_path.as_deref() == Some(socket);
    (same_process && same_socket && !entry.session_id.is_empty()).then_some(entry.session_id)
}

/// The fields of Claude Code's `sessions/<pid>.json` this reads.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct SessionFile {
    pid: u64,
    session_id: String,
    messaging_socket_path: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claude_dir(pid: &str, body: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sessions")).unwrap();
        std::fs::write(dir.path().join(format!("sessions/{pid}.json")), body).unwrap();
        dir
    }

    #[test]
    fn the_session_file_of_the_socket_names_the_session() {
        // As Claude Code 2.1.332 writes it (fields trimmed).
        let body = r#"{"pid":20036,"sessionId":"51b9e0b2-a127-42b3-85be-d43bce480bae","cwd":"/w","kind":"interactive","messagingSocketPath":"/tmp/cc-socks/20036.sock","status":"busy"}"#;
        let dir = claude_dir("20036", body);
        assert_eq!(
            claude_session(OsStr::new("/tmp/cc-socks/20036.sock"), dir.path()).as_deref(),
            Some("51b9e0b2-a127-42b3-85be-d43bce480bae")
        );
    }

    #[test]
    fn anything_that_disagrees_names_none() {
        let body =
            r#"{"pid":20036,"sessionId":"s","messagingSocketPath":"/tmp/cc-socks/20036.sock"}"#;
        let dir = claude_dir("20036", body);
        for socket in [
            // Another socket, another process, no pid at all.
            "/elsewhere/20036.sock",
            "/tmp/cc-socks/20037.sock",
            "/tmp/cc-socks/x.sock",
            "/tmp/cc-socks/20036",
            "",
        ] {
            assert_eq!(
                claude_session(OsStr::new(socket), dir.path()),
                None,
                "{socket}"
            );
        }
        for body in [
            r#"{"pid":1,"sessionId":"s","messagingSocketPath":"/tmp/cc-socks/20036.sock"}"#,
            r#"{"pid":20036,"sessionId":"s"}"#,
            r#"{"pid":20036,"sessionId":"","messagingSocketPath":"/tmp/cc-socks/20036.sock"}"#,
            "not json",
        ] {
            let dir = claude_dir("20036", body);
            assert_eq!(
                claude_session(OsStr::new("/tmp/cc-socks/20036.sock"), dir.path()),
                None,
                "{body}"
            );
        }
    }
}
