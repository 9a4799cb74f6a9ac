//! "A server stopped mid-listing" (issue 26): the server is stopped while
//! a listing of many sessions is in progress — between two pages of the
//! list: a proxy in front of it sees the second page asked for, and cuts
//! that request off — and the command still answers within 10 s, with a
//! note naming the store's URL and every local session.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use futures::StreamExt as _;
use object_store::path::Path as ObjectPath;
use object_store::{ObjectStoreExt as _, PutPayload};

use crate::person::Person;
use crate::skip::skipped;
use crate::weed::{runtime, Weed};

const URL: &str = "s3://team/many";
/// More manifests than one page of an S3 listing holds (1,000 keys), so
/// the listing asks for a second page.
const SESSIONS: usize = 1_200;
/// What the second page's request carries (ListObjectsV2).
const NEXT_PAGE: &[u8] = b"continuation-token=";

/// A TCP proxy to `port` on 127.0.0.1 that says (once) when a request
/// holding `mark` comes, and passes every other on to the server.
fn proxy(port: u16, mark: &'static [u8]) -> (u16, mpsc::Receiver<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a proxy port");
    let own = listener.local_addr().expect("its address").port();
    let (seen, told) = mpsc::sync_channel(1);
    std::thread::spawn(move || {
        for client in listener.incoming().flatten() {
            let Ok(server) = TcpStream::connect(("127.0.0.1", port)) else {
                // The server is gone: so is this connection.
                continue;
            };
            let (Ok(client_in), Ok(server_out)) = (client.try_clone(), server.try_clone()) else {
                continue;
            };
            let seen = seen.clone();
            std::thread::spawn(move || forward(client_in, server_out, Some((mark, seen))));
            std::thread::spawn(move || forward(server, client, None));
        }
    });
    (own, told)
}

/// Copies `from` to `to` until either ends, telling `watch`'s sender when
/// its mark comes (the last bytes of each read kept, for a mark cut in
/// two). A request with the mark is not passed on: the connection closes
/// as the server's would when it stops, so the listing cannot finish
/// before the test has stopped the server, however fast the machine.
fn forward(
    mut from: TcpStream,
    mut to: TcpStream,
    watch: Option<(&'static [u8], mpsc::SyncSender<()>)>,
) {
    let mut buf = vec![0u8; 64 << 10];
    let mut tail: Vec<u8> = Vec::new();
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if let Some((mark, seen)) = &watch {
            tail.extend_from_slice(&buf[..n]);
            if tail.windows(mark.len()).any(|w| w == *mark) {
                let _ = seen.try_send(());
                break;
            }
            let keep = tail.len().saturating_sub(mark.len());
            tail.drain(..keep);
        }
        if to.write_all(&buf[..n]).is_err() {
            break;
        }
    }
    let _ = to.shutdown(std::net::Shutdown::Both);
}

/// Puts `SESSIONS` manifests under the store's prefix.
fn many_manifests(weed: &Weed) {
    let store = weed.client();
    runtime().block_on(async {
        futures::stream::iter(0..SESSIONS)
            .map(|i| {
                let store = store.clone();
                async move {
                    let id = format!("s{i:05}");
                    let encoded = base64_url(&id);
                    let path = ObjectPath::from(format!("many/sessions/pat/{encoded}/manifest.json"));
                    let body = format!(
                        r#"{{"version":1,"sessionId":"~pat/{id}","entries":[{{"sha256":"{}","bytes":1,"publishedAt":"2026-12-02T09:00:00Z"}}]}}"#,
                        "0".repeat(64)
                    );
                    store
                        .put(&path, PutPayload::from(body.into_bytes()))
                        .await
                        .expect("a manifest put");
                }
            })
            .buffer_unordered(32)
            .collect::<Vec<()>>()
            .await;
    });
}

fn base64_url(text: &str) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(text)
}

#[test]
fn a_server_stopped_mid_listing_is_a_note_within_10s_and_local_completion_goes_on() {
    let mut weed = match Weed::start() {
        Ok(weed) => weed,
        Err(why) => return skipped(&why),
    };
    many_manifests(&weed);
    let (port, second_page) = proxy(weed.port, NEXT_PAGE);
    let mut env = weed.env();
    env.retain(|(k, _)| k != "AWS_ENDPOINT");
    env.push(("AWS_ENDPOINT".into(), format!("http://127.0.0.1:{port}")));
    let eve = Person::new("eve", env);
    eve.write_session("mine", "Mine", &["local"]);

    let store = eve.store_arg();
    let started = Instant::now();
    let run = std::thread::scope(|scope| {
        let listing =
            scope.spawn(|| eve.run(&["candidates", "--store", &store, "--store", URL], ""));
        // The first page came back and the second is asked for: stop the
        // server now, mid-listing. (A deadline, not a pause: the test
        // fails when the listing never gets there.)
        second_page
            .recv_timeout(Duration::from_secs(30))
            .expect("the listing asked for its second page");
        weed.stop();
        listing.join().expect("the run ends")
    });
    let took = started.elapsed();
    assert!(took < Duration::from_secs(10), "took {took:?}");
    let run = run.ok();
    let ids: Vec<String> = run
        .json()
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["sessionId"].as_str().map(str::to_owned))
        .collect();
    assert!(ids.contains(&"mine".to_owned()), "{ids:?}");
    assert!(
        !ids.iter().any(|id| id.starts_with("~pat/")),
        "a listing cut short lists nothing of it: {ids:?}"
    );
    let stderr = run.stderr();
    assert!(stderr.contains(URL), "no note naming {URL}: {stderr}");
    // What happened, in words: the listing had begun, then the server
    // went (the proxy cut the connection; then nothing answered).
    assert!(
        stderr.contains(&format!(
            "the session store {URL} cannot be read: the server stopped answering while listing ("
        )) && stderr.contains("); showing the 0 session(s) listed before"),
        "{stderr}"
    );
    assert!(!stderr.contains(crate::weed::SECRET_KEY), "{stderr}");
}
