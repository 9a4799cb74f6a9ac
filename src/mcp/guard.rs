//! What the stdio transport ([`super::wire`]) does with a message the
//! real clients send before `initialize`.
//!
//! Claude Code 2.1.332 first sends `server/discover` (the 2026-07-28
//! lifecycle) and falls back to `initialize` on −32601. The SDK would
//! answer that probe itself, with a discovery result or, when the probe's
//! `_meta` lacks a field, −32602 — either of which leaves such a client
//! short of the `initialize` it understands. So the guard answers it
//! with −32601, always. Before `initialize` it also answers any other
//! request with −32601 and drops notifications and responses, which the
//! SDK would take as a failed handshake and stop.

use rmcp::model::{ClientRequest, JsonRpcMessage};
use rmcp::service::{RoleServer, RxJsonRpcMessage};

/// What the guard does with one incoming message.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    /// Answer −32601 for this method.
    NotFound,
    Drop,
}

pub fn verdict(message: &RxJsonRpcMessage<RoleServer>, initialized: bool) -> Verdict {
    match message {
        JsonRpcMessage::Request(request) => match &request.request {
            ClientRequest::DiscoverRequest(_) => Verdict::NotFound,
            ClientRequest::InitializeRequest(_) | ClientRequest::PingRequest(_) => Verdict::Pass,
            _ if initialized => Verdict::Pass,
            _ => Verdict::NotFound,
        },
        _ if initialized => Verdict::Pass,
        _ => Verdict::Drop,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(json: &str) -> RxJsonRpcMessage<RoleServer> {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn discover_is_never_passed_and_nothing_else_before_initialize() {
        let discover = message(
            r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
        );
        let initialize = message(
            r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        );
        let list = message(r#"{"jsonrpc":"2.0","id":3,"method":"resources/list"}"#);
        let note = message(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        assert_eq!(verdict(&discover, false), Verdict::NotFound);
        assert_eq!(verdict(&discover, true), Verdict::NotFound);
        assert_eq!(verdict(&initialize, false), Verdict::Pass);
        assert_eq!(verdict(&list, false), Verdict::NotFound);
        assert_eq!(verdict(&list, true), Verdict::Pass);
        assert_eq!(verdict(&note, false), Verdict::Drop);
        assert_eq!(verdict(&note, true), Verdict::Pass);
    }
}
