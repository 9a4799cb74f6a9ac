//! Which MCP revisions the server speaks: every one up to the newest it is
//! allowed, 2026-07-28 by default, or the one `--protocol` (or
//! `HYDRA_SESSION_MCP_PROTOCOL`) forces as the newest.
//!
//! From 2026-07-28 on a client may open with `server/discover` and carry
//! its version, capabilities and identity in every request's `_meta`
//! instead of an `initialize` handshake; the SDK serves that lifecycle.
//! Forcing an older revision keeps the path of the clients that fall back
//! on −32601 (Claude Code) reachable: `server/discover` is then answered
//! −32601 by the transport, as before the revision existed.

use rmcp::model::ProtocolVersion;

/// The environment variable that forces a revision when `--protocol` is
/// not given.
pub const PROTOCOL_ENV: &str = "HYDRA_SESSION_MCP_PROTOCOL";

/// The revisions served, as the newest one allowed.
#[derive(Debug, Clone)]
pub struct Revisions {
    newest: ProtocolVersion,
}

impl Default for Revisions {
    fn default() -> Self {
        Self {
            newest: ProtocolVersion::V_2026_07_28,
        }
    }
}

impl Revisions {
    /// The revisions up to `forced` (one of
    /// [`crate::config::mcp::PROTOCOL_REVISIONS`]), else up to the newest;
    /// an unknown name is refused.
    pub fn new(forced: Option<&str>) -> Result<Self, String> {
        let Some(name) = forced.filter(|n| !n.is_empty()) else {
            return Ok(Self::default());
        };
        let known = crate::config::mcp::PROTOCOL_REVISIONS.contains(&name);
        if !known {
            return Err(format!(
                "unknown MCP revision {:?} (one of {})",
                crate::mcp::text::short(name),
                crate::config::mcp::PROTOCOL_REVISIONS.join(", ")
            ));
        }
        Ok(Self {
            newest: ProtocolVersion::known_up_to(&ProtocolVersion::V_2026_07_28)
                .iter()
                .find(|v| v.as_str() == name)
                .cloned()
                .unwrap_or(ProtocolVersion::V_2026_07_28),
        })
    }

    /// Every revision served, oldest first.
    pub fn supported(&self) -> &'static [ProtocolVersion] {
        ProtocolVersion::known_up_to(&self.newest)
    }

    /// The newest revision with an `initialize` handshake: what
    /// `initialize` answers a client asking for one not served.
    pub fn handshake(&self) -> ProtocolVersion {
        self.supported()
            .iter()
            .rev()
            .find(|v| v.has_initialize())
            .cloned()
            .unwrap_or(ProtocolVersion::V_2025_06_18)
    }

    /// Whether the 2026-07-28 lifecycle is served: `server/discover`, and
    /// requests that carry their own `_meta` without a handshake.
    pub fn inline(&self) -> bool {
        !self.newest.has_initialize()
    }
}

/// Whether a request in `version` gets the 2026-07-28 result shape
/// (caching hints).
pub fn is_inline(version: Option<&ProtocolVersion>) -> bool {
    version.is_some_and(|v| !v.has_initialize())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_is_served_unless_one_is_forced() {
        let all = Revisions::new(None).unwrap();
        assert!(all.inline());
        assert_eq!(all.handshake(), ProtocolVersion::V_2025_11_25);
        assert!(all.supported().contains(&ProtocolVersion::V_2026_07_28));
        let old = Revisions::new(Some("2025-11-25")).unwrap();
        assert!(!old.inline());
        assert_eq!(old.handshake(), ProtocolVersion::V_2025_11_25);
        assert!(!old.supported().contains(&ProtocolVersion::V_2026_07_28));
        let older = Revisions::new(Some("2025-06-18")).unwrap();
        assert_eq!(older.handshake(), ProtocolVersion::V_2025_06_18);
        assert!(Revisions::new(Some("2031-01-01")).is_err());
    }
}
