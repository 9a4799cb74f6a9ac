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
    assert!(profiling.contains(&"strip=false".to_string()), "{profiling:?}");
}
