//! What the stdio transport ([`super::wire`]) does with a message the
//! real clients send before the SDK has a lifecycle (an `initialize`
//! handshake, or a first request carrying the 2026-07-28 `_meta`).
//!
//! Claude Code 2.1.332 first sends `server/discover` (the 2026-07-28
//! lifecycle) and falls back to `initialize` on −32601. With 2026-07-28
//! served ([`super::revision`]) the probe passes to the SDK, which answers
//! it with the discovery result (or −32602 when its `_meta` lacks a
//! field), and so does any other request: the SDK answers one without
//! complete `_meta` and keeps waiting. With an older revision forced, the
//! guard answers the probe −32601, always, and any other request before
//! `initialize` too. Notifications and responses before a lifecycle are
//! dropped either way: the SDK would take one as a failed handshake and
//! stop.

use rmcp::model::{ClientRequest, GetMeta, JsonRpcMessage, ProtocolVersion};
use rmcp::service::{RoleServer, RxJsonRpcMessage};

/// What the guard does with one incoming message.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    /// Answer −32601 for this method.
    NotFound,
    Drop,
}

/// The verdict on `message`; `started` once the SDK has a lifecycle,
/// `inline` when 2026-07-28 is served.
pub fn verdict(message: &RxJsonRpcMessage<RoleServer>, started: bool, inline: bool) -> Verdict {
    match message {
        JsonRpcMessage::Request(request) => match &request.request {
            ClientRequest::DiscoverRequest(_) if !inline => Verdict::NotFound,
            ClientRequest::InitializeRequest(_) | ClientRequest::PingRequest(_) => Verdict::Pass,
            _ if started || inline => Verdict::Pass,
            _ => Verdict::NotFound,
        },
        _ if started => Verdict::Pass,
        _ => Verdict::Drop,
    }
}

/// Whether passing `message` gives the SDK its lifecycle: `initialize`, or
/// (2026-07-28) a request other than a probe or ping whose `_meta` is
/// complete and names a revision served (the SDK answers any other and
/// goes on waiting).
pub fn starts(message: &RxJsonRpcMessage<RoleServer>, supported: &[ProtocolVersion]) -> bool {
    let JsonRpcMessage::Request(request) = message else {
        return false;
    };
    match &request.request {
        ClientRequest::InitializeRequest(_) => true,
        ClientRequest::DiscoverRequest(_) | ClientRequest::PingRequest(_) => false,
        other => {
            let meta = other.get_meta();
            meta.missing_required_keys(&ProtocolVersion::V_2026_07_28)
                .is_empty()
                && meta
                    .protocol_version()
                    .is_some_and(|v| supported.contains(&v))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(json: &str) -> RxJsonRpcMessage<RoleServer> {
        serde_json::from_str(json).unwrap()
    }

    const DISCOVER: &str = r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
    const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    const LIST: &str = r#"{"jsonrpc":"2.0","id":3,"method":"resources/list"}"#;
    const NOTE: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

    #[test]
    fn an_older_revision_forced_answers_discover_and_all_before_initialize() {
        let (discover, initialize) = (message(DISCOVER), message(INITIALIZE));
        let (list, note) = (message(LIST), message(NOTE));
        assert_eq!(verdict(&discover, false, false), Verdict::NotFound);
        assert_eq!(verdict(&discover, true, false), Verdict::NotFound);
        assert_eq!(verdict(&initialize, false, false), Verdict::Pass);
        assert_eq!(verdict(&list, false, false), Verdict::NotFound);
        assert_eq!(verdict(&list, true, false), Verdict::Pass);
        assert_eq!(verdict(&note, false, false), Verdict::Drop);
        assert_eq!(verdict(&note, true, false), Verdict::Pass);
    }

    #[test]
    fn with_2026_07_28_requests_pass_and_only_complete_meta_starts() {
        let (discover, list, note) = (message(DISCOVER), message(LIST), message(NOTE));
        assert_eq!(verdict(&discover, false, true), Verdict::Pass);
        assert_eq!(verdict(&list, false, true), Verdict::Pass);
        assert_eq!(verdict(&note, false, true), Verdict::Drop);
        let all = ProtocolVersion::known_up_to(&ProtocolVersion::V_2026_07_28);
        assert!(!starts(&discover, all));
        assert!(!starts(&list, all));
        assert!(starts(&message(INITIALIZE), all));
        let inline = message(
            r#"{"jsonrpc":"2.0","id":4,"method":"resources/list","params":{"_meta":{
            "io.modelcontextprotocol/protocolVersion":"2026-07-28",
            "io.modelcontextprotocol/clientCapabilities":{},
            "io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}}}"#,
        );
        assert!(starts(&inline, all));
        let older = ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_11_25);
        assert!(!starts(&inline, older));
    }
}
