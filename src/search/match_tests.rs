//! Issue 29: what matches a session and how it ranks — words from several
//! messages, other forms of a word, typos, umlauts typed without them,
//! versions without their prefix, exact file names.

use super::*;

/// Three sessions: `one` says it all in one message, `two` across two
/// messages, `far` only part of it.
fn fixture() -> (Fixture, Search) {
    let fx = Fixture::new();
    write(
        &fx.store_dir,
        "one.jsonl",
        &[
            header("one", NOW - DAY, "/w"),
            user(1, "the trailer parser proposed a fix"),
            assistant(2, "Die Datei wurde geändert; see src/build.rs at v12.31.3"),
        ],
    );
    write(
        &fx.store_dir,
        "two.jsonl",
        &[
            header("two", NOW - DAY, "/w"),
            user(1, "where is the trailer"),
            assistant(
                2,
                "in the parser, and crates/pod_build.rs pod_build.rs pod_build.rs",
            ),
        ],
    );
    write(
        &fx.store_dir,
        "far.jsonl",
        &[
            header("far", NOW - DAY, "/w"),
            user(1, "only the parser here"),
        ],
    );
    let (search, _) = fx.sync();
    (fx, search)
}

#[test]
fn a_session_matches_when_its_messages_together_hold_every_word() {
    let (_fx, search) = fixture();
    // Both hold the words; the one with them in one message first.
    assert_eq!(ids(&search, "trailer parser "), ["one", "two"]);
    assert_eq!(ids(&search, "parser trailer "), ["one", "two"]);
    // A quoted phrase still needs one message.
    assert_eq!(ids(&search, "\"the trailer\" parser "), ["one", "two"]);
    assert_eq!(ids(&search, "\"trailer parser\" "), ["one"]);
    assert_eq!(ids(&search, "\"where is\" proposed "), Vec::<String>::new());
}

#[test]
fn other_forms_typos_and_umlauts_typed_without_them() {
    let (_fx, search) = fixture();
    assert_eq!(ids(&search, "trailers parsers "), ["one", "two"]);
    assert_eq!(ids(&search, "proposing "), ["one"]);
    // One slip in a word of five letters or more; never under five.
    assert_eq!(ids(&search, "propsed "), ["one"]);
    assert_eq!(ids(&search, "parsre trailer "), ["one", "two"]);
    assert!(ids(&search, "teh trailer ").is_empty());
    // An exact form ranks above another form.
    assert_eq!(ids(&search, "geändert "), ["one"]);
    assert_eq!(ids(&search, "geaendert "), ["one"]);
    assert_eq!(ids(&search, "geandert "), ["one"]);
}

#[test]
fn versions_without_their_prefix_and_exact_file_names_first() {
    let (_fx, search) = fixture();
    assert_eq!(ids(&search, "12.31.3 "), ["one"]);
    assert_eq!(ids(&search, "v12.31.3 "), ["one"]);
    // `build.rs` is in both (`pod_build.rs` three times): the exact name
    // first.
    assert_eq!(ids(&search, "build.rs "), ["one", "two"]);
    assert_eq!(ids(&search, "pod_build.rs "), ["two"]);
}
