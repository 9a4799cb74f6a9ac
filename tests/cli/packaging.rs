//! What `cargo install` gives (issue 10 item 15): the release binary was
//! 46 MB because the release profile kept debug info; 5.6 MB stripped.

/// The lines of `[profile.NAME]` in Cargo.toml.
fn profile(name: &str) -> Vec<String> {
    let manifest = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
        .expect("Cargo.toml");
    let header = format!("[profile.{name}]");
    manifest
        .lines()
        .skip_while(|l| l.trim() != header)
        .skip(1)
        .take_while(|l| !l.trim_start().starts_with('['))
        .map(|l| l.split('#').next().unwrap_or("").replace(' ', ""))
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn the_release_build_is_stripped_and_profiling_keeps_symbols() {
    let release = profile("release");
    assert!(release.contains(&"strip=true".to_string()), "{release:?}");
    assert!(release.contains(&"debug=0".to_string()), "{release:?}");
    let profiling = profile("profiling");
    assert!(
        profiling.contains(&"inherits=\"release\"".to_string()),
        "{profiling:?}"
    );
    assert!(profiling.contains(&"debug=1".to_string()), "{profiling:?}");
    assert!(
        profiling.contains(&"strip=false".to_string()),
        "{profiling:?}"
    );
}

/// Issue 10 item 17: with `CARGO_TARGET_DIR` set, `scripts/test.sh` looked
/// for the server under ./target and exited 1 without a word. The path now
/// comes from cargo.
#[test]
fn the_test_script_asks_cargo_where_the_server_is() {
    let dir = tempfile::tempdir().expect("temp dir");
    let output = std::process::Command::new("bash")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/scripts/server-path.sh"
        ))
        .env("CARGO_TARGET_DIR", dir.path())
        .output()
        .expect("bash runs");
    assert!(output.status.success(), "{output:?}");
    let path = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        path.trim(),
        format!("{}/debug/hydra-session-lsp", dir.path().display())
    );
    let script = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/test.sh"))
        .expect("test.sh");
    assert!(script.contains("scripts/server-path.sh"));
    assert!(script.contains("trap "), "failures are reported");
}

/// Issue 10 item 16: the README and `docs/` linked to `../shared/spec/…`,
/// which a user of the repository does not have. The contract is in
/// `docs/spec/`, and every relative link of the README and `docs/` names a
/// file of the repository.
#[test]
fn documentation_links_stay_inside_the_repository() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pages = vec![root.join("README.md")];
    for dir in ["docs", "docs/spec"] {
        for entry in std::fs::read_dir(root.join(dir)).expect("docs").flatten() {
            if entry.path().extension().is_some_and(|e| e == "md") {
                pages.push(entry.path());
            }
        }
    }
    assert!(root.join("docs/spec/reference.md").is_file());
    assert!(root.join("docs/spec/server.md").is_file());
    for page in pages {
        let text = std::fs::read_to_string(&page).expect("page");
        assert!(
            !text.contains("../shared"),
            "{} links outside",
            page.display()
        );
        // Markdown links `](target)` that are relative paths.
        for target in text
            .split("](")
            .skip(1)
            .filter_map(|rest| rest.split(')').next())
        {
            let path = target.split('#').next().unwrap_or("");
            let looks_like_a_path = !path.is_empty()
                && path
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"./_-".contains(&b));
            if !looks_like_a_path {
                continue;
            }
            let resolved = page.parent().expect("dir").join(path);
            assert!(
                resolved.exists(),
                "{}: broken link {target}",
                page.display()
            );
        }
    }
}
