//! The Codex format on the real rollouts (../shared/real-logs/codex) and
//! on synthetic rollouts for the corner cases the fixtures lack.

use super::track::ENCRYPTED_SUMMARY;
use super::*;
use crate::formats::lines::{self, Flow};
use crate::formats::toolkit::memory_log::MemoryLog;
use crate::formats::toolkit::real_logs::real_logs;
use crate::formats::LogFormat;
use crate::formats::Scanner;
use crate::formats::{HeaderState, ScanMeta};
use crate::model::{Entry, ReadError, ReadSummary};
use crate::model::{Event, Role, SessionHeader};
use crate::reference::projection::Projector;

/// A real rollout of `../shared/real-logs/codex` (`None`, said, when absent).
pub(crate) fn fixture(name: &str) -> Option<Vec<u8>> {
    let path = real_logs("codex")?.join(name);
    Some(std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

pub(crate) const OLD_EXEC: &str =
    "2026/01/02/rollout-2026-01-02T18-39-45-019b7f94-51b4-7593-922e-ba12b5b73b52.jsonl";
pub(crate) const DESKTOP_REDACTED: &str =
    "2026/02/23/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl";
pub(crate) const TUI: &str =
    "2026/05/11/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl";
pub(crate) const DESKTOP_NO_USER_ITEMS: &str =
    "2026/05/11/rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl";

/// Everything a full read yields: events and summary.
pub(crate) struct Read_ {
    pub(crate) entries: Vec<(u64, Event<'static>)>,
    pub(crate) summary: Result<ReadSummary, ReadError>,
}

pub(crate) fn read(bytes: &[u8]) -> Read_ {
    let mut entries = Vec::new();
    let summary = Codex.read(&MemoryLog::new(bytes), &|| false, &mut |e| {
        entries.push((e.seq, owned(e.event)));
    });
    Read_ { entries, summary }
}

pub(crate) fn owned(event: Event<'_>) -> Event<'static> {
    match event {
        Event::Message { role, text } => Event::Message {
            role,
            text: text.into_owned().into(),
        },
        Event::Checkpoint { through_seq, text } => Event::Checkpoint {
            through_seq,
            text: text.into_owned().into(),
        },
        Event::Title(t) => Event::Title(t.into_owned().into()),
        Event::Capacity(c) => Event::Capacity(c),
        Event::Other => Event::Other,
    }
}

/// The projected surface: `(role, checkpoint, text)` in order.
pub(crate) fn surface(bytes: &[u8]) -> Vec<(Role, bool, String)> {
    let r = read(bytes);
    r.summary.expect("readable");
    let mut projector = Projector::new(None, usize::MAX);
    for (seq, event) in r.entries {
        projector.push(Entry { seq, event });
    }
    projector
        .finish()
        .messages
        .into_iter()
        .map(|m| (m.role, m.checkpoint, m.text))
        .collect()
}

pub(crate) fn scan(bytes: &[u8]) -> CodexScanner {
    let mut scanner = CodexScanner::default();
    lines::for_each_line::<()>(&mut &bytes[..], bytes.len() as u64, &|| false, &mut |l| {
        scanner.line(l);
        Ok(Flow::Continue)
    })
    .expect("in memory");
    scanner
}

/// The header of a rollout once a user message follows its lines (a
/// rollout is a session only with a message).
pub(crate) fn header(bytes: &[u8]) -> SessionHeader {
    let mut scanner = scan(bytes);
    scanner.line(user("a message").as_bytes());
    match scanner.header() {
        HeaderState::Session(h) => h,
        other => panic!("not a session: {other:?}"),
    }
}

pub(crate) fn texts(surface: &[(Role, bool, String)]) -> Vec<&str> {
    surface.iter().map(|(_, _, t)| t.as_str()).collect()
}

// ---------------------------------------------------------------------------
// Synthetic rollouts.

pub(crate) const T0: &str = "2026-01-01T00:00:00.000Z";

pub(crate) fn line(kind: &str, payload: &str) -> String {
    format!(r#"{{"timestamp":"{T0}","type":"{kind}","payload":{payload}}}"#)
}

pub(crate) fn meta_with(id: &str, extra: &str) -> String {
    line(
        "session_meta",
        &format!(
            r#"{{"id":"{id}","timestamp":"{T0}","cwd":"/w","originator":"codex_cli_rs"{extra}}}"#
        ),
    )
}

pub(crate) fn meta(id: &str) -> String {
    meta_with(id, r#","source":"cli""#)
}

pub(crate) fn json(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

pub(crate) fn message(role: &str, kind: &str, texts: &[&str]) -> String {
    let blocks: Vec<String> = texts
        .iter()
        .map(|t| format!(r#"{{"type":"{kind}","text":{}}}"#, json(t)))
        .collect();
    format!(
        r#"{{"type":"message","role":"{role}","content":[{}]}}"#,
        blocks.join(",")
    )
}

pub(crate) fn user(text: &str) -> String {
    line("response_item", &message("user", "input_text", &[text]))
}

pub(crate) fn assistant(text: &str) -> String {
    line(
        "response_item",
        &message("assistant", "output_text", &[text]),
    )
}

pub(crate) fn event(kind: &str, fields: &str) -> String {
    line("event_msg", &format!(r#"{{"type":"{kind}"{fields}}}"#))
}

pub(crate) fn user_event(text: &str) -> String {
    event(
        "user_message",
        &format!(r#","message":{},"images":[]"#, json(text)),
    )
}

pub(crate) fn agent_event(text: &str) -> String {
    event("agent_message", &format!(r#","message":{}"#, json(text)))
}

pub(crate) fn compacted(message: &str, history: Option<&[String]>) -> String {
    let history = history.map_or(String::new(), |h| {
        format!(r#","replacement_history":[{}]"#, h.join(","))
    });
    line(
        "compacted",
        &format!(r#"{{"message":{}{history}}}"#, json(message)),
    )
}

pub(crate) fn rollout(lines: &[String]) -> Vec<u8> {
    let mut out = lines.join("\n");
    out.push('\n');
    out.into_bytes()
}

pub(crate) const ENV: &str = "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>";

pub(crate) fn u(text: &str) -> (Role, bool, String) {
    (Role::User, false, text.into())
}

pub(crate) fn a(text: &str) -> (Role, bool, String) {
    (Role::Assistant, false, text.into())
}

pub(crate) fn cp(text: &str) -> (Role, bool, String) {
    (Role::User, true, text.into())
}

// ---------------------------------------------------------------------------
// The real fixtures.

#[test]
fn fixture_headers() {
    let cases = [
        (
            OLD_EXEC,
            "019b7f94-51b4-7593-922e-ba12b5b73b52",
            1_767_371_985_332, // 2026-01-02T16:39:45.332Z
            "/Users/Nikita_Levyankov/repos/EPMCDME/codemie-ai/codemie-code",
        ),
        (
            DESKTOP_REDACTED,
            "019c8bfe-ec25-79e0-97d7-bda6a9c575ff",
            1_771_875_265_573, // 2026-02-23T19:34:25.573Z
            "/redacted/path/ea96e59ed9",
        ),
        (
            TUI,
            "019e1625-789d-76c0-80ab-3724b5ddb799",
            1_778_488_015_042, // 2026-05-11T08:26:55.042Z
            "/Users/Sample_User/repos/codemie-ai/codemie-code",
        ),
        (
            DESKTOP_NO_USER_ITEMS,
            "019e1695-0522-7c83-8b39-0dd379793f80",
            1_778_495_325_482, // 2026-05-11T10:28:45.482Z
            "/Users/Sample_User/naya",
        ),
    ];
    for (file, id, created_at, cwd) in cases {
        let Some(bytes) = fixture(file) else { return };
        assert!(Codex.recognizes(bytes.split(|&b| b == b'\n').next().unwrap()));
        let expected = SessionHeader {
            version: 0,
            id: id.into(),
            created_at,
            cwd: Some(cwd.into()),
            label: None,
        };
        assert_eq!(header(&bytes), expected, "{file}");
        assert_eq!(read(&bytes).summary.unwrap().header, expected, "{file}");
    }
}

#[test]
fn fixture_titles_capacity_and_lines() {
    let cases = [
        // The typed prompt, from the `user_message` event.
        (
            OLD_EXEC,
            Some("what is current repository about? summarize purpuse and explain goals"),
            Some(258_400),
            26,
        ),
        (
            DESKTOP_REDACTED,
            Some("[REDACTED_MESSAGE len=98 sha=c002ff99]"),
            Some(258_400),
            63,
        ),
        // `task_started` before any token count gives the window too.
        (TUI, Some("show tools"), Some(258_400), 77),
        // Attached-file context leads the event; cut at the last space
        // within 80.
        (
            DESKTOP_NO_USER_ITEMS,
            Some("# Files mentioned by the user: ## Sample Project Demo Prep.vtt:"),
            None,
            37,
        ),
    ];
    for (file, title, capacity, lines) in cases {
        let Some(bytes) = fixture(file) else { return };
        let meta = scan(&bytes).meta();
        let expected = ScanMeta {
            title: title.map(String::from),
            capacity,
            skipped_lines: 0,
            failure: None,
        };
        assert_eq!(meta, expected, "{file}");
        let summary = read(&bytes).summary.unwrap();
        assert_eq!(summary.title.as_deref(), title, "{file}");
        assert_eq!(summary.capacity, capacity, "{file}");
        assert_eq!(summary.captured_through_seq, Some(lines), "{file}");
        assert_eq!(summary.skipped_lines, 0, "{file}");
    }
}

#[test]
fn fixture_injected_context_is_skipped() {
    // 0.77: AGENTS.md and environment context in messages of their own.
    let (Some(old), Some(tui)) = (fixture(OLD_EXEC), fixture(TUI)) else {
        return;
    };
    assert_eq!(
        surface(&old),
        [u(
            "what is current repository about? summarize purpuse and explain goals"
        )]
    );
    // 0.125: both in one message, which is then dropped; developer
    // messages never show.
    let tui = surface(&tui);
    let roles: Vec<Role> = tui.iter().map(|m| m.0).collect();
    use Role::{Assistant as A, User as U};
    assert_eq!(roles, [U, A, U, A, A, A]);
    assert_eq!(tui[0], u("show tools"));
    assert_eq!(
        tui[2],
        u("let's update the defailt context compart to 90 in env var")
    );
    assert!(tui[1]
        .2
        .starts_with("Available tool groups in this session:\n\n- `web`"));
    assert!(tui
        .iter()
        .all(|m| !m.2.contains("AGENTS.md instructions for")
            && !m.2.contains("<environment_context>")));
}

#[test]
fn fixture_with_assistant_items_only_does_not_project_events() {
    // It has `response_item` messages (assistant ones), so its
    // `user_message` events stay duplicates: only assistant text shows.
    let Some(bytes) = fixture(DESKTOP_NO_USER_ITEMS) else {
        return;
    };
    let s = surface(&bytes);
    assert_eq!(s.len(), 2);
    assert!(s.iter().all(|m| m.0 == Role::Assistant && !m.1));
    assert!(s[1]
        .2
        .starts_with("Yes. The transcript clearly assigns User"));
}

#[test]
fn fixture_redacted_desktop_rollout() {
    // Redaction hides which user messages were injected context, so all
    // three user items show; events never duplicate the items.
    let Some(bytes) = fixture(DESKTOP_REDACTED) else {
        return;
    };
    let s = surface(&bytes);
    assert_eq!(
        texts(&s)[..4],
        [
            "[REDACTED_TEXT len=5296 sha=393c5edf]",
            "[REDACTED_TEXT len=106 sha=81c7c868]",
            "[REDACTED_TEXT len=98 sha=c002ff99]",
            "[REDACTED_TEXT len=156 sha=2a40230f]",
        ]
    );
    assert_eq!(s.len(), 9);
    assert!(s.iter().all(|m| !m.2.starts_with("[REDACTED_MESSAGE")));
}

#[test]
fn fixture_seqs_increase_and_scanner_matches_read() {
    for file in [OLD_EXEC, DESKTOP_REDACTED, TUI, DESKTOP_NO_USER_ITEMS] {
        let Some(bytes) = fixture(file) else { return };
        let r = read(&bytes);
        assert!(r.entries.windows(2).all(|w| w[0].0 < w[1].0), "{file}");
        let summary = r.summary.unwrap();
        let meta = scan(&bytes).meta();
        assert_eq!(meta.title, summary.title, "{file}");
        assert_eq!(meta.capacity, summary.capacity, "{file}");
        // Fed in two parts, as an index does after an append.
        let cut = bytes.len() / 2;
        let cut = cut + bytes[cut..].iter().position(|&b| b == b'\n').unwrap() + 1;
        let mut scanner = scan(&bytes[..cut]);
        for l in bytes[cut..]
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
        {
            scanner.line(l);
        }
        assert_eq!(scanner.meta(), meta, "{file}");
    }
}

// ---------------------------------------------------------------------------
// Corner cases.

#[test]
fn events_only_rollout_projects_its_events() {
    let lines = vec![
        meta("e"),
        line("turn_context", r#"{"cwd":"/w","model":"m"}"#),
        user_event("hello there"),
        agent_event("hi"),
        event("token_count", r#","info":null"#),
        user_event("bye"),
    ];
    assert_eq!(
        surface(&rollout(&lines)),
        [u("hello there"), a("hi"), u("bye")]
    );
    assert_eq!(
        read(&rollout(&lines)).summary.unwrap().title.as_deref(),
        Some("hello there")
    );
    // Any `response_item` message, even a developer one at the very end,
    // makes the events duplicates again: decided by the whole file.
    let mut with_item = lines.clone();
    with_item.push(line(
        "response_item",
        &message("developer", "input_text", &["rules"]),
    ));
    assert_eq!(surface(&rollout(&with_item)), []);
    // Other response items do not count.
    let mut with_call = lines.clone();
    with_call.insert(
        2,
        line(
            "response_item",
            r#"{"type":"function_call","name":"shell","arguments":"{}","call_id":"c"}"#,
        ),
    );
    assert_eq!(surface(&rollout(&with_call)).len(), 3);
}

#[test]
fn readable_compaction_shadows_earlier_lines() {
    let lines = [
        meta("c"),
        user("first question"),
        assistant("first answer"),
        compacted("the summary so far", None),
        line("event_msg", r#"{"type":"context_compacted"}"#),
        user("next question"),
        assistant("next answer"),
    ];
    assert_eq!(
        surface(&rollout(&lines)),
        [
            cp("the summary so far"),
            u("next question"),
            a("next answer")
        ]
    );
    // The title is still the session's first prompt.
    assert_eq!(
        scan(&rollout(&lines)).meta().title.as_deref(),
        Some("first question")
    );
}

#[test]
fn encrypted_compaction_with_replacement_history() {
    let history = [
        message("developer", "input_text", &["<permissions instructions>x"]),
        message("user", "input_text", &[ENV]),
        message("user", "input_text", &["kept prompt"]),
        r#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":"kept answer"}],"phase":"final_answer"}"#.to_string(),
        r#"{"type":"reasoning","summary":[],"encrypted_content":"gAAA"}"#.into(),
        r#"{"type":"compaction","encrypted_content":"gAAAAABp"}"#.into(),
    ];
    let lines = [
        meta("c"),
        user("old prompt"),
        assistant("old answer"),
        compacted("", Some(&history)),
        user("after"),
    ];
    assert_eq!(
        surface(&rollout(&lines)),
        [
            cp(ENCRYPTED_SUMMARY),
            u("kept prompt"),
            a("kept answer"),
            u("after")
        ]
    );
    // Seqs: the history sorts right after its checkpoint, before line 5.
    let seqs: Vec<u64> = read(&rollout(&lines))
        .entries
        .iter()
        .filter(|(_, e)| matches!(e, Event::Message { .. } | Event::Checkpoint { .. }))
        .map(|(s, _)| *s)
        .collect();
    let k = track::SPACING;
    assert_eq!(seqs, [2 * k, 3 * k, 4 * k, 4 * k + 1, 4 * k + 2, 5 * k]);
}

#[test]
fn repeated_summary_is_not_shown_twice() {
    let summary = "Another language model started to solve this problem...\nsummary";
    let history = [
        message("user", "input_text", &["what I asked"]),
        message("user", "input_text", &[summary]),
    ];
    let lines = [
        meta("c"),
        user("what I asked"),
        compacted(summary, Some(&history)),
        user("go on"),
    ];
    assert_eq!(
        surface(&rollout(&lines)),
        [cp(summary), u("what I asked"), u("go on")]
    );
}

#[test]
fn empty_compaction_still_shadows_and_the_last_one_decides() {
    let lines = [
        meta("c"),
        user("one"),
        compacted(
            "first summary",
            Some(&[message("user", "input_text", &["h1"])]),
        ),
        user("two"),
        compacted("", Some(&[message("user", "input_text", &["h2"])])),
        user("three"),
    ];
    assert_eq!(surface(&rollout(&lines)), [u("h2"), u("three")]);
}

#[test]
fn resumed_rollout_appends_without_a_new_session_meta() {
    let first = rollout(&[meta("r"), user_event("start here"), user("start here")]);
    let mut scanner = scan(&first);
    // A resumed session appends to the same file.
    let appended = rollout(&[
        line("turn_context", r#"{"cwd":"/w"}"#),
        user_event("resumed"),
        user("resumed"),
        // A later session_meta never changes who the session is.
        meta("other"),
        event("task_started", r#","model_context_window":1000"#),
    ]);
    for l in appended.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        scanner.line(l);
    }
    let mut whole = first.clone();
    whole.extend_from_slice(&appended);
    assert_eq!(scanner.header(), scan(&whole).header());
    assert!(matches!(scanner.header(), HeaderState::Session(h) if h.id == "r"));
    assert_eq!(scanner.meta().title.as_deref(), Some("start here"));
    assert_eq!(scanner.meta().capacity, Some(1000));
    let r = read(&whole);
    assert_eq!(r.summary.as_ref().unwrap().header.id, "r");
    assert_eq!(surface(&whole), [u("start here"), u("resumed")]);
}

#[test]
fn sub_agent_display_titles() {
    let spawn = |fields: &str| {
        format!(
            r#","source":{{"subagent":{{"thread_spawn":{{"parent_thread_id":"p","depth":1{fields}}}}}}}"#
        )
    };
    let label = |extra: &str| header(&rollout(&[meta_with("s", extra)])).label;
    // The nickname from thread_spawn when session_meta has none.
    assert_eq!(
        label(&spawn(
            r#","agent_nickname":"Scout","agent_role":"explorer""#
        )),
        Some("Scout".into())
    );
    assert_eq!(
        label(&spawn(r#","agent_role":"explorer""#)),
        Some("explorer".into())
    );
    // session_meta's own fields come first.
    assert_eq!(
        label(&(spawn(r#","agent_nickname":"Scout""#) + r#","agent_nickname":"Ada""#)),
        Some("Ada".into())
    );
    // A role in session_meta loses to any nickname.
    assert_eq!(
        label(&(spawn(r#","agent_nickname":"Scout""#) + r#","agent_role":"worker""#)),
        Some("Scout".into())
    );
    assert_eq!(
        label(r#","source":{"subagent":"review"},"agent_role":"reviewer""#),
        Some("reviewer".into())
    );
    assert_eq!(label(r#","source":{"subagent":"review"}"#), None);
    assert_eq!(label(&spawn(r#","agent_nickname":"  ""#)), None);
    // Not a sub-agent: its names are not a display title.
    assert_eq!(label(r#","agent_nickname":"Ada""#), None);
    assert_eq!(
        label(r#","source":{"subagent":null},"agent_nickname":"Ada""#),
        None
    );
    assert_eq!(
        label(r#","source":{"other":1},"agent_nickname":"Ada""#),
        None
    );
    assert_eq!(label(r#","source":"cli","agent_nickname":"Ada""#), None);
    // A repeated key makes session_meta not understood: no session.
    assert!(matches!(
        scan(&rollout(&[meta_with(
            "s",
            r#","source":"cli","source":"exec""#
        )]))
        .header(),
        HeaderState::NotASession(_)
    ));
}

#[test]
fn rollout_without_session_meta_is_not_a_session() {
    for lines in [
        vec![user("hello"), meta("late")],
        vec![line("session_meta", r#"{"timestamp":"x"}"#), meta("late")],
        vec![line("session_meta", r#"{"id":""}"#)],
        vec![line("session_meta", r#"{"id":7}"#)],
        vec!["not json".to_string(), meta("late")],
    ] {
        let bytes = rollout(&lines);
        let scanner = scan(&bytes);
        assert!(
            matches!(scanner.header(), HeaderState::NotASession(_)),
            "{lines:?}"
        );
        assert!(scanner.is_done());
        assert!(matches!(read(&bytes).summary, Err(ReadError::Log(_))));
    }
    assert_eq!(scan(b"").header(), HeaderState::Pending);
    assert_eq!(scan(meta("x").as_bytes()).header(), HeaderState::Pending);
    assert!(matches!(
        read(meta("x").as_bytes()).summary,
        Err(ReadError::Log(_))
    ));
    // Blank lines before it are no line at all.
    assert!(matches!(
        scan(&rollout(&[String::new(), meta("x"), user("hi")])).header(),
        HeaderState::Session(_)
    ));
    assert!(!Codex.recognizes(user("x").as_bytes()));
    assert!(!Codex.recognizes(br#"{"type":"session","id":"h","createdAt":1}"#));
}

#[test]
fn unfinished_last_line_is_ignored() {
    let mut bytes = rollout(&[meta("u"), user("done")]);
    bytes.extend_from_slice(br#"{"timestamp":"x","type":"response_item","payload":{"type":"mess"#);
    bytes.extend_from_slice(b"\xff");
    let r = read(&bytes);
    let summary = r.summary.unwrap();
    assert_eq!(summary.captured_through_seq, Some(2));
    let complete = rollout(&[meta("u"), user("done")]).len() as u64;
    assert_eq!(summary.bytes, complete);
    assert_eq!(summary.skipped_lines, 0);
    assert_eq!(surface(&bytes), [u("done")]);
    assert_eq!(scan(&bytes).meta().failure, None);
}

#[test]
fn invalid_utf8_fails_the_read() {
    let mut bytes = rollout(&[meta("x"), user("ok")]);
    bytes.extend_from_slice(b"{\"type\":\"event_msg\",\"payload\":\"\xff\"}\n");
    bytes.extend_from_slice(&rollout(&[user("later")]));
    match read(&bytes).summary {
        Err(ReadError::Log(e)) => {
            assert_eq!(e.line, Some(3));
            assert_eq!(e.reason, "invalid UTF-8");
        }
        other => panic!("{other:?}"),
    }
    let meta = scan(&bytes).meta();
    assert_eq!(meta.failure.as_deref(), Some("line 3: invalid UTF-8"));
    assert_eq!(meta.title, None);
    // On line 1 it is not a session at all.
    assert!(matches!(
        scan(b"\xff\n").header(),
        HeaderState::NotASession(_)
    ));
}

#[test]
fn wrong_types_in_every_line_kind_are_skipped_and_counted() {
    let skipped = [
        "not json".to_string(),
        "[1,2]".into(),
        "null".into(),
        r#"{"type":1,"payload":{}}"#.into(),
        r#"{"payload":{"type":"message"}}"#.into(),
        r#"{"type":"response_item","type":"response_item","payload":{}}"#.into(),
        line("response_item", "[]"),
        line("response_item", "null"),
        line(
            "response_item",
            r#"{"type":"message","role":5,"content":[]}"#,
        ),
        line(
            "response_item",
            r#"{"type":"message","role":"user","content":"text"}"#,
        ),
        line(
            "response_item",
            r#"{"type":"message","role":"user","content":{}}"#,
        ),
        r#"{"type":"response_item"}"#.into(),
        line("compacted", r#"{"message":5}"#),
        line("compacted", r#"{"message":"s","replacement_history":{}}"#),
        line("compacted", r#""summary""#),
        line("event_msg", r#"{"message":"no type"}"#),
        line("event_msg", r#"{"type":"user_message","message":["x"]}"#),
        line("event_msg", r#"{"type":"user_message"}"#),
        line("event_msg", r#"{"type":"agent_message","message":null}"#),
        line(
            "event_msg",
            r#"{"type":"thread_name_updated","thread_name":3}"#,
        ),
        line("event_msg", r#"{"type":"token_count","info":"big"}"#),
        line(
            "event_msg",
            r#"{"type":"token_count","info":{"model_context_window":"9"}}"#,
        ),
        line(
            "event_msg",
            r#"{"type":"task_started","model_context_window":true}"#,
        ),
        line("session_meta", "7"),
        line("session_meta", r#"{"id":{}}"#),
        // One `}` too few: not JSON (its closed twin below is understood).
        line(
            "response_item",
            r#"{"type":"message","role":"user","content":[1,null,{"type":"input_text","text":9}]"#,
        ),
    ];
    let understood = [
        line("mystery", r#"{"anything":[1]}"#),
        r#"{"type":"mystery"}"#.into(),
        line("turn_context", "5"),
        line(
            "response_item",
            r#"{"type":"function_call","content":"not a message"}"#,
        ),
        line(
            "response_item",
            r#"{"type":"message","role":"user","content":[1,null,{"type":"input_text","text":9}]}"#,
        ),
        line(
            "response_item",
            r#"{"type":"message","role":"tool","content":null}"#,
        ),
        line(
            "response_item",
            r#"{"content":[{"type":"input_text","text":"x"}],"role":"user"}"#,
        ),
        line(
            "compacted",
            r#"{"message":null,"replacement_history":[1,"x",null,{"type":"message","role":7}]}"#,
        ),
        line(
            "event_msg",
            r#"{"type":"token_count","info":{"model_context_window":-1}}"#,
        ),
        line(
            "event_msg",
            r#"{"type":"token_count","info":{"model_context_window":0.5}}"#,
        ),
        line(
            "event_msg",
            r#"{"type":"task_started","model_context_window":null}"#,
        ),
        line("event_msg", r#"{"type":"thread_name_updated"}"#),
        line("event_msg", r#"{"type":"exec_command_end","message":7}"#),
    ];
    for l in &understood {
        assert!(
            !matches!(
                line::parse_line(l.as_bytes()),
                Err(line::LineError::NotUnderstood)
            ),
            "{l}"
        );
    }
    for l in &skipped {
        assert_eq!(
            line::parse_line(l.as_bytes()),
            Err(line::LineError::NotUnderstood),
            "{l}"
        );
    }
    let mut lines = vec![meta("w")];
    lines.extend(skipped.iter().cloned());
    lines.extend(understood.iter().cloned());
    lines.push(user("survivor"));
    let bytes = rollout(&lines);
    let scanner = scan(&bytes);
    assert_eq!(scanner.meta().skipped_lines, skipped.len() as u64);
    let summary = read(&bytes).summary.unwrap();
    assert_eq!(summary.skipped_lines, skipped.len() as u64);
    assert_eq!(summary.title.as_deref(), Some("survivor"));
    assert_eq!(summary.capacity, None);
    assert_eq!(surface(&bytes), [u("survivor")]);
}

#[test]
fn thread_names_are_used_as_written() {
    let long = "a name that is much longer than eighty characters, and it is kept whole as the person wrote it";
    let lines = [
        meta("t"),
        user_event("prompt"),
        event("thread_name_updated", r#","thread_name":"  First  ""#),
        event(
            "thread_name_updated",
            &format!(r#","thread_name":{}"#, json(long)),
        ),
        event("thread_name_updated", r#","thread_name":"   ""#),
        event("thread_name_updated", r#","thread_name":null"#),
    ];
    assert_eq!(scan(&rollout(&lines)).meta().title.as_deref(), Some(long));
    assert_eq!(
        scan(&rollout(&lines[..3])).meta().title.as_deref(),
        Some("First")
    );
    assert_eq!(
        read(&rollout(&lines)).summary.unwrap().title.as_deref(),
        Some(long)
    );
}

#[test]
fn title_falls_back_to_the_first_projected_user_message() {
    let long = format!("{} {}", "word ".repeat(15).trim(), "x".repeat(30));
    let lines = [
        meta("t"),
        line(
            "response_item",
            &message(
                "user",
                "input_text",
                &[ENV, "# AGENTS.md instructions for /w\n\nrules"],
            ),
        ),
        user_event("   "),
        user(&long),
        user("second"),
    ];
    // 74 scalars of words, then 30 x's: cut after the last space within 80.
    let expected = "word ".repeat(15).trim().to_string();
    assert_eq!(
        scan(&rollout(&lines)).meta().title.as_deref(),
        Some(expected.as_str())
    );
    assert_eq!(
        read(&rollout(&lines)).summary.unwrap().title.as_deref(),
        Some(expected.as_str())
    );
}

#[test]
fn user_blocks_are_judged_one_by_one() {
    let lines = [
        meta("b"),
        line(
            "response_item",
            &message(
                "user",
                "input_text",
                &[
                    ENV,
                    "real text",
                    "<user_shell_command>ls</user_shell_command>",
                    "more",
                ],
            ),
        ),
        // Output blocks of a user message and input blocks of an
        // assistant message are not theirs.
        line(
            "response_item",
            r#"{"type":"message","role":"user","content":[{"type":"output_text","text":"no"},{"type":"input_image","image_url":"data:"}]}"#,
        ),
        line(
            "response_item",
            r#"{"type":"message","role":"assistant","content":[{"type":"input_text","text":"no"},{"type":"output_text","text":"yes"},{"type":"output_text","text":"twice"}]}"#,
        ),
        line("response_item", &message("system", "input_text", &["sys"])),
    ];
    assert_eq!(
        surface(&rollout(&lines)),
        [u("real text\nmore"), a("yes\ntwice")]
    );
}

#[test]
fn capacity_is_the_last_usable_window() {
    let lines = [
        meta("w"),
        user("hi"),
        event("task_started", r#","model_context_window":1000"#),
        event("token_count", r#","info":null"#),
        event(
            "token_count",
            r#","info":{"total_token_usage":{},"model_context_window":258400.0}"#,
        ),
        event("token_count", r#","info":null,"rate_limits":{}"#),
        event("token_count", r#","info":{"model_context_window":0}"#),
        event("task_started", r#","model_context_window":1.5"#),
    ];
    let bytes = rollout(&lines);
    assert_eq!(scan(&bytes).meta().capacity, Some(258_400));
    let r = read(&bytes);
    assert_eq!(r.summary.unwrap().capacity, Some(258_400));
    let windows: Vec<&Event> = r
        .entries
        .iter()
        .map(|(_, e)| e)
        .filter(|e| matches!(e, Event::Capacity(_)))
        .collect();
    assert_eq!(
        windows,
        [
            &Event::Capacity(Some(1000)),
            &Event::Capacity(Some(258_400))
        ]
    );
}

#[test]
fn created_at_falls_back_to_the_line_timestamp() {
    let payload = r#"{"id":"t","timestamp":"yesterday","cwd":"/w"}"#;
    let bytes = rollout(&[format!(
        r#"{{"timestamp":"2026-01-01T00:00:01.5Z","type":"session_meta","payload":{payload}}}"#
    )]);
    assert_eq!(header(&bytes).created_at, 1_767_225_601_500);
    let bytes = rollout(&[line("session_meta", r#"{"id":"t","cwd":7}"#)]);
    assert_eq!(header(&bytes).created_at, 1_767_225_600_000);
    assert_eq!(header(&bytes).cwd, None);
    // No parsable timestamp at all: the file's modification time, which
    // the index gives the scanner before line 1.
    let bytes = rollout(&[r#"{"type":"session_meta","payload":{"id":"t","timestamp":5}}"#.into()]);
    let mut scanner = CodexScanner::default();
    scanner.file_modified(42);
    scanner.line(&bytes[..bytes.len() - 1]);
    scanner.line(user("hi").as_bytes());
    assert!(matches!(scanner.header(), HeaderState::Session(h) if h.created_at == 42));
}

#[test]
fn payload_before_type_is_read_the_same() {
    let lines = [
        r#"{"payload":{"id":"p","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"},"type":"session_meta"}"#.to_string(),
        r#"{"payload":{"role":"user","content":[{"type":"input_text","text":"hi"}],"type":"message"},"timestamp":"x","type":"response_item"}"#.into(),
        r#"{"payload":{"type":"token_count","info":{"model_context_window":5}},"type":"event_msg"}"#.into(),
    ];
    let bytes = rollout(&lines);
    assert_eq!(header(&bytes).id, "p");
    assert!(Codex.recognizes(lines[0].as_bytes()));
    assert_eq!(surface(&bytes), [u("hi")]);
    assert_eq!(scan(&bytes).meta().capacity, Some(5));
}

/// Lines a generated rollout is made of: every kind, good and bad.
pub(crate) fn line_pool() -> Vec<String> {
    vec![
        user("hello"),
        user("  spaced   out  "),
        user("S"),
        assistant("answer"),
        line(
            "response_item",
            &message("developer", "input_text", &["dev"]),
        ),
        line("response_item", &message("user", "input_text", &[ENV])),
        line("response_item", r#"{"type":"function_call","name":"x"}"#),
        user_event("typed"),
        user_event("S"),
        agent_event("said"),
        event("thread_name_updated", r#","thread_name":"Named""#),
        event("thread_name_updated", r#","thread_name":" ""#),
        event("token_count", r#","info":null"#),
        event("token_count", r#","info":{"model_context_window":100}"#),
        event("task_started", r#","model_context_window":200"#),
        compacted("S", Some(&[message("user", "input_text", &["S"])])),
        compacted(
            "",
            Some(&[
                message("user", "input_text", &["kept"]),
                r#"{"type":"compaction"}"#.into(),
            ]),
        ),
        compacted("", None),
        meta("again"),
        String::new(),
        "garbage".into(),
        line("event_msg", r#"{"type":"user_message","message":1}"#),
    ]
}

proptest::proptest! {
    #[test]
    fn index_and_read_agree_on_any_rollout(
        picks in proptest::collection::vec(0usize..22, 0..40),
        split in 0usize..40,
    ) {
        let pool = line_pool();
        let mut lines = vec![meta("p")];
        lines.extend(picks.iter().map(|&i| pool[i].clone()));
        let bytes = rollout(&lines);
        let r = read(&bytes);
        // Without a user or assistant message it is no session, for the
        // index and for a read alike.
        let Ok(summary) = r.summary else {
            proptest::prop_assert_eq!(scan(&bytes).header(), HeaderState::Pending);
            return Ok(());
        };
        proptest::prop_assert!(matches!(scan(&bytes).header(), HeaderState::Session(_)));
        proptest::prop_assert!(r.entries.windows(2).all(|w| w[0].0 < w[1].0));
        proptest::prop_assert_eq!(summary.captured_through_seq, Some(lines.len() as u64));
        let whole = scan(&bytes).meta();
        proptest::prop_assert_eq!(&whole.title, &summary.title);
        proptest::prop_assert_eq!(whole.capacity, summary.capacity);
        proptest::prop_assert_eq!(whole.skipped_lines, summary.skipped_lines);
        // Fed in two parts, as after an append.
        let split = split.min(lines.len());
        let mut scanner = scan(&rollout(&lines[..split.max(1)]));
        for l in &lines[split.max(1)..] {
            scanner.line(l.as_bytes());
        }
        proptest::prop_assert_eq!(scanner.meta(), whole);
    }
}

/// `prepare --format text`'s output for one source, then the person's text.
pub(crate) fn rendered_prompt(person: &str) -> String {
    use crate::reference::render;
    let mut object = String::new();
    render::write_data_object(
        &mut object,
        &render::SourceMeta {
            session_id: "old",
            label: "Old work",
            cwd: Some("/w"),
            captured_through_seq: None,
        },
        &[render::Turn {
            role: Role::Assistant,
            text: "said before".into(),
        }],
    );
    render::append_omission(
        &mut object,
        2,
        300,
        &render::FullSnapshot::Unavailable("spill disabled".into()),
    );
    format!("{}\n\n{person}", render::render_context([object.as_str()]))
}

#[test]
fn a_rendered_context_leaves_the_title_and_the_surface() {
    let person = "Continue from @[Review the cart totals](hydra-session:ImEi) please";
    let prompt = rendered_prompt(person);
    let title = Some("Continue from @Review the cart totals please".to_string());
    // `codex exec "$(prepare --format text …)"`: item and event alike.
    let bytes = rollout(&[
        meta("e"),
        user(&prompt),
        user_event(&prompt),
        assistant("ok"),
    ]);
    assert_eq!(scan(&bytes).meta().title, title);
    assert_eq!(read(&bytes).summary.unwrap().title, title);
    assert_eq!(surface(&bytes), [u(person), a("ok")]);
    // Without the event the projected message titles it, the same way.
    let bytes = rollout(&[meta("e"), user(&prompt)]);
    assert_eq!(scan(&bytes).meta().title, title);
    // Events only.
    let bytes = rollout(&[meta("e"), user_event(&prompt), agent_event("ok")]);
    assert_eq!(surface(&bytes), [u(person), a("ok")]);
    // A thread name is used as written, markup and all.
    let named = event(
        "thread_name_updated",
        r#","thread_name":"@[x](hydra-session:ImEi)""#,
    );
    let bytes = rollout(&[meta("e"), user("hi"), named]);
    assert_eq!(
        scan(&bytes).meta().title.as_deref(),
        Some("@[x](hydra-session:ImEi)")
    );
    // What merely looks rendered stays.
    let similar = format!(" {prompt}");
    let bytes = rollout(&[meta("e"), user(&similar)]);
    assert_eq!(surface(&bytes), [u(&similar)]);
}

/// The rollouts written here (`tests/fixtures/codex/sessions/`, small and
/// invented) for the rules the shared real rollouts exercise, so they hold
/// without `../shared`: `task_started` before the first item, a developer
/// message, one user message of two injected blocks (dropped), a
/// `user_message` event beside its item, `token_count` with `info: null`
/// then a window, reasoning, a function call and its output, a
/// `ghost_snapshot`, assistant messages with `phase`, a skipped line, a
/// `compacted` line with a `replacement_history` (its repeated summary not
/// shown twice), `thread_name_updated`; a `thread_spawn` sub-agent; and a
/// rollout of events only.
pub(crate) const OWN_SESSIONS: &str = "tests/fixtures/codex/sessions/2026/11/30";
pub(crate) const OWN_MAIN: &str =
    "rollout-2026-11-30T10-00-00-019ad0c1-2b3c-7d4e-8f50-617283940a1b.jsonl";
pub(crate) const OWN_SUB: &str =
    "rollout-2026-11-30T10-00-30-019ad0c1-9e8d-7c6b-a5f4-e3d2c1b0a998.jsonl";
pub(crate) const OWN_EVENTS: &str =
    "rollout-2026-11-30T11-00-00-019ad0c2-0000-7aaa-8bbb-ccccdddd0001.jsonl";

#[test]
fn the_own_fixtures_read_as_their_golden_files_say() {
    use crate::formats::toolkit::golden::{assert_golden, read_as_json};
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(OWN_SESSIONS);
    for name in [OWN_MAIN, OWN_SUB, OWN_EVENTS] {
        let path = dir.join(name);
        let log = MemoryLog::new(std::fs::read(&path).unwrap()).modified(42);
        assert_golden(&path, &read_as_json(&Codex, &log));
    }
    let log = MemoryLog::new(std::fs::read(dir.join(OWN_MAIN)).unwrap());
    let mut projector = Projector::new(None, usize::MAX);
    let summary = Codex
        .read(&log, &|| false, &mut |e| projector.push(e))
        .unwrap();
    assert_eq!(summary.title.as_deref(), Some("Cart rounding"));
    assert_eq!(summary.capacity, Some(272_000));
    assert_eq!(summary.skipped_lines, 1);
    let surface: Vec<(Role, bool, String)> = projector
        .finish()
        .messages
        .into_iter()
        .map(|m| (m.role, m.checkpoint, m.text))
        .collect();
    assert_eq!(
        surface,
        [
            (
                Role::User,
                true,
                "Ana asked why the cart total drifts; cart.rs rounds once.".into()
            ),
            (
                Role::User,
                false,
                "Why does the cart total drift by a cent?".into()
            ),
            (Role::User, false, "Round per line instead".into()),
            (
                Role::Assistant,
                false,
                "Done: `cart::total` rounds each line.\nIt is tested in `tests/cart.rs`.".into()
            ),
        ]
    );
}
