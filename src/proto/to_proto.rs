//! Core types → LSP types. The only place core results become protocol.

use lsp_types::{self as lsp, NumberOrString};
use ropey::Rope;

use super::position::{self, Encoding};
use crate::reference::diagnostics::{Diagnostic, Severity};

pub const SOURCE: &str = "hydra-session";

pub fn severity(severity: Severity) -> lsp::DiagnosticSeverity {
    match severity {
        Severity::Error => lsp::DiagnosticSeverity::ERROR,
        Severity::Warning => lsp::DiagnosticSeverity::WARNING,
        Severity::Information => lsp::DiagnosticSeverity::INFORMATION,
        Severity::Hint => lsp::DiagnosticSeverity::HINT,
    }
}

/// One core diagnostic as an LSP diagnostic; a noncanonical URI carries
/// its fix in `data`, so code actions need no server state.
pub fn diagnostic(rope: &Rope, d: &Diagnostic, encoding: Encoding) -> lsp::Diagnostic {
    lsp::Diagnostic {
        range: position::range(rope, d.range.clone(), encoding),
        severity: Some(severity(d.severity)),
        code: Some(NumberOrString::String(d.code.to_string())),
        source: Some(SOURCE.to_string()),
        message: d.message.clone(),
        data: d
            .canonical
            .as_ref()
            .map(|c| serde_json::json!({ "canonical": c })),
        ..lsp::Diagnostic::default()
    }
}
