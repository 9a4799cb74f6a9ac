//! `prepare` (reference.md §6): from a message to its bounded context.

use super::budget::{Budget, BudgetSetting};
use super::error::{ErrorCode, ReferenceError};
use super::full_snapshot::{self, FullSnapshot, FullSnapshotPlan, SpillStore, SPILL_DISABLED};
use super::json;
use super::mention::{self, Reference};
use super::projection::Surface;
use super::render;
use super::retention::{self, Retained, SourceMeta};
use super::snapshot::Snapshot;
pub use super::source::{read_error, settle_budget, unknown_session, Cancelled, SnapshotSource};
use crate::model::SessionHeader;

#[derive(Debug, Clone, Copy)]
pub struct PrepareOptions<'a> {
    /// The session the message is for, when known.
    pub target: Option<&'a str>,
    pub max_references: usize,
    pub max_reference_bytes: BudgetSetting,
}

/// `{"type":"text","text":…}`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextBlock {
    pub kind: &'static str,
    pub text: String,
}

impl TextBlock {
    pub fn new(text: String) -> Self {
        Self { kind: "text", text }
    }
}

/// The result of `prepare`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prepared {
    pub content: Vec<TextBlock>,
    pub additional_context: Option<AdditionalContext>,
}

impl Prepared {
    /// The rendered context, when the message has references.
    pub fn context_text(&self) -> Option<String> {
        self.additional_context
            .as_ref()
            .map(|c| c.content.iter().map(|b| b.text.as_str()).collect())
    }

    /// The message as an agent reading plain text receives it (server.md
    /// "Command line", `prepare --format text`): the rendered context, a
    /// blank line, then the readable text; or the readable text alone;
    /// always ending in exactly one `\n`.
    pub fn text_form(&self) -> String {
        let mut out = self.context_text().unwrap_or_default();
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        for block in &self.content {
            out.push_str(&block.text);
        }
        out.truncate(out.trim_end_matches(['\n', '\r']).len());
        out.push('\n');
        out
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdditionalContext {
    pub role: &'static str,
    pub source: ContextSource,
    pub content: Vec<TextBlock>,
}

impl AdditionalContext {
    /// The recalled sessions' context as the contract fixes it (a `user`
    /// block whose source is a `session-reference` `recall`, version 1):
    /// `references` and the rendered `text`.
    pub fn recall(references: Vec<ReferenceStats>, text: String) -> Self {
        AdditionalContext {
            role: "user",
            source: ContextSource {
                kind: "session-reference",
                form: "recall",
                version: 1,
                references,
            },
            content: vec![TextBlock::new(text)],
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextSource {
    pub kind: &'static str,
    pub form: &'static str,
    pub version: u32,
    pub references: Vec<ReferenceStats>,
}

/// What one source contributed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReferenceStats {
    pub session_id: String,
    pub label: String,
    pub captured_format_version: Option<u64>,
    pub captured_through_seq: Option<u64>,
    pub compacted: bool,
    pub original_messages: usize,
    pub retained_messages: usize,
    pub omitted_messages: usize,
    pub omitted_bytes: u64,
    pub truncated: bool,
    pub input_index: usize,
    /// The session's display title, else its title, as the read found
    /// them: what a host names the source by (a hook's `systemMessage`).
    /// Not part of the result's JSON, whose shape reference.md fixes.
    pub title: Option<String>,
}

/// One source fitted into its budget, with its rendered data object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetainedSource {
    pub snapshot_header: SessionHeader,
    pub captured_through_seq: Option<u64>,
    pub title: Option<String>,
    /// Lines the log's format could not understand and skipped.
    pub skipped_lines: u64,
    pub label: String,
    pub retained: Retained,
    pub data_object: String,
    /// What a second pass needs for the full snapshot (only when asked for).
    pub plan: Option<FullSnapshotPlan>,
}

impl RetainedSource {
    pub fn stats(&self, input_index: usize) -> ReferenceStats {
        let s = &self.retained.stats;
        ReferenceStats {
            session_id: self.snapshot_header.id.clone(),
            label: self.label.clone(),
            captured_format_version: Some(self.snapshot_header.version).filter(|&v| v != 0),
            captured_through_seq: self.captured_through_seq,
            compacted: s.compacted,
            original_messages: s.original_messages,
            retained_messages: s.retained_messages,
            omitted_messages: s.omitted_messages,
            omitted_bytes: s.omitted_bytes,
            truncated: s.truncated(),
            input_index,
            title: self
                .snapshot_header
                .label
                .clone()
                .or_else(|| self.title.clone()),
        }
    }
}

/// Fits one snapshot into `budget` and renders its data object.
pub fn retain_snapshot(
    snapshot: Snapshot,
    label: &str,
    budget: usize,
) -> Result<RetainedSource, ReferenceError> {
    retain_source(snapshot, label, budget, false)
}

/// [`retain_snapshot`], keeping what a full snapshot needs when `plan`.
fn retain_source(
    snapshot: Snapshot,
    label: &str,
    budget: usize,
    plan: bool,
) -> Result<RetainedSource, ReferenceError> {
    let Snapshot {
        header,
        captured_through_seq,
        title,
        projection,
        bytes,
        skipped_lines,
        ..
    } = snapshot;
    let plan = plan.then(|| {
        let surface: Surface = projection.surface;
        FullSnapshotPlan {
            session_id: header.id.clone(),
            label: label.to_string(),
            cwd: header.cwd.clone(),
            captured_through_seq,
            surface,
            checkpoint_text: projection
                .messages
                .first()
                .filter(|m| m.checkpoint && Some(m.seq) == surface.last_checkpoint_seq)
                .map(|m| m.text.clone()),
            bytes,
        }
    });
    let meta = SourceMeta {
        session_id: &header.id,
        label,
        cwd: header.cwd.as_deref(),
        captured_through_seq,
    };
    let retained = retention::retain(&meta, projection, budget)?;
    let mut data_object = String::new();
    render::write_data_object(&mut data_object, &meta, &retained.conversation);
    Ok(RetainedSource {
        snapshot_header: header,
        captured_through_seq,
        title,
        skipped_lines,
        label: label.to_string(),
        retained,
        data_object,
        plan,
    })
}

/// Normalises references (reference.md §6 step 1).
pub fn normalize(
    target: Option<&str>,
    references: &[Reference],
    max_references: usize,
) -> Result<Vec<Reference>, ReferenceError> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for reference in references {
        if Some(reference.session_id.as_str()) == target {
            return Err(ReferenceError::new(
                ErrorCode::SelfReference,
                format!(
                    "session {} cannot reference itself",
                    json::stringify(&reference.session_id)
                ),
            ));
        }
        if seen.insert(reference.session_id.as_str()) {
            out.push(reference.clone());
        }
    }
    if out.len() > max_references {
        return Err(ReferenceError::new(
            ErrorCode::TooMany,
            format!("a message may reference at most {max_references} sessions"),
        ));
    }
    Ok(out)
}

/// Parses `text` and prepares its context.
pub fn prepare_text(
    text: &str,
    options: PrepareOptions<'_>,
    source: &dyn SnapshotSource,
    spill: Option<&dyn SpillStore>,
    cancelled: Cancelled<'_>,
) -> Result<Prepared, ReferenceError> {
    let parsed = mention::parse(text)?;
    prepare(
        parsed.text,
        &parsed.references,
        options,
        source,
        spill,
        cancelled,
    )
}

/// Prepares the context of a message whose references are already parsed.
/// `spill` stores the full snapshots of truncated sources (`None`: spilling
/// is disabled).
pub fn prepare(
    content: String,
    references: &[Reference],
    options: PrepareOptions<'_>,
    source: &dyn SnapshotSource,
    spill: Option<&dyn SpillStore>,
    cancelled: Cancelled<'_>,
) -> Result<Prepared, ReferenceError> {
    let inputs = normalize(options.target, references, options.max_references)?;
    let content = vec![TextBlock::new(content)];
    if inputs.is_empty() {
        return Ok(Prepared {
            content,
            additional_context: None,
        });
    }
    if cancelled() {
        return Err(ReferenceError::cancelled());
    }
    // The budget is settled before any source is read.
    let Budget { bytes: budget, .. } = settle_budget(
        options.max_reference_bytes,
        options.max_references,
        options.target,
        source,
        cancelled,
    )?;
    // Read every source concurrently; each keeps only what its budget can.
    let read = |input: &Reference| {
        source.snapshot(&input.session_id, &input.label, Some(budget), cancelled)
    };
    let reads: Vec<Result<Snapshot, ReferenceError>> = std::thread::scope(|scope| {
        // The first source is read on this thread, the others beside it.
        let (first, rest) = inputs
            .split_first()
            .map_or((None, &[][..]), |(f, r)| (Some(f), r));
        let handles: Vec<_> = rest
            .iter()
            .map(|input| scope.spawn(move || read(input)))
            .collect();
        let mut reads: Vec<_> = first.map(read).into_iter().collect();
        for handle in handles {
            reads.push(handle.join().unwrap_or_else(|_| {
                Err(ReferenceError::read_failed(
                    "the reader stopped unexpectedly",
                ))
            }));
        }
        reads
    });
    let snapshots = reads.into_iter().collect::<Result<Vec<_>, _>>()?;
    if cancelled() {
        return Err(ReferenceError::cancelled());
    }
    let mut sources = Vec::with_capacity(snapshots.len());
    for (snapshot, input) in snapshots.into_iter().zip(&inputs) {
        sources.push(retain_source(
            snapshot,
            &input.label,
            budget,
            spill.is_some(),
        )?);
    }
    // Every source fits: store the full snapshots of the truncated ones,
    // then evict, then render.
    let mut stored = Vec::new();
    for source_retained in &mut sources {
        let stats = source_retained.retained.stats;
        if !stats.truncated() {
            continue;
        }
        // Cancelled: write nothing more (not even the spill directory).
        if cancelled() {
            return Err(ReferenceError::cancelled());
        }
        let full = match (spill, &source_retained.plan) {
            (Some(spill), Some(plan)) => {
                spill.store(&mut |out| full_snapshot::stream(plan, source, out, cancelled))
            }
            _ => FullSnapshot::Unavailable(SPILL_DISABLED.to_string()),
        };
        if let FullSnapshot::Stored { path, .. } = &full {
            stored.push(path.clone());
        }
        render::append_omission(
            &mut source_retained.data_object,
            stats.omitted_messages,
            stats.omitted_bytes,
            &full,
        );
    }
    if let (Some(spill), false) = (spill, stored.is_empty()) {
        spill.evict(&stored);
    }
    // A cancelled request returns no context, even when a snapshot was
    // stored after the cancellation (the spill directory is a cache).
    if cancelled() {
        return Err(ReferenceError::cancelled());
    }
    let text = render::render_context(sources.iter().map(|s| s.data_object.as_str()));
    let references = sources
        .iter()
        .enumerate()
        .map(|(i, s)| s.stats(i))
        .collect();
    Ok(Prepared {
        content,
        additional_context: Some(AdditionalContext::recall(references, text)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prepared(text: &str, context: Option<&str>) -> Prepared {
        Prepared {
            content: vec![TextBlock::new(text.into())],
            additional_context: context.map(|c| AdditionalContext::recall(Vec::new(), c.into())),
        }
    }

    #[test]
    fn text_form_is_context_blank_line_text_and_one_newline() {
        assert_eq!(prepared("hi", None).text_form(), "hi\n");
        assert_eq!(prepared("hi\n\n\r\n", None).text_form(), "hi\n");
        assert_eq!(prepared("", None).text_form(), "\n");
        assert_eq!(prepared("hi\n", Some("CTX")).text_form(), "CTX\n\nhi\n");
        assert_eq!(prepared("", Some("CTX")).text_form(), "CTX\n");
    }
}
