//! A team store's listing kept between runs (issue 26): a new process
//! does not read again a manifest whose ETag is unchanged — it takes it
//! from the listing the cache kept (owner-only) — and reads one that
//! changed.

use std::path::PathBuf;

use crate::person::Person;

/// The one kept listing in `person`'s cache.
fn kept_file(person: &Person) -> PathBuf {
    let dir = person.home().join(".cache/hydra-session-lsp/team/listings");
    let files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    let [file] = files.as_slice() else {
        panic!("one kept listing: {files:?}")
    };
    file.clone()
}

#[test]
fn an_unchanged_manifest_comes_from_the_kept_listing_and_a_changed_one_is_read() {
    let team = tempfile::tempdir().expect("a team folder");
    let url = format!("file://{}", team.path().display());
    let ana = Person::new("ana", vec![]);
    ana.write_session("s1", "First title", &["the rounding fix"]);
    let publish = |who: &Person| {
        who.run(
            &["publish", "--store", &who.store_arg(), "--to", &url, "s1"],
            "",
        )
        .ok()
    };
    publish(&ana);

    // Cat only reads: no snapshot of hers, so a title is the manifest's.
    let cat = Person::new("cat", vec![]);
    let list = || cat.run(&["candidates", "--store", &url], "").ok().stdout();
    assert!(list().contains("First title"));
    let kept = kept_file(&cat);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&kept).expect("kept").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    // What the kept listing says of an unchanged manifest is what the
    // next run shows: it was not read again.
    let text = std::fs::read_to_string(&kept).expect("kept");
    assert!(text.contains("First title"), "{text}");
    std::fs::write(&kept, text.replace("First title", "Kept title")).expect("kept");
    let again = list();
    assert!(
        again.contains("Kept title") && !again.contains("First title"),
        "{again}"
    );

    // A new version changes the manifest's ETag: read again.
    ana.write_session("s1", "Second title", &["the rounding fix", "per line"]);
    publish(&ana);
    let after = list();
    assert!(
        after.contains("Second title") && !after.contains("Kept title"),
        "{after}"
    );
}
