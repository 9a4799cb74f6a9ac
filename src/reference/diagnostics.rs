//! The problems of one prompt document (server.md "Diagnostics"), as byte
//! ranges. The server and `check` both publish exactly these.

use std::collections::HashMap;
use std::ops::Range;

use super::error::ErrorCode;
use super::json;
use super::mention::{self, Mention};
use super::prepare::{retain_snapshot, Cancelled, SnapshotSource};
use super::uri::DecodeError;

/// The informational code for a source that will be truncated.
pub const TRUNCATED: &str = "SESSION_REFERENCE_TRUNCATED";

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
    Information,
    Hint,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Information => "information",
            Severity::Hint => "hint",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Byte range in the document.
    pub range: Range<usize>,
    pub severity: Severity,
    pub code: &'static str,
    pub message: String,
    /// For a noncanonical URI: the canonical form (the quick fix).
    pub canonical: Option<String>,
}

#[derive(Debug, Clone, Copy)]
pub struct DiagnosticOptions<'a> {
    pub target: Option<&'a str>,
    pub max_references: usize,
    pub max_reference_bytes: usize,
}

/// Every diagnostic of `text`, in document order.
pub fn diagnose(
    text: &str,
    options: DiagnosticOptions<'_>,
    source: &dyn SnapshotSource,
    cancelled: Cancelled<'_>,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    // Valid, non-self ids in order of first appearance, each with the label
    // of its first mention and the spans of all its mentions.
    let mut ranked: Vec<(String, String, Vec<Range<usize>>)> = Vec::new();
    let mut rank_of: HashMap<String, usize> = HashMap::new();
    // A cancelled run is dropped by its caller: stop at once.
    let Ok(mentions) = mention::scan_cancellable(text, cancelled) else {
        return out;
    };
    for mention in mentions {
        let id = match mention.decode() {
            Ok(id) => id,
            Err(error) => {
                out.push(uri_diagnostic(&mention, error));
                continue;
            }
        };
        if Some(id.as_str()) == options.target {
            out.push(Diagnostic {
                range: mention.span.clone(),
                severity: Severity::Error,
                code: ErrorCode::SelfReference.as_str(),
                message: format!("session {} cannot reference itself", json::stringify(&id)),
                canonical: None,
            });
            continue;
        }
        match rank_of.get(&id) {
            Some(&rank) => ranked[rank].2.push(mention.span.clone()),
            None => {
                rank_of.insert(id.clone(), ranked.len());
                let label = mention.label().unwrap_or_else(|| id.clone());
                ranked.push((id, label, vec![mention.span.clone()]));
            }
        }
    }
    for (rank, (id, label, spans)) in ranked.iter().enumerate() {
        let finding = if rank >= options.max_references {
            Some((
                Severity::Error,
                ErrorCode::TooMany.as_str(),
                format!(
                    "a message may reference at most {} sessions; {} is source {}",
                    options.max_references,
                    json::stringify(id),
                    rank + 1
                ),
            ))
        } else {
            source_finding(id, label, options.max_reference_bytes, source, cancelled)
        };
        if let Some((severity, code, message)) = finding {
            for span in spans {
                out.push(Diagnostic {
                    range: span.clone(),
                    severity,
                    code,
                    message: message.clone(),
                    canonical: None,
                });
            }
        }
    }
    out.sort_by_key(|d| (d.range.start, d.range.end));
    out
}

fn uri_diagnostic(mention: &Mention<'_>, error: DecodeError) -> Diagnostic {
    let (message, canonical) = match error {
        DecodeError::Malformed => (
            format!(
                "invalid session reference URI {}",
                json::stringify(mention.uri)
            ),
            None,
        ),
        DecodeError::Noncanonical {
            session_id,
            canonical,
        } => (
            format!(
                "noncanonical session reference URI for session {}; canonical form: {canonical}",
                json::stringify(&session_id)
            ),
            Some(canonical),
        ),
    };
    Diagnostic {
        range: mention.uri_span.clone(),
        severity: Severity::Error,
        code: ErrorCode::InvalidReference.as_str(),
        message,
        canonical,
    }
}

/// Read, budget and truncation findings for one of the first sources.
fn source_finding(
    id: &str,
    label: &str,
    budget: usize,
    source: &dyn SnapshotSource,
    cancelled: Cancelled<'_>,
) -> Option<(Severity, &'static str, String)> {
    let snapshot = match source.snapshot(id, label, Some(budget), cancelled) {
        Ok(snapshot) => snapshot,
        Err(error) if error.code == ErrorCode::Cancelled => return None,
        Err(error) => return Some((Severity::Warning, error.code.as_str(), error.message)),
    };
    match retain_snapshot(snapshot, label, budget) {
        Err(error) => Some((Severity::Error, error.code.as_str(), error.message)),
        Ok(retained) => {
            let stats = retained.retained.stats;
            stats.truncated().then(|| {
                (
                    Severity::Information,
                    TRUNCATED,
                    format!(
                        "session {} will be truncated: keeps {} of {} messages, omits {} bytes",
                        json::stringify(label),
                        stats.retained_messages,
                        stats.original_messages,
                        stats.omitted_bytes
                    ),
                )
            })
        }
    }
}
