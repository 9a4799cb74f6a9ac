//! The index over a real file-system store of hydra logs: incremental
//! updates (append, shadowing, rewind, rewrite, removal), ranking, filters.

use std::fs;
use std::path::{Path, PathBuf};

use super::*;
use crate::model::SessionStore;

#[path = "match_tests.rs"]
mod matching;
use crate::store::{FsStore, Scan, StoreSpec};

const DAY: u64 = 86_400_000;
const NOW: u64 = 1_764_400_000_000;

fn header(id: &str, created: u64, cwd: &str) -> String {
    format!(r#"{{"type":"session","version":1,"id":"{id}","createdAt":{created},"cwd":"{cwd}"}}"#)
}

fn user(seq: u64, text: &str) -> String {
    format!(
        r#"{{"seq":{seq},"type":"user/message","data":{{"source":{{"kind":"user"}},"content":[{{"type":"text","text":"{text}"}}]}}}}"#
    )
}

fn assistant(seq: u64, text: &str) -> String {
    format!(
        r#"{{"seq":{seq},"type":"assistant/message","data":{{"message":{{"content":[{{"type":"text","text":"{text}"}}]}}}}}}"#
    )
}

fn checkpoint(seq: u64, through: u64, text: &str) -> String {
    format!(
        r#"{{"seq":{seq},"type":"user/message","data":{{"source":{{"kind":"compaction","marker":"@hydraharness/harness-compaction","throughSeq":{through}}},"content":[{{"type":"text","text":"{text}"}}]}}}}"#
    )
}

fn title(seq: u64, text: &str) -> String {
    format!(r#"{{"seq":{seq},"type":"session/title","data":{{"title":"{text}"}}}}"#)
}

fn write(store: &Path, name: &str, lines: &[String]) {
    fs::write(store.join(name), lines.join("\n") + "\n").unwrap();
}

struct Fixture {
    _tmp: tempfile::TempDir,
    store_dir: PathBuf,
    index_dir: PathBuf,
}

impl Fixture {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let store_dir = tmp.path().join("store");
        fs::create_dir(&store_dir).unwrap();
        let index_dir = tmp.path().join("cache/search/index");
        Fixture {
            _tmp: tmp,
            store_dir,
            index_dir,
        }
    }

    fn store(&self) -> FsStore {
        FsStore::open(&[StoreSpec::auto(&self.store_dir)], Scan::Full)
    }

    /// A fixture whose store holds one session, `s`, in which the user
    /// says `text`.
    fn with_one_session(text: &str) -> Self {
        let fx = Fixture::new();
        write(
            &fx.store_dir,
            "s.jsonl",
            &[header("s", NOW, "/w"), user(1, text)],
        );
        fx
    }

    /// An index synced with one session (`s`, "golf"), and the store after
    /// a second was written (`t`, "hotel"): the index one session behind.
    fn one_session_behind() -> (Fixture, Search, FsStore) {
        let fx = Fixture::with_one_session("golf");
        let (search, _) = fx.sync();
        write(
            &fx.store_dir,
            "t.jsonl",
            &[header("t", NOW, "/w"), user(1, "hotel")],
        );
        let store = fx.store();
        (fx, search, store)
    }

    /// Opens the index and syncs it with the store.
    fn sync(&self) -> (Search, SyncReport) {
        let search =
            Search::open(&self.index_dir, std::slice::from_ref(&self.store_dir), NOW).unwrap();
        let store = self.store();
        let report = search
            .sync(
                &store.sessions(),
                store.reader().as_ref(),
                &|| false,
                &mut |_, _| {},
            )
            .unwrap();
        (search, report)
    }
}

/// The index's writer, held as another process would hold it.
fn hold_writer(search: &Search) -> tantivy::IndexWriter {
    search
        .index()
        .index
        .writer_with_num_threads(1, 15 << 20)
        .unwrap()
}

/// What the tests search with, unless they say otherwise: ten hits, in
/// any workspace, now.
fn options<'a>() -> SearchOptions<'a> {
    SearchOptions {
        limit: 10,
        workspace: None,
        now_ms: NOW,
        exists: None,
        texts: None,
    }
}

fn ids(search: &Search, text: &str) -> Vec<String> {
    hit_ids(search, &parse_query(text).unwrap(), options())
}

/// The ids of the hits of `query`, best first.
fn hit_ids(search: &Search, query: &ParsedQuery, options: SearchOptions<'_>) -> Vec<String> {
    let hits = search.search(query, options).unwrap();
    hits.into_iter().map(|h| h.session_id).collect()
}

#[test]
fn bodies_titles_identifiers_and_filters_are_found() {
    let fx = Fixture::new();
    write(
        &fx.store_dir,
        "a.jsonl",
        &[
            header("tax", NOW - DAY, "/home/ana/shop"),
            user(1, "Why does checkout fail?"),
            assistant(2, "The tax rounding in ModuleSpec is off by a cent."),
            title(3, "Checkout bug"),
        ],
    );
    write(
        &fx.store_dir,
        "b.jsonl",
        &[
            header("inv", NOW - 400 * DAY, "/home/ana/inventory"),
            user(1, "Refactor the inventory_loader in src/stock/loader.rs"),
            assistant(2, "東京都の在庫を更新しました"),
        ],
    );
    let (search, report) = fx.sync();
    assert_eq!((report.added, report.messages), (2, 4));
    assert_eq!(ids(&search, "tax rounding "), ["tax"]);
    assert_eq!(ids(&search, "TAX Róunding "), ["tax"], "case and accents");
    assert_eq!(ids(&search, "checkout bug "), ["tax"], "titles match");
    assert_eq!(ids(&search, "module spec "), ["tax"]);
    assert_eq!(ids(&search, "modulespec "), ["tax"]);
    assert_eq!(ids(&search, "inventory_loader "), ["inv"]);
    assert_eq!(ids(&search, "loader.rs "), ["inv"]);
    assert_eq!(ids(&search, "東京 "), ["inv"]);
    assert_eq!(ids(&search, "\"rounding in\" "), ["tax"]);
    assert!(
        ids(&search, "\"in rounding\" ").is_empty(),
        "a phrase keeps its order"
    );
    assert_eq!(
        ids(&search, "tax roun"),
        ["tax"],
        "the last word as a prefix"
    );
    assert!(
        ids(&search, "tax roun ").is_empty(),
        "a finished word is exact"
    );
    assert!(
        ids(&search, "tax inventory ").is_empty(),
        "every word must match"
    );
    assert_eq!(ids(&search, "cwd:/home/ana/inventory refactor "), ["inv"]);
    assert!(
        ids(&search, "cwd:/home/ana/inv refactor ").is_empty(),
        "folders, not strings"
    );
    assert_eq!(ids(&search, "cwd:/home/ana/shop the ").len(), 1);
    assert_eq!(
        ids(&search, "cwd:/home/ana/ the ").len(),
        2,
        "any folder above"
    );
    assert_eq!(ids(&search, "agent:hydra refactor "), ["inv"]);
    assert!(ids(&search, "agent:codex refactor ").is_empty());
    assert!(NOW - DAY > parse_date_ms("2025-06-01"));
    assert_eq!(ids(&search, "after:2025-06-01 the "), ["tax"]);
    assert_eq!(ids(&search, "before:2025-06-01 refactor "), ["inv"]);
    // Snippets: the match in context, its ranges in scalars, cut from
    // the log read again (the index stores no text).
    let store = fx.store();
    let reader = store.reader();
    let session = |id: &str| store.get(id);
    let texts = Texts {
        session: &session,
        reader: reader.as_ref(),
    };
    let hits = search
        .search(
            &parse_query("rounding").unwrap(),
            SearchOptions {
                limit: 5,
                texts: Some(texts),
                ..options()
            },
        )
        .unwrap();
    let snippet = &hits[0].snippets[0];
    assert_eq!((snippet.turn, snippet.role.as_str()), (2, "assistant"));
    let chars: Vec<char> = snippet.text.chars().collect();
    let [a, b] = snippet.ranges[0];
    assert_eq!(chars[a..b].iter().collect::<String>(), "rounding");
    assert_eq!(hits[0].title.as_deref(), Some("Checkout bug"));
    assert_eq!(hits[0].agent, "hydra");
    assert_eq!(hits[0].mention, "@[Checkout bug](hydra-session:InRheCI)");
}

fn parse_date_ms(date: &str) -> u64 {
    crate::reference::time::parse_date(date).unwrap()
}

#[test]
fn the_workspace_and_recency_rank_first_among_equals() {
    let fx = Fixture::new();
    for (name, id, age, cwd) in [
        ("a", "old-here", 300, "/w"),
        ("b", "new-else", 1, "/x"),
        ("c", "old-else", 300, "/x"),
    ] {
        write(
            &fx.store_dir,
            &format!("{name}.jsonl"),
            &[
                header(id, NOW - age * DAY, cwd),
                user(1, "flaky websocket reconnect"),
            ],
        );
    }
    let (search, _) = fx.sync();
    let query = parse_query("websocket reconnect").unwrap();
    let options = SearchOptions {
        limit: 3,
        workspace: Some("/w"),
        ..options()
    };
    let order = hit_ids(&search, &query, options);
    assert_eq!(order, ["old-here", "new-else", "old-else"]);
    // A session the store no longer lists is never a result.
    let gone = |id: &str| id != "old-here";
    let options = SearchOptions {
        exists: Some(&gone),
        ..options
    };
    let order = hit_ids(&search, &query, options);
    assert_eq!(order, ["new-else", "old-else"]);
}

#[test]
fn appends_add_only_new_messages_and_other_changes_reindex() {
    let fx = Fixture::new();
    let mut lines = vec![
        header("s", NOW, "/w"),
        user(1, "alpha question"),
        assistant(2, "alpha answer"),
    ];
    write(&fx.store_dir, "s.jsonl", &lines);
    let (_, first) = fx.sync();
    assert_eq!((first.added, first.messages), (1, 2));

    // Unchanged: nothing to do.
    let (_, same) = fx.sync();
    assert!(!same.changed(), "{same:?}");

    // An append: only the new message.
    lines.push(user(3, "bravo followup"));
    write(&fx.store_dir, "s.jsonl", &lines);
    let (search, grown) = fx.sync();
    assert_eq!((grown.appended, grown.reindexed, grown.messages), (1, 0, 1));
    assert_eq!(ids(&search, "bravo "), ["s"]);
    assert_eq!(ids(&search, "alpha answer "), ["s"]);
    drop(search);

    // A checkpoint shadows the first messages: indexed again, the
    // shadowed text gone.
    lines.push(checkpoint(4, 2, "summary charlie"));
    write(&fx.store_dir, "s.jsonl", &lines);
    let (search, shadowed) = fx.sync();
    assert_eq!((shadowed.reindexed, shadowed.messages), (1, 2));
    assert!(
        ids(&search, "alpha ").is_empty(),
        "shadowed messages are not on the surface"
    );
    assert_eq!(ids(&search, "charlie "), ["s"]);
    drop(search);

    // A rewrite to other text: indexed again.
    write(
        &fx.store_dir,
        "s.jsonl",
        &[header("s", NOW, "/w"), user(1, "delta only")],
    );
    let (search, rewritten) = fx.sync();
    assert_eq!(rewritten.reindexed, 1);
    assert!(ids(&search, "bravo ").is_empty());
    assert_eq!(ids(&search, "delta "), ["s"]);
    drop(search);

    // A removed log: removed, no trace.
    fs::remove_file(fx.store_dir.join("s.jsonl")).unwrap();
    let (search, removed) = fx.sync();
    assert_eq!(removed.removed, 1);
    assert!(ids(&search, "delta ").is_empty());
    assert!(search.index().manifest().unwrap().is_empty());
}

#[test]
fn a_broken_index_is_moved_aside_and_rebuilt() {
    let fx = Fixture::with_one_session("echo foxtrot");
    drop(fx.sync());
    fs::write(fx.index_dir.join("meta.json"), "{ not json").unwrap();
    let (search, report) = fx.sync();
    assert!(search.index().moved_aside.is_some());
    assert_eq!(report.added, 1);
    assert_eq!(ids(&search, "foxtrot "), ["s"]);
}

#[test]
fn status_says_how_far_behind() {
    let (_fx, search, store) = Fixture::one_session_behind();
    let status = search.status(&store.sessions(), store.reader().as_ref());
    assert_eq!(
        (status.sessions, status.behind, status.enabled),
        (1, 1, true)
    );
    assert!(status.bytes > 0);
}

/// Issue 27 item 9: only the first MiB of a message is indexed (a 100 MB
/// message once made the writer peak at 1.6 GB): a word past it is not
/// found, one before it is.
#[test]
fn only_the_first_mib_of_a_message_is_indexed() {
    let fx = Fixture::new();
    let filler = "lorem ".repeat(writer::MAX_MESSAGE_BYTES / 6 + 1);
    write(
        &fx.store_dir,
        "s.jsonl",
        &[
            header("s", NOW, "/w"),
            user(1, &format!("quokka {filler} zanzibar")),
        ],
    );
    let (search, report) = fx.sync();
    assert_eq!(report.added, 1);
    assert_eq!(ids(&search, "quokka "), ["s"]);
    assert!(ids(&search, "zanzibar ").is_empty());
}

/// Bytes of every `ext` file of the index changed in the middle, their
/// footers (and so tantivy's opening checks) intact.
fn corrupt(index_dir: &Path, ext: &str) -> usize {
    let mut changed = 0;
    for entry in fs::read_dir(index_dir).unwrap().flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == ext) {
            let mut bytes = fs::read(&path).unwrap();
            let len = bytes.len();
            for b in &mut bytes[len / 8..len / 2] {
                *b ^= 0x5a;
            }
            fs::write(&path, bytes).unwrap();
            changed += 1;
        }
    }
    changed
}

/// Issue 27 item 6: a file corrupt under an intact footer opens, then
/// fails (or panics) when searched: its checksums are checked then, and
/// the index is moved aside, built again and searched.
#[test]
fn a_corrupt_index_file_is_found_by_its_checksum_and_rebuilt() {
    for ext in ["store", "idx", "term", "fast"] {
        let fx = Fixture::with_one_session("echo foxtrot");
        drop(fx.sync());
        let names: Vec<_> = fs::read_dir(&fx.index_dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert!(corrupt(&fx.index_dir, ext) > 0, "{ext} {names:?}");
        let opened = Search::open(&fx.index_dir, std::slice::from_ref(&fx.store_dir), NOW);
        // Opening reads the fast fields: a corrupt one is found there.
        let Ok(mut search) = opened else {
            continue;
        };
        let store = fx.store();
        let (sessions, reader) = (store.sessions(), store.reader());
        if search.index().moved_aside.is_some() {
            // Read when opened: moved aside there already.
            search
                .sync(&sessions, reader.as_ref(), &|| false, &mut |_, _| {})
                .unwrap();
            assert_eq!(ids(&search, "foxtrot "), ["s"], "{ext}");
            continue;
        }
        let query = parse_query("foxtrot ").unwrap();
        match search.search(&query, options()) {
            Err(SearchError::Broken(why)) => {
                assert!(why.contains("corrupt files"), "{ext}: {why}");
                let note = search
                    .repair(&why, &sessions, reader.as_ref(), &|| false)
                    .unwrap();
                assert!(note.contains("rebuilt"), "{note}");
            }
            // A file a search does not read (the doc store: what it
            // ranks and shows comes from columns) leaves the answer right;
            // the build's check finds it.
            Ok(hits) if ext == "store" => {
                assert_eq!(hits.len(), 1, "{hits:?}");
                let Err(SearchError::Broken(why)) = search.index().verify() else {
                    panic!("the store's checksum was not checked");
                };
                assert!(why.contains("corrupt files"), "{why}");
                search
                    .repair(&why, &sessions, reader.as_ref(), &|| false)
                    .unwrap();
            }
            other => panic!("{ext}: {other:?}"),
        }
        assert_eq!(ids(&search, "foxtrot "), ["s"], "{ext}");
        assert!(search.index().verify().is_ok());
    }
}

/// Issue 27 item 7: with the writer held by another process, an explicit
/// search's update shares that process's build (what it committed covers
/// the store: searched at once), or fails with "still indexing" after its
/// wait — never an answer that silently misses sessions.
#[test]
fn a_search_waits_for_another_writer_and_then_says_still_indexing() {
    use std::time::Duration;
    let (fx, search, store) = Fixture::one_session_behind();
    let (sessions, reader) = (store.sessions(), store.reader());
    let other = Search::open(&fx.index_dir, std::slice::from_ref(&fx.store_dir), NOW).unwrap();
    let held = hold_writer(&other);
    let sync_waiting =
        |wait| search.sync_waiting(&sessions, reader.as_ref(), &|| false, &mut |_, _| {}, wait);
    let waited = sync_waiting(Duration::from_millis(120));
    assert_eq!(waited, Err(SearchError::StillIndexing(1)));
    assert!(waited.unwrap_err().to_string().contains("still indexing"));
    // The other process builds and holds the writer still (merging): the
    // waiting search reads its commit rather than failing or building.
    drop(held);
    other
        .sync(&sessions, reader.as_ref(), &|| false, &mut |_, _| {})
        .unwrap();
    let _held = hold_writer(&other);
    let shared = sync_waiting(Duration::ZERO);
    assert_eq!(shared, Ok(SyncReport::default()));
    assert_eq!(ids(&search, "hotel "), ["t"]);
}

/// Issue 29 item 5: the index stores no text; a snippet is cut from the
/// log read again, and once the log says something else at that message
/// (rewritten after the last sync) the snippet is left out, never shown
/// wrong.
#[test]
fn snippets_come_from_the_log_and_never_from_a_changed_one() {
    let fx = Fixture::new();
    let lines = [
        header("kept", NOW - DAY, "/w"),
        user(1, "first prompt"),
        assistant(2, "the heron migration plan"),
        user(3, "later words"),
    ];
    write(&fx.store_dir, "a.jsonl", &lines);
    let (search, _) = fx.sync();
    let f = &search.index().fields;
    let text_is_stored = f.schema.get_field_entry(f.text).is_stored();
    assert!(!text_is_stored, "the text is not stored");
    let hits_now = |fx: &Fixture| {
        let store = fx.store();
        let reader = store.reader();
        let session = |id: &str| store.get(id);
        let options = SearchOptions {
            limit: 5,
            texts: Some(Texts {
                session: &session,
                reader: reader.as_ref(),
            }),
            ..options()
        };
        search
            .search(&parse_query("heron").unwrap(), options)
            .unwrap()
    };
    let hits = hits_now(&fx);
    assert_eq!(hits[0].snippets.len(), 1);
    assert_eq!(hits[0].snippets[0].text, "the heron migration plan");
    // Rewritten, not synced: message 2 says something else now.
    write(
        &fx.store_dir,
        "a.jsonl",
        &[
            header("kept", NOW - DAY, "/w"),
            user(1, "first prompt"),
            assistant(2, "an unrelated answer"),
            user(3, "later words"),
        ],
    );
    let hits = hits_now(&fx);
    assert_eq!(hits.len(), 1, "found by the index until the next sync");
    assert!(hits[0].snippets.is_empty(), "{:?}", hits[0].snippets);
}

/// A build from nothing that left more than a few segments (one per
/// commit of 500 sessions here) is merged into one, and the merged
/// segments' files are gone from the folder; every session is found.
#[test]
fn a_build_from_nothing_is_merged_into_one_segment() {
    let fx = Fixture::new();
    let sessions = 2_600;
    for i in 0..sessions {
        write(
            &fx.store_dir,
            &format!("s{i}.jsonl"),
            &[
                header(&format!("s{i}"), NOW, "/w"),
                user(1, &format!("word{i} shared")),
            ],
        );
    }
    let (search, report) = fx.sync();
    assert_eq!(report.added, sessions);
    let segments = search.index().index.searchable_segment_ids().unwrap();
    assert_eq!(segments.len(), 1);
    let dictionaries = fs::read_dir(&fx.index_dir)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "term"))
        })
        .count();
    assert_eq!(dictionaries, 1);
    assert_eq!(ids(&search, "word0"), ["s0"]);
    assert_eq!(ids(&search, "word2599"), ["s2599"]);
}
