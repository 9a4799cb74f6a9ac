//! The language server before a team store's first listing (issue 26):
//! a pinned mention and a live mention of a published session are
//! "fetching", never "not found", while the listing is on its way, and
//! are published again once it came. A proxy in front of the server holds
//! the listing's request until the test has seen the first diagnostics,
//! so the order does not depend on how fast the machine is.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::time::Duration;

use serde_json::{json, Value};

use crate::lsp_common::{file_uri, mention, server_command, spawn};
use crate::person::Person;
use crate::skip::skipped;
use crate::weed::Weed;

const URL: &str = "s3://team/pending";
const FETCHING: &str = "SESSION_REFERENCE_FETCHING";
const READ_FAILED: &str = "SESSION_REFERENCE_READ_FAILED";
/// What a listing's request carries (ListObjectsV2).
const LIST: &[u8] = b"list-type=2";

/// Opened once by the test; every held request then goes on.
type Gate = Arc<(Mutex<bool>, Condvar)>;

fn open(gate: &Gate) {
    let (open, changed) = &**gate;
    if let Ok(mut open) = open.lock() {
        *open = true;
    }
    changed.notify_all();
}

/// A TCP proxy to `port` that holds any request carrying [`LIST`] until
/// `gate` opens, saying (once) when the first came.
fn holding_proxy(port: u16, gate: Gate) -> (u16, mpsc::Receiver<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a proxy port");
    let own = listener.local_addr().expect("its address").port();
    let (seen, told) = mpsc::sync_channel(1);
    std::thread::spawn(move || {
        for client in listener.incoming().flatten() {
            let Ok(server) = TcpStream::connect(("127.0.0.1", port)) else {
                continue;
            };
            let (Ok(client_in), Ok(server_out)) = (client.try_clone(), server.try_clone()) else {
                continue;
            };
            let (seen, gate) = (seen.clone(), gate.clone());
            std::thread::spawn(move || forward(client_in, server_out, Some((seen, gate))));
            std::thread::spawn(move || forward(server, client, None));
        }
    });
    (own, told)
}

fn forward(mut from: TcpStream, mut to: TcpStream, hold: Option<(mpsc::SyncSender<()>, Gate)>) {
    let mut buf = vec![0u8; 64 << 10];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if let Some((seen, gate)) = &hold {
            if buf[..n].windows(LIST.len()).any(|w| w == LIST) {
                let _ = seen.try_send(());
                let (open, changed) = &**gate;
                let Ok(mut is_open) = open.lock() else { break };
                while !*is_open {
                    let Ok(next) = changed.wait(is_open) else {
                        return;
                    };
                    is_open = next;
                }
            }
        }
        if to.write_all(&buf[..n]).is_err() {
            break;
        }
    }
    let _ = to.shutdown(std::net::Shutdown::Both);
}

fn codes(diagnostics: &Value) -> Vec<String> {
    diagnostics
        .as_array()
        .into_iter()
        .flatten()
        .map(|d| d["code"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn mentions_of_a_team_store_not_listed_yet_are_fetching_then_resolve() {
    // The server's setup runs a runtime of its own: the client's is
    // started after it.
    let weed = match Weed::start() {
        Ok(weed) => weed,
        Err(why) => return skipped(&why),
    };
    let ana = Person::new("ana", weed.env());
    ana.write_session("s1", "Rounding", &["the rounding fix", "done"]);
    let store = ana.store_arg();
    let published = ana
        .run(
            &[
                "publish", "--store", &store, "--to", URL, "--as", "ana", "s1",
            ],
            "",
        )
        .ok()
        .json();
    let sha = published[0]["sha256"]
        .as_str()
        .expect("a digest")
        .to_owned();

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(watch_the_server(&weed, &sha));
}

async fn watch_the_server(weed: &Weed, sha: &str) {
    let gate: Gate = Arc::default();
    let (port, listing) = holding_proxy(weed.port, gate.clone());
    let local = tempfile::tempdir().expect("a local store");
    let cache = tempfile::tempdir().expect("a cache");
    let mut command = server_command();
    for (k, v) in weed.env() {
        command.env(k, v);
    }
    command
        .env("AWS_ENDPOINT", format!("http://127.0.0.1:{port}"))
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .env("XDG_CACHE_HOME", cache.path());
    let (mut client, _child) = spawn(command);
    let root = local.path();
    client
        .start_with(
            root,
            root.to_str().expect("a UTF-8 path"),
            json!({"searchIndex": false, "store": [root, URL]}),
        )
        .await;
    // The listing is asked for, and held (a deadline, not a pause).
    tokio::task::block_in_place(|| listing.recv_timeout(Duration::from_secs(30)))
        .expect("the server lists the team store");

    let doc = file_uri(&root.join("prompt.md").to_string_lossy());
    let pinned = format!("~ana/s1@sha256:{sha}");
    let text = format!(
        "{}\n{}\n",
        mention(&pinned, "fix"),
        mention("~ana/s1", "live")
    );
    client.open(&doc, &text).await;
    let first = client
        .wait_for("the first diagnostics", |m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == doc
        })
        .await["params"]["diagnostics"]
        .clone();
    assert_eq!(codes(&first), [FETCHING, FETCHING], "{first:#}");
    let pin_note = first[0]["message"].as_str().unwrap_or_default();
    assert!(
        pin_note.contains(&format!("sha256:{}", &sha[..12])) && pin_note.contains(URL),
        "{pin_note}"
    );
    let live_note = first[1]["message"].as_str().unwrap_or_default();
    assert!(
        live_note.contains("~ana/s1") && live_note.contains(&format!("first listing of {URL}")),
        "{live_note}"
    );

    // The listing goes on: the diagnostics are published again, and end
    // empty once the snapshot is fetched — never "not found" on the way.
    open(&gate);
    client
        .wait_for("the resolved diagnostics", |m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == doc
                && codes(&m["params"]["diagnostics"]).is_empty()
        })
        .await;
    let between = client.drain("textDocument/publishDiagnostics").await;
    for message in &between {
        let diagnostics = &message["params"]["diagnostics"];
        assert!(
            !codes(diagnostics).iter().any(|c| c == READ_FAILED),
            "{diagnostics:#}"
        );
    }
    client.shutdown_and_exit().await;
}
