//! Pushed diagnostics: every kind of server.md's table, versions, fast
//! typing, and a large document.

use crate::lsp_common;

use base64::Engine;
use lsp_common::*;
use serde_json::{json, Value};

/// A store for every diagnostic kind, under a 1,500-byte budget.
fn store() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    LogBuilder::new("alpha", 1_000, Some("/w"))
        .user("hi")
        .assistant("hello")
        .title("Alpha")
        .write(&root.join("alpha.jsonl"));
    LogBuilder::new("me", 2_000, Some("/w"))
        .user("self")
        .write(&root.join("me.jsonl"));
    let mut big = LogBuilder::new("big", 3_000, Some("/w"));
    for i in 0..30 {
        big = big.user(&format!("message {i} {}", "x".repeat(90)));
    }
    big.write(&root.join("big.jsonl"));
    LogBuilder::new("fixed", 4_000, Some(&"c".repeat(2_000)))
        .user("hi")
        .write(&root.join("fixed.jsonl"));
    dir
}

async fn start(client: &mut InProcess, store: &std::path::Path) {
    client
        .initialize(json!({
            "capabilities": {},
            "initializationOptions": {"hydraSession": {
                "store": store, "targetSessionId": "me", "maxReferenceBytes": 1500
            }},
        }))
        .await;
}

fn noncanonical(id: &str) -> String {
    // JSON white space before the string: decodes, but is not canonical.
    let payload =
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!(" {}", json!(id)));
    format!("hydra-session:{payload}")
}

fn diag(line: u32, from: u32, to: u32, severity: u8, code: &str, message: &str) -> Value {
    json!({
        "range": {"start": {"line": line, "character": from}, "end": {"line": line, "character": to}},
        "severity": severity, "code": code, "source": "hydra-session", "message": message,
    })
}

fn len(s: &str) -> u32 {
    s.len() as u32
}

#[tokio::test]
async fn every_kind_with_its_severity_code_and_range() {
    let store = store();
    let (mut client, _server) = in_process();
    start(&mut client, store.path()).await;
    let alpha = mention("alpha", "Alpha");
    let me = mention("me", "Me");
    let bad = "@[Bad](hydra-session:!!)";
    let bare = noncanonical("alpha");
    let big = mention("big", "Big");
    let fixed = mention("fixed", "Fixed");
    let ghost = mention("ghost", "Ghost");
    let text = format!("see {alpha} and\n{me}\n{bad}\n{bare}\n{big} {fixed}\n{ghost}\n{alpha}\n");
    let uri = file_uri("/w/prompt.md");
    client.open(&uri, &text).await;
    let got = client.diagnostics(&uri, 1).await;
    let bad_uri_start = len("@[Bad](");
    let mut noncanonical = diag(
        3,
        0,
        len(&bare),
        1,
        "SESSION_REFERENCE_INVALID_REFERENCE",
        &format!(
            "noncanonical session reference URI for session \"alpha\"; canonical form: {}",
            uri_of("alpha")
        ),
    );
    noncanonical["data"] = json!({"canonical": uri_of("alpha")});
    let expected = json!([
        diag(
            1,
            0,
            len(&me),
            1,
            "SESSION_REFERENCE_SELF_REFERENCE",
            "session \"me\" cannot reference itself"
        ),
        diag(
            2,
            bad_uri_start,
            len(bad) - 1,
            1,
            "SESSION_REFERENCE_INVALID_REFERENCE",
            "invalid session reference URI \"hydra-session:!!\""
        ),
        noncanonical,
        diag(
            4,
            0,
            len(&big),
            3,
            "SESSION_REFERENCE_TRUNCATED",
            "session \"Big\" will be truncated: keeps 11 of 30 messages, omits 1909 bytes"
        ),
        diag(
            4,
            len(&big) + 1,
            len(&big) + 1 + len(&fixed),
            1,
            "SESSION_REFERENCE_BUDGET_EXCEEDED",
            "referenced session snapshot cannot fit the configured byte budget"
        ),
        diag(
            5,
            0,
            len(&ghost),
            1,
            "SESSION_REFERENCE_TOO_MANY",
            "a message may reference at most 3 sessions; \"ghost\" is source 4"
        ),
    ]);
    assert_eq!(
        got,
        expected,
        "{}",
        serde_json::to_string_pretty(&got).unwrap_or_default()
    );
}

#[tokio::test]
async fn an_unknown_session_is_a_read_warning_on_every_mention() {
    let store = store();
    let (mut client, _server) = in_process();
    start(&mut client, store.path()).await;
    let ghost = mention("ghost", "Ghost");
    let uri = file_uri("/w/p.md");
    client.open(&uri, &format!("{ghost} {ghost}")).await;
    let got = client.diagnostics(&uri, 1).await;
    let message = "failed to read referenced session: session \"ghost\" not found";
    let n = len(&ghost);
    assert_eq!(
        got,
        json!([
            diag(0, 0, n, 2, "SESSION_REFERENCE_READ_FAILED", message),
            diag(
                0,
                n + 1,
                2 * n + 1,
                2,
                "SESSION_REFERENCE_READ_FAILED",
                message
            ),
        ])
    );
}

#[tokio::test]
async fn changes_publish_with_their_version_and_close_clears() {
    let store = store();
    let (mut client, _server) = in_process();
    start(&mut client, store.path()).await;
    let uri = file_uri("/w/p.md");
    client.open(&uri, "nothing yet").await;
    assert_eq!(client.diagnostics(&uri, 1).await, json!([]));
    client
        .notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": "@[x](hydra-session:)"}]}),
        )
        .await;
    let got = client.diagnostics(&uri, 2).await;
    assert_eq!(got[0]["code"], "SESSION_REFERENCE_INVALID_REFERENCE");
    client
        .notify(
            "textDocument/didClose",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    let cleared = client
        .wait_for("cleared diagnostics", |m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["version"].is_null()
        })
        .await;
    assert_eq!(cleared["params"]["diagnostics"], json!([]));
}

/// A tiny deterministic generator, so the edit sequence is reproducible.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, bound: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % bound.max(1)
    }
}

/// UTF-16 position of char index `at` in `text`.
fn position_of(text: &[char], at: usize) -> Value {
    let (mut line, mut col) = (0u32, 0u32);
    let mut i = 0;
    while i < at {
        match text[i] {
            '\r' if text.get(i + 1) == Some(&'\n') => {
                if i + 1 == at {
                    break;
                }
                line += 1;
                col = 0;
                i += 1;
            }
            '\n' | '\r' => {
                line += 1;
                col = 0;
            }
            c => col += c.len_utf16() as u32,
        }
        i += 1;
    }
    json!({"line": line, "character": col})
}

#[tokio::test]
async fn a_thousand_rapid_edits_leave_the_same_text_and_final_diagnostics() {
    let store = store();
    let (mut client, _server) = in_process();
    start(&mut client, store.path()).await;
    let uri = file_uri("/w/fast.md");
    let mut text: Vec<char> = "start\r\n".chars().collect();
    client.open(&uri, &text.iter().collect::<String>()).await;
    // No URI among the pieces: the server's whole text then comes back,
    // character for character, as `prepare`'s readable text.
    let pieces = [
        "a", "😀", "漢", "e\u{301}", "\r\n", "\n", "\r", "@", "[", "](", ")", " ", "\u{2028}",
    ];
    let mut rng = Lcg(7);
    for version in 2..=1000 {
        // Never split a CRLF: a client's positions cannot point inside one.
        let boundaries: Vec<usize> = (0..=text.len())
            .filter(|&i| !(i > 0 && text[i - 1] == '\r' && text.get(i) == Some(&'\n')))
            .collect();
        let start = boundaries[rng.next(boundaries.len())];
        let end_choices: Vec<usize> = boundaries
            .iter()
            .copied()
            .filter(|&b| b >= start && b <= start + 4)
            .collect();
        let end = end_choices[rng.next(end_choices.len())];
        let insert = if rng.next(3) == 0 {
            ""
        } else {
            pieces[rng.next(pieces.len())]
        };
        let change = json!({
            "range": {"start": position_of(&text, start), "end": position_of(&text, end)},
            "text": insert,
        });
        text.splice(start..end, insert.chars());
        client
            .notify("textDocument/didChange", json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}))
            .await;
    }
    let prepared = client
        .call(
            "sessionReference/prepare",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    let client_text: String = text.iter().collect();
    assert_eq!(
        prepared["content"][0]["text"],
        json!(client_text),
        "the server's text differs"
    );
    // `prepare` answered with the last text: every edit had arrived.

    // One more edit adds a mention at the very end, after all those wide
    // characters and line breaks: its diagnostic lands where the client
    // computes it.
    let ghost = mention("ghost", "Ghost");
    let end = position_of(&text, text.len());
    client
        .notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": 1001}, "contentChanges": [{"range": {"start": end, "end": end}, "text": ghost}]}),
        )
        .await;
    let got = client.diagnostics(&uri, 1001).await;
    let final_text = format!("{client_text}{ghost}");
    let line = end["line"].as_u64().unwrap_or_default() as u32;
    let column = end["character"].as_u64().unwrap_or_default() as u32;
    let message = "failed to read referenced session: session \"ghost\" not found";
    assert_eq!(
        got,
        json!([diag(
            line,
            column,
            column + len(&ghost),
            2,
            "SESSION_REFERENCE_READ_FAILED",
            message
        )])
    );
    // And a fresh server given the final text says the same.
    let mut fresh = in_process();
    start(&mut fresh.0, store.path()).await;
    fresh.0.open(&uri, &final_text).await;
    assert_eq!(got, fresh.0.diagnostics(&uri, 1).await);
    // What holds on any machine, however the edits were spaced when they
    // reached the server: runs publish in the order their edits came (an
    // older version never lands after a newer one), and none publishes a
    // version the client never sent. How many mid-burst versions are
    // skipped depends on the machine's speed; the debounce's counts are
    // tested on a paused clock in src/server/debounce.rs.
    let versions: Vec<i64> = client
        .drain("textDocument/publishDiagnostics")
        .await
        .into_iter()
        .filter_map(|m| m["params"]["version"].as_i64())
        .collect();
    assert!(
        versions.windows(2).all(|w| w[0] <= w[1]),
        "diagnostics published out of order: {versions:?}"
    );
    assert!(
        versions.iter().all(|v| (1..=1001).contains(v)),
        "a version the client never sent: {versions:?}"
    );
}

#[tokio::test]
async fn a_ten_megabyte_document_is_served() {
    let store = store();
    let (mut client, _server) = in_process();
    start(&mut client, store.path()).await;
    let uri = file_uri("/w/big.md");
    let line = format!(
        "{} some prose to fill the line\n",
        mention("alpha", "Alpha")
    );
    let text = line.repeat(10 * 1024 * 1024 / line.len() + 1);
    client.open(&uri, &text).await;
    assert_eq!(client.diagnostics(&uri, 1).await, json!([]));
    let hover = client
        .call(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": 100000, "character": 3}}),
        )
        .await;
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap_or_default()
            .contains("**Alpha**"),
        "{hover}"
    );
}

#[tokio::test]
async fn a_label_with_a_bidi_override_or_zero_width_character_is_suspicious() {
    // Issue 18 item 10: the label shows one name and the URI is another's.
    let dir = store();
    let (mut client, _server) = in_process();
    start(&mut client, dir.path()).await;
    let uri = file_uri("/w/bidi.md");
    for (version, hidden) in [(1, '\u{202E}'), (2, '\u{2066}'), (3, '\u{200B}')] {
        let text = format!("@[Alpha{hidden}ahpla]({})", uri_of("alpha"));
        if version == 1 {
            client.open(&uri, &text).await;
        } else {
            client
                .notify(
                    "textDocument/didChange",
                    json!({"textDocument": {"uri": uri, "version": version},
                           "contentChanges": [{"text": text}]}),
                )
                .await;
        }
        let found = client.diagnostics(&uri, version).await;
        let codes: Vec<&str> = found
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|d| d["code"].as_str())
            .collect();
        assert_eq!(codes, ["SESSION_REFERENCE_SUSPICIOUS_LABEL"], "{hidden:?}");
        assert_eq!(found[0]["severity"], 2);
        assert_eq!(found[0]["range"]["start"]["character"], 0);
    }
}
