//! The problems of one prompt document (server.md "Diagnostics"), as byte
//! ranges. The server and `check` both publish exactly these.

use std::collections::HashMap;
use std::ops::Range;

use super::budget::BudgetSetting;
use super::error::{ErrorCode, ReferenceError};
use super::json;
use super::mention::{self, Mention};
use super::one_line::has_invisible;
use super::prepare::{retain_snapshot, settle_budget, Cancelled, SnapshotSource};
use super::uri::DecodeError;

/// The informational code for a source that will be truncated.
pub const TRUNCATED: &str = "SESSION_REFERENCE_TRUNCATED";
/// The warning code for a mention whose label holds a line break, or a
/// bidirectional control or zero-width character.
pub const SUSPICIOUS_LABEL: &str = "SESSION_REFERENCE_SUSPICIOUS_LABEL";

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
    pub max_reference_bytes: BudgetSetting,
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
        if let Some(found) = suspicious_label(&mention) {
            out.push(found);
        }
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
    // One budget for every source; a target whose log cannot be read fails
    // every source (settled only when some source needs it).
    let settled = if ranked.is_empty() {
        Err(ReferenceError::cancelled())
    } else {
        settle_budget(
            options.max_reference_bytes,
            options.max_references,
            options.target,
            source,
            cancelled,
        )
    };
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
            match &settled {
                Ok(budget) => source_finding(id, label, budget.bytes, source, cancelled),
                Err(error) if error.code == ErrorCode::Cancelled => None,
                Err(error) => Some((
                    Severity::Warning,
                    error.code.as_str(),
                    format!("the target session's log: {}", error.message),
                )),
            }
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
    // server.md: by range start, then severity (error first), then code.
    out.sort_by_key(|d| (d.range.start, d.severity, d.code));
    out
}

/// Session and file diagnostics of one document, ordered by range start,
/// then severity (error first), then code.
pub fn merge(mut sessions: Vec<Diagnostic>, files: Vec<Diagnostic>) -> Vec<Diagnostic> {
    sessions.extend(files);
    sessions.sort_by(|a, b| {
        (a.range.start, a.severity, a.code).cmp(&(b.range.start, b.severity, b.code))
    });
    sessions
}

/// A `@[…](…)` mention (valid URI or not) whose label holds an ECMAScript
/// line terminator (usually a broken edit, the label having swallowed the
/// text up to a later mention), or a bidirectional control or zero-width
/// character (a label can then show one session's name and be another's).
fn suspicious_label(mention: &Mention<'_>) -> Option<Diagnostic> {
    let label = mention.raw_label?;
    let message = if label.contains(['\n', '\r', '\u{2028}', '\u{2029}']) {
        "the label of this mention spans lines: probably a broken edit \
         (its text runs up to a later mention)"
    } else if has_invisible(label) {
        "the label of this mention holds invisible bidirectional or zero-width \
         characters: what it shows may not be the session it names"
    } else {
        return None;
    };
    Some(Diagnostic {
        range: mention.span.clone(),
        severity: Severity::Warning,
        code: SUSPICIOUS_LABEL,
        message: message.to_string(),
        canonical: None,
    })
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
        // Not a problem yet: the snapshot is on its way (issue 26).
        Err(error) if error.code == ErrorCode::Fetching => {
            return Some((Severity::Information, error.code.as_str(), error.message))
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::error::ReferenceError;
    use crate::reference::snapshot::Snapshot;

    /// A store that knows no session.
    struct Empty;

    impl SnapshotSource for Empty {
        fn snapshot(
            &self,
            session_id: &str,
            _label: &str,
            _budget: Option<usize>,
            _cancelled: Cancelled<'_>,
        ) -> Result<Snapshot, ReferenceError> {
            Err(ReferenceError::new(
                ErrorCode::ReadFailed,
                format!("session {session_id:?} not found"),
            ))
        }

        fn capacity(
            &self,
            _session_id: &str,
            _cancelled: Cancelled<'_>,
        ) -> Result<crate::reference::budget::TargetCapacity, ReferenceError> {
            Ok(crate::reference::budget::TargetCapacity::NotInStore)
        }

        fn reread(
            &self,
            session_id: &str,
            _bytes: u64,
            _cancelled: Cancelled<'_>,
            _sink: &mut dyn FnMut(crate::model::Entry<'_>),
        ) -> Result<crate::model::ReadSummary, ReferenceError> {
            Err(ReferenceError::new(
                ErrorCode::ReadFailed,
                format!("session {session_id:?} not found"),
            ))
        }
    }

    fn run(text: &str) -> Vec<Diagnostic> {
        run_for(text, None)
    }

    fn run_for(text: &str, target: Option<&str>) -> Vec<Diagnostic> {
        let options = DiagnosticOptions {
            target,
            max_references: 3,
            max_reference_bytes: BudgetSetting::Fixed(65_536),
        };
        diagnose(text, options, &Empty, &|| false)
    }

    fn codes(found: &[Diagnostic]) -> Vec<(Range<usize>, Severity, &'static str)> {
        found
            .iter()
            .map(|d| (d.range.clone(), d.severity, d.code))
            .collect()
    }

    const URI: &str = "hydra-session:ImNoZWNrb3V0LXRheCI";

    #[test]
    fn a_label_with_a_line_break_is_suspicious_valid_uri_or_not() {
        for brk in ["\n", "\r", "\r\n", "\u{2028}", "\u{2029}"] {
            let text = format!("Ask @[Checkout{brk}more @[x]({URI}) end");
            let start = "Ask ".len();
            let end = text.find(" end").unwrap_or(text.len());
            let found = run(&text);
            assert_eq!(
                codes(&found),
                vec![
                    (
                        start..end,
                        Severity::Warning,
                        "SESSION_REFERENCE_READ_FAILED"
                    ),
                    (start..end, Severity::Warning, SUSPICIOUS_LABEL),
                ],
                "{brk:?}"
            );
        }
        // An invalid URI: its error (on the URI) comes after the warning
        // (on the whole mention, which starts earlier).
        let text = "@[a\nb](hydra-session:not*base64)";
        let found = run(text);
        assert_eq!(
            codes(&found),
            vec![
                (0..text.len(), Severity::Warning, SUSPICIOUS_LABEL),
                (
                    "@[a\nb](".len()..text.len() - 1,
                    Severity::Error,
                    "SESSION_REFERENCE_INVALID_REFERENCE"
                ),
            ]
        );
    }

    #[test]
    fn a_label_with_a_bidi_or_zero_width_character_is_suspicious() {
        for hidden in [
            '\u{202E}', '\u{2066}', '\u{2069}', '\u{200B}', '\u{200E}', '\u{FEFF}',
        ] {
            let text = format!("@[Checkout{hidden}tax]({URI})");
            let found = run(&text);
            let suspicious: Vec<_> = found
                .iter()
                .filter(|d| d.code == SUSPICIOUS_LABEL)
                .collect();
            assert_eq!(suspicious.len(), 1, "{hidden:?}");
            assert_eq!(suspicious[0].range, 0..text.len());
            assert!(suspicious[0].message.contains("invisible"));
        }
        // The zero-width joiner of emoji sequences is not suspicious.
        let text = format!("@[👩\u{200D}💻]({URI})");
        assert!(run(&text).iter().all(|d| d.code != SUSPICIOUS_LABEL));
    }

    #[test]
    fn plain_labels_and_bare_uris_are_not_suspicious() {
        let text = format!("@[Checkout tax]({URI}) and {URI}\nnext line @[a\\]b]({URI})");
        assert!(run(&text).iter().all(|d| d.code != SUSPICIOUS_LABEL));
    }

    #[test]
    fn same_start_orders_errors_first_then_by_code() {
        // A self reference (Error) whose label also spans lines (Warning).
        let text = format!("@[a{}b]({URI}) @[c]({URI})", '\u{2028}');
        let first = text.find(" @[c]").unwrap_or(0);
        let found = run_for(&text, Some("checkout-tax"));
        assert_eq!(
            codes(&found),
            vec![
                (
                    0..first,
                    Severity::Error,
                    "SESSION_REFERENCE_SELF_REFERENCE"
                ),
                (0..first, Severity::Warning, SUSPICIOUS_LABEL),
                (
                    first + 1..text.len(),
                    Severity::Error,
                    "SESSION_REFERENCE_SELF_REFERENCE"
                ),
            ]
        );
    }
}
