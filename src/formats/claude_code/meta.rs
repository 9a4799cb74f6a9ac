//! What a transcript says about its session, gathered line by line: id,
//! createdAt, cwd, title, and the display titles it gives its sub-agents.
//! Shared by the incremental scanner and by `read` (its first pass), so both
//! tell the same story.

use std::borrow::Cow;

use super::line::{self, Block, Content, Kind, Line};
use super::text;
use crate::formats::toolkit::track::{tracker_parts, Tally, Track};
use crate::model::{Entry, SessionHeader};

/// The `agentId` prefix of the auto-compaction worker's transcript.
const COMPACTION_AGENT_PREFIX: &str = "acompact-";

/// Task calls still waiting for their result are capped, so a transcript
/// full of interrupted calls cannot grow the scanner without bound.
const MAX_PENDING_TASKS: usize = 256;

/// The session state a transcript's lines build up.
#[derive(Debug, Clone, Default)]
pub struct Meta {
    /// Lines taken and skipped, the line that fails the log, why it is
    /// no session.
    pub tally: Tally,
    session_id: Option<String>,
    /// The `agentId` of a sub-agent transcript.
    agent_id: Option<String>,
    created_at: Option<u64>,
    /// The file's modification time: `createdAt` when no line is dated.
    pub file_modified: Option<u64>,
    cwd: Option<String>,
    custom_title: Option<String>,
    ai_title: Option<String>,
    first_prompt: Option<String>,
    /// Whether a user or assistant message was seen (on the main
    /// transcript): a transcript without one is not a session.
    has_message: bool,
    /// Task/Agent `tool_use` id → the display title it gives its agent.
    pending_tasks: Vec<(String, String)>,
    /// Sub-agent `agentId` → display title, from the Task results.
    child_titles: Vec<(String, String)>,
    /// The session, kept up to date as lines come (see [`Self::settle`]).
    header: Option<SessionHeader>,
}

/// Whether a line is a user's message, and its text (agent-logs.md
/// "Messages"): what the person wrote, without a context this program
/// rendered in front of it. `None`: not a message.
pub fn user_text<'a>(line: &Line<'a>) -> Option<Cow<'a, str>> {
    if line.kind != Kind::User || line.is_meta || line.is_compact_summary {
        return None;
    }
    let text = match &line.content {
        Content::Str(Some(s)) => (!text::is_wrapper_only(s)).then(|| s.clone()),
        // Each text block is judged alone; none left, no message.
        Content::Blocks(_) => join(texts(&line.content).filter(|t| !text::is_wrapper_only(t))),
        _ => None,
    };
    text.map(text::person_text)
}

/// Text blocks of an assistant line (or a checkpoint's content), joined
/// with `"\n"`.
pub fn all_text<'a>(content: &Content<'a>) -> Cow<'a, str> {
    match content {
        Content::Str(Some(s)) => s.clone(),
        _ => join(texts(content)).unwrap_or(Cow::Borrowed("")),
    }
}

/// The texts of the `text` blocks.
fn texts<'c, 'a>(content: &'c Content<'a>) -> impl Iterator<Item = &'c Cow<'a, str>> {
    let blocks = match content {
        Content::Blocks(blocks) => &blocks[..],
        _ => &[],
    };
    blocks.iter().filter_map(|b| match b {
        Block::Text(Some(t)) => Some(t),
        _ => None,
    })
}

/// Texts joined with `"\n"`; one is handed on without a copy. `None` when
/// there is none.
fn join<'c, 'a: 'c>(mut texts: impl Iterator<Item = &'c Cow<'a, str>>) -> Option<Cow<'a, str>> {
    let first = texts.next()?;
    let Some(second) = texts.next() else {
        return Some(first.clone());
    };
    let mut joined = format!("{first}\n{second}");
    for t in texts {
        joined.push('\n');
        joined.push_str(t);
    }
    Some(Cow::Owned(joined))
}

impl Meta {
    /// Whether a line's texts are still needed (for the title's prompt):
    /// parsing without them skips their unescaping.
    pub fn wants_texts(&self) -> bool {
        self.first_prompt.is_none()
    }

    /// Takes one complete line. Returns it parsed, when it is understood.
    pub fn raw_line<'l>(&mut self, raw: &'l [u8]) -> Option<Line<'l>> {
        if self.tally.failure.is_some() {
            return None;
        }
        self.tally.lines += 1;
        let parsed = self.parse(raw);
        self.settle();
        parsed
    }

    fn parse<'l>(&mut self, raw: &'l [u8]) -> Option<Line<'l>> {
        let Ok(text) = simdutf8::basic::from_utf8(raw) else {
            self.tally.failure = Some(self.tally.lines);
            return None;
        };
        if text.trim_start().is_empty() {
            return None;
        }
        match line::parse(text, self.wants_texts()) {
            Ok(parsed) => {
                self.observe(&parsed);
                Some(parsed)
            }
            Err(_) => {
                self.tally.skipped += 1;
                None
            }
        }
    }

    /// Whether the transcript is a sub-agent's (its session line carries
    /// an `agentId`).
    pub fn is_sub_agent(&self) -> bool {
        self.agent_id.is_some()
    }

    fn observe(&mut self, l: &Line<'_>) {
        if self.session_id.is_none() {
            if let Some(id) = l.session_id.as_deref().filter(|id| !id.is_empty()) {
                self.session_id = Some(id.to_string());
                self.agent_id = l
                    .agent_id
                    .as_deref()
                    .filter(|a| !a.is_empty())
                    .map(str::to_string);
                if let Some(agent) = self
                    .agent_id
                    .as_deref()
                    .filter(|a| a.starts_with(COMPACTION_AGENT_PREFIX))
                {
                    self.tally.not_session = Some(format!(
                        "the auto-compaction worker's transcript (agentId {agent}), not a conversation"
                    ));
                }
            }
        }
        if let Some(t) = l.timestamp.as_deref().and_then(text::parse_timestamp) {
            self.created_at = Some(self.created_at.map_or(t, |c| c.min(t)));
        }
        if self.cwd.is_none() {
            self.cwd = l
                .cwd
                .as_deref()
                .filter(|c| !c.is_empty())
                .map(str::to_string);
        }
        match l.kind {
            Kind::CustomTitle => {
                if let Some(t) = l.custom_title.as_deref().and_then(text::given_title) {
                    self.custom_title = Some(t);
                }
            }
            Kind::AiTitle => {
                if let Some(t) = l.ai_title.as_deref().and_then(text::given_title) {
                    self.ai_title = Some(t);
                }
            }
            Kind::User => self.observe_user(l),
            Kind::Assistant => {
                self.has_message |= self.on_main(l);
                self.observe_tasks(&l.content);
            }
            _ => {}
        }
    }

    /// Whether a line belongs to this transcript's own conversation: old
    /// inline sub-agents (`isSidechain` in a main transcript) do not.
    fn on_main(&self, l: &Line<'_>) -> bool {
        self.is_sub_agent() || !l.is_sidechain
    }

    fn observe_user(&mut self, l: &Line<'_>) {
        let on_main = self.on_main(l);
        if self.first_prompt.is_none() && on_main {
            let prompt = user_text(l);
            self.has_message |= prompt.is_some();
            self.first_prompt = prompt.and_then(|t| text::prompt_title(&t));
        }
        // Once the prompt is found texts are no longer parsed, but then a
        // message is already known; a compact summary is conversation too.
        self.has_message |= on_main && l.is_compact_summary;
        let (Some(agent), Content::Blocks(blocks)) = (l.result_agent_id.as_deref(), &l.content)
        else {
            return;
        };
        for block in blocks {
            let Block::ToolResult {
                tool_use_id: Some(id),
            } = block
            else {
                continue;
            };
            if let Some(at) = self.pending_tasks.iter().position(|(t, _)| t == id) {
                let (_, title) = self.pending_tasks.remove(at);
                if !self.child_titles.iter().any(|(a, _)| a == agent) {
                    self.child_titles.push((agent.to_string(), title));
                }
            }
        }
    }

    /// Remembers the display title of each Task/Agent call until its result
    /// names the agent it ran.
    fn observe_tasks(&mut self, content: &Content<'_>) {
        let Content::Blocks(blocks) = content else {
            return;
        };
        for block in blocks {
            let Block::ToolUse {
                id: Some(id),
                name: Some(name),
                description,
                prompt,
            } = block
            else {
                continue;
            };
            if name != "Task" && name != "Agent" {
                continue;
            }
            let title = description
                .as_deref()
                .and_then(text::given_title)
                .or_else(|| prompt.as_deref().and_then(text::first_line))
                .map(|line| text::readable_mentions(&line).into_owned());
            if let Some(title) = title {
                if self.pending_tasks.len() >= MAX_PENDING_TASKS {
                    self.pending_tasks.remove(0);
                }
                self.pending_tasks.push((id.to_string(), title));
            }
        }
    }

    /// The session's id: a sub-agent's is `<sessionId>/<agentId>`.
    fn id(&self) -> Option<String> {
        let session = self.session_id.as_deref()?;
        Some(match &self.agent_id {
            Some(agent) => format!("{session}/{agent}"),
            None => session.to_string(),
        })
    }

    /// The session, once a line gives its id and a user or assistant
    /// message is seen (or a line fails the read). A transcript without a
    /// message (a prompt a hook blocked leaves only bookkeeping lines) is
    /// pending: the index lists it as skipped, and it becomes a session
    /// when a message is appended. Kept, not made on demand: the catalog
    /// borrows every log's header on every change of a store.
    fn settle(&mut self) {
        let created_at = self.created_at.or(self.file_modified).unwrap_or(0);
        if let Some(header) = &mut self.header {
            header.created_at = created_at;
            if header.cwd.is_none() {
                header.cwd.clone_from(&self.cwd);
            }
            return;
        }
        // An unreadable transcript stays listed: its read says why.
        if self.tally.not_session.is_some() || !(self.has_message || self.tally.failure.is_some()) {
            return;
        }
        let Some(id) = self.id() else { return };
        self.header = Some(SessionHeader {
            version: 0,
            id,
            created_at,
            cwd: self.cwd.clone(),
            label: None,
        });
    }

    /// Why a transcript that is not (yet) a session is not one.
    fn pending_reason(&self) -> &'static str {
        if self.session_id.is_none() {
            "no line has a sessionId"
        } else {
            "no user or assistant message"
        }
    }
}

impl Track for Meta {
    const NO_LINE: &'static str = "no line has a sessionId";

    tracker_parts!(tally, for_scan, file_modified);

    /// The scan's: the full read's first pass (`reader::read_log`) takes
    /// the same metadata, keeping the tree beside it.
    fn for_read() -> Self {
        Meta::default()
    }

    /// The index's scan; a full read walks the tree itself
    /// (`reader::read_log`).
    fn line(&mut self, raw: &[u8], _sink: &mut dyn FnMut(Entry<'_>)) {
        if !self.is_done() {
            self.raw_line(raw);
        }
    }

    fn header(&self) -> Option<&SessionHeader> {
        self.header
            .as_ref()
            .filter(|_| self.tally.not_session.is_none())
    }

    /// The title: the last custom title, else the last AI title, else the
    /// first prompt cut to 80.
    fn title(&self) -> Option<String> {
        self.custom_title
            .clone()
            .or_else(|| self.ai_title.clone())
            .or_else(|| self.first_prompt.clone())
    }

    /// `(sessionId, agentId)` of a sub-agent transcript.
    fn parent(&self) -> Option<(String, String)> {
        self.session_id.clone().zip(self.agent_id.clone())
    }

    /// The display title of the sub-agent `agent_id`, from the Task call
    /// whose result named it.
    fn child_title(&self, agent_id: &str) -> Option<String> {
        self.child_titles
            .iter()
            .find(|(a, _)| a == agent_id)
            .map(|(_, title)| title.clone())
    }

    fn names_children(&self) -> bool {
        !self.child_titles.is_empty()
    }

    fn read_fault(&self) -> Option<(Option<u64>, String)> {
        if let Some(n) = self.tally.failure {
            return Some((Some(n), "invalid UTF-8".into()));
        }
        let why = self.tally.not_session.as_deref()?;
        Some((None, format!("not a session: {why}")))
    }

    fn no_header(&self) -> (Option<u64>, String) {
        (None, self.pending_reason().into())
    }

    fn captured_through_seq(&self) -> Option<u64> {
        (self.tally.lines > 0).then_some(self.tally.lines)
    }
}
