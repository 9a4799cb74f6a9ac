//! `check`: the server's diagnostics over files, for the shell and CI.

use std::path::{Path, PathBuf};

use ropey::Rope;
use serde::Serialize;

use super::args::{Deny, Format};
use super::settings::Settings;
use super::{input, Failure, FAILED, OK};
use crate::proto::position::{self, Encoding};
use crate::proto::to_proto;
use crate::reference::diagnostics::{diagnose, merge, DiagnosticOptions, Severity};
use crate::reference::one_line::one_line;
use crate::store::Scan;

#[derive(Serialize)]
struct FileReport {
    file: String,
    diagnostics: Vec<lsp_types::Diagnostic>,
}

pub fn run(
    settings: &Settings,
    files: &[PathBuf],
    cwd: &Path,
    format: Format,
    deny: Option<Deny>,
) -> Result<i32, Failure> {
    let texts = files
        .iter()
        .map(|f| input::read_text(Some(f)).map(|t| (f.display().to_string(), t)))
        .collect::<Result<Vec<_>, _>>()?;
    let store = settings.open_store(Scan::HeadersOnly);
    if store.is_empty() {
        // Unknown sessions are only warnings: a mistyped --store would
        // otherwise pass in silence.
        let paths: Vec<String> = settings
            .stores
            .iter()
            .map(|s| s.path.display().to_string())
            .collect();
        eprintln!(
            "hydra-session-lsp: note: the store holds no session ({}); every mention will be unknown",
            paths.join(", ")
        );
    }
    // The least severe diagnostic that fails the check.
    let failing = match deny {
        Some(Deny::Warnings) => Severity::Warning,
        None => Severity::Error,
    };
    let options = DiagnosticOptions {
        target: settings.self_id.as_deref(),
        max_references: settings.limits.max_references,
        max_reference_bytes: settings.limits.max_reference_bytes,
    };
    let mut any_error = false;
    let mut reports = Vec::new();
    let mut lines = String::new();
    for (name, text) in &texts {
        let found = merge(
            diagnose(text, options, &store, &|| false),
            crate::files::diagnostics(text, Some(cwd)),
        );
        any_error |= found.iter().any(|d| d.severity <= failing);
        let rope = Rope::from_str(text);
        match format {
            Format::Text => {
                for d in &found {
                    let (line, column) = position::line_column(&rope, d.range.start);
                    lines.push_str(&format!(
                        "{name}:{line}:{column}: {}[{}]: {}\n",
                        d.severity.as_str(),
                        d.code,
                        // A terminal line: a message quoting a label or an
                        // id must not carry controls or bidi overrides.
                        one_line(&d.message)
                    ));
                }
            }
            Format::Json | Format::Mention => reports.push(FileReport {
                file: name.clone(),
                diagnostics: found
                    .iter()
                    .map(|d| to_proto::diagnostic(&rope, d, Encoding::Utf16))
                    .collect(),
            }),
        }
    }
    match format {
        Format::Text => print!("{lines}"),
        Format::Json | Format::Mention => super::print_json(&reports),
    }
    Ok(if any_error { FAILED } else { OK })
}
