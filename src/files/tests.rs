use std::fs;

use super::*;

fn paths(cwd: &Path, query: &str) -> Vec<String> {
    candidates(Some(cwd), query, 50)
        .unwrap()
        .items
        .into_iter()
        .map(|c| c.path)
        .collect()
}

fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for d in [
        "src",
        "docs",
        "target/debug",
        ".git/info",
        ".hidden",
        "Src2",
        "src/gen",
    ] {
        fs::create_dir_all(root.join(d)).unwrap();
    }
    for f in [
        "src/cart.rs",
        "src/Cart_test.rs",
        "src/tax.rs",
        "src/gen/out.rs",
        "docs/design notes.md",
        "README.md",
        ".env",
        "target/debug/app",
        "notes.log",
        "keep.log",
    ] {
        fs::write(root.join(f), b"x\n").unwrap();
    }
    fs::write(root.join(".gitignore"), "target/\n*.log\n!keep.log\n").unwrap();
    fs::write(root.join("src/.gitignore"), "gen/\n").unwrap();
    fs::write(root.join(".git/info/exclude"), "README.md\n").unwrap();
    dir
}

#[test]
fn folders_first_then_files_by_name_ignoring_ignored() {
    let dir = tree();
    assert_eq!(
        paths(dir.path(), ""),
        vec!["Src2/", "docs/", "src/", "keep.log"]
    );
    assert_eq!(
        paths(dir.path(), "src/"),
        vec!["src/Cart_test.rs", "src/cart.rs", "src/tax.rs"]
    );
    assert_eq!(
        paths(dir.path(), "src/ca"),
        vec!["src/Cart_test.rs", "src/cart.rs"]
    );
    assert_eq!(paths(dir.path(), "SRC"), vec!["Src2/", "src/"]);
    // Hidden entries only for a query starting with `.`; `.git` never.
    assert_eq!(
        paths(dir.path(), "."),
        vec![".hidden/", ".env", ".gitignore"]
    );
    // An ignored folder named explicitly lists its entries.
    assert_eq!(paths(dir.path(), "target/"), vec!["target/debug/"]);
    assert_eq!(
        paths(dir.path(), "\"docs/des"),
        vec!["docs/design notes.md"]
    );
}

#[test]
fn discovery_never_leaves_the_cwd() {
    let dir = tree();
    let cwd = dir.path().join("src");
    for query in ["../", "/", "~/", "\"../", "gen/../../"] {
        assert!(paths(&cwd, query).is_empty(), "{query}");
    }
    assert!(paths(&dir.path().join("nope"), "").is_empty());
    assert!(candidates(None, "", 50).unwrap().items.is_empty());
    assert!(candidates(Some(dir.path()), "", 0).is_err());
}

#[cfg(unix)]
#[test]
fn links_are_listed_by_target_and_cannot_lead_out() {
    use std::os::unix::fs::symlink;
    let dir = tree();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("secret"), b"s").unwrap();
    symlink(outside.path(), dir.path().join("out")).unwrap();
    symlink(dir.path().join("src"), dir.path().join("inlink")).unwrap();
    symlink(dir.path().join("missing"), dir.path().join("broken")).unwrap();
    symlink(dir.path().join("loop"), dir.path().join("loop")).unwrap();
    let top = paths(dir.path(), "");
    assert!(top.contains(&"out/".to_string()));
    assert!(top.contains(&"inlink/".to_string()));
    assert!(!top
        .iter()
        .any(|p| p.starts_with("broken") || p.starts_with("loop")));
    assert!(paths(dir.path(), "out/").is_empty());
    assert_eq!(paths(dir.path(), "inlink/t"), vec!["inlink/tax.rs"]);
}

#[test]
fn the_limit_cuts_and_says_so() {
    let dir = tree();
    let list = candidates(Some(dir.path()), "src/", 2).unwrap();
    assert_eq!(list.items.len(), 2);
    assert!(list.incomplete);
    assert!(!candidates(Some(dir.path()), "src/", 3).unwrap().incomplete);
}

#[test]
fn mentions_diagnostics_and_hover() {
    let dir = tree();
    let cwd = Some(dir.path());
    let text = "@src/cart.rs @docs/nope.md @types/node @\"gone.md\" @word";
    let found: Vec<_> = diagnostics(text, cwd)
        .into_iter()
        .map(|d| &text[d.range])
        .collect();
    assert_eq!(found, vec!["@docs/nope.md", "@\"gone.md\""]);
    let links: Vec<_> = links(text, cwd)
        .into_iter()
        .map(|(r, _)| &text[r])
        .collect();
    assert_eq!(links, vec!["@src/cart.rs"]);
    let m = &file_mention::scan("@src/cart.rs")[0];
    let info = info(m, cwd).unwrap();
    assert_eq!(info.kind, "file");
    assert_eq!(
        info.content,
        Content::Text {
            lines: 1,
            head: vec!["x".into()],
            extension: "rs".into()
        }
    );
    let folder = info_of(dir.path(), "src");
    assert!(
        matches!(folder.content, Content::Folder { entries: 5, .. }),
        "{folder:?}"
    );
    fs::write(dir.path().join("bin.dat"), b"a\0b").unwrap();
    assert_eq!(
        info_of(dir.path(), "bin.dat").content,
        Content::Hidden("binary")
    );
}

fn info_of(cwd: &Path, path: &str) -> FileInfo {
    let text = format!("@{path}");
    info(&file_mention::scan(&text)[0], Some(cwd)).unwrap()
}

#[cfg(unix)]
#[test]
fn special_files_are_never_read() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo made no FIFO");
    // Opening the FIFO to read it would block this test for good: reaching
    // the end is the proof it was not read (how fast is benches' business).
    assert!(paths(dir.path(), "").is_empty(), "a FIFO is no candidate");
    let info = info_of(dir.path(), "pipe");
    assert_eq!(info.content, Content::Hidden("not a regular file"));
    let dev = info_of(dir.path(), "/dev/zero");
    assert_eq!(dev.content, Content::Hidden("outside the workspace"));
}

#[test]
fn a_huge_folder_is_cut_and_said_so() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..600 {
        fs::write(dir.path().join(format!("e{i:04}")), b"").unwrap();
    }
    let bounds = |kept, walked| listing::Bounds {
        kept,
        walked,
        time: WALK.time,
        untimed: WALK.untimed,
    };
    let cut = listing::read(dir.path(), "", bounds(500, 10_000)).unwrap();
    assert!(cut.cut);
    assert_eq!(cut.entries.len(), 500);
    let cut = listing::read(dir.path(), "", bounds(10_000, 500)).unwrap();
    assert!(cut.cut);
    let whole = listing::read(dir.path(), "", bounds(10_000, 10_000)).unwrap();
    assert!(!whole.cut);
    assert_eq!(matching(&whole, "E059").len(), 10);
}

#[test]
fn the_prefix_filters_while_reading_so_every_match_is_kept() {
    // Issue 18 item 17: a bound on entries kept cut the matches of a huge
    // folder; the prefix now selects them as the folder is read.
    let dir = tempfile::tempdir().unwrap();
    for i in 0..600 {
        fs::write(dir.path().join(format!("e{i:04}")), b"").unwrap();
    }
    let bounds = listing::Bounds {
        kept: 20,
        walked: 10_000,
        time: WALK.time,
        untimed: WALK.untimed,
    };
    let found = listing::read(dir.path(), "E059", bounds).unwrap();
    assert!(!found.cut);
    assert_eq!(found.entries.len(), 10);
    assert!(found.entries.iter().all(|(_, n)| n.starts_with("e059")));
}

#[cfg(unix)]
#[test]
fn a_ten_gigabyte_file_and_a_link_loop_are_never_read() {
    let dir = tempfile::tempdir().unwrap();
    let big = fs::File::create(dir.path().join("big.bin")).unwrap();
    // Sparse: no disk used, and nothing of it is read.
    big.set_len(10 << 30).unwrap();
    std::os::unix::fs::symlink(dir.path().join("loop"), dir.path().join("loop")).unwrap();
    let big = info_of(dir.path(), "big.bin");
    assert_eq!(big.size, 10 << 30);
    assert_eq!(big.content, Content::Hidden("larger than 1 MiB"));
    // A looping link does not exist: no hover, a warning when quoted.
    let text = "@loop @\"loop\"";
    assert!(info(&file_mention::scan(text)[0], Some(dir.path())).is_none());
    let found: Vec<_> = diagnostics(text, Some(dir.path()))
        .into_iter()
        .map(|d| &text[d.range])
        .collect();
    assert_eq!(found, vec!["@\"loop\""]);
    assert!(paths(dir.path(), "").iter().all(|p| p == "big.bin"));
}

#[test]
fn a_changed_folder_is_listed_again() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("one"), b"").unwrap();
    // Old enough for its listing to be kept.
    let old = std::time::SystemTime::now() - Duration::from_secs(60);
    fs::File::open(dir.path())
        .unwrap()
        .set_modified(old)
        .unwrap();
    assert_eq!(paths(dir.path(), ""), vec!["one"]);
    assert_eq!(paths(dir.path(), ""), vec!["one"]);
    fs::write(dir.path().join("two"), b"").unwrap();
    assert_eq!(paths(dir.path(), ""), vec!["one", "two"]);
}

/// Issue 18, item 11: what hover shows is what was opened. Swapped right
/// after the open — a file for a link out of the workspace, or the other
/// way round — the outside file is never shown.
#[cfg(unix)]
#[test]
fn hover_shows_what_was_opened_never_a_file_swapped_in() {
    let (workspace, outside) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let secret = outside.path().join("secret.txt");
    fs::write(&secret, "SECRET\n").unwrap();
    let doc = workspace.path().join("doc.txt");
    let text = "@doc.txt".to_string();
    let m = &file_mention::scan(&text)[0];
    let link_in = |p: &Path| {
        let tmp = p.with_extension("swap");
        std::os::unix::fs::symlink(&secret, &tmp).unwrap();
        fs::rename(&tmp, p).unwrap();
    };
    let file_in = |p: &Path| {
        let tmp = p.with_extension("swap");
        fs::write(&tmp, "INSIDE\n").unwrap();
        fs::rename(&tmp, p).unwrap();
    };
    let shown = |info: FileInfo| format!("{:?}", info.content);
    // A file when opened, a link out when checked.
    file_in(&doc);
    let info = info_opened(m, Some(workspace.path()), &mut |p| link_in(p)).unwrap();
    assert!(!shown(info).contains("SECRET"));
    // A link out when opened, a file when checked.
    link_in(&doc);
    let info = info_opened(m, Some(workspace.path()), &mut |p| file_in(p)).unwrap();
    assert_eq!(info.content, Content::Hidden("outside the workspace"));
    // Unswapped: a link inside the workspace is shown, one out is not.
    let target = workspace.path().join("target.txt");
    fs::write(&target, "TARGET\n").unwrap();
    let inner = workspace.path().join("inner.txt");
    std::os::unix::fs::symlink(&target, &inner).unwrap();
    assert!(shown(info_of(workspace.path(), "inner.txt")).contains("TARGET"));
    link_in(&doc);
    assert_eq!(
        info_of(workspace.path(), "doc.txt").content,
        Content::Hidden("outside the workspace")
    );
}
