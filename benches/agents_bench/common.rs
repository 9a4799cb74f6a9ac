//! What every generator shares: the projects' folders, the words of prose,
//! and ids and times that no two sessions of the store list share.

use crate::support;

pub const CWDS: usize = 40;
pub const WORDS: [&str; 12] = [
    "tax",
    "cart",
    "rounding",
    "deploy",
    "refactor",
    "inventory",
    "tests",
    "checkout",
    "api",
    "docs",
    "parser",
    "cache",
];

/// Words of prose from the shared generator.
pub trait Words {
    fn words(&mut self, n: usize) -> String;
}

impl Words for support::Lcg {
    fn words(&mut self, n: usize) -> String {
        let mut out = String::new();
        for i in 0..n {
            if i > 0 {
                out.push(' ');
            }
            out.push_str(WORDS[self.next(WORDS.len())]);
        }
        out
    }
}

/// A UUID-shaped id, distinct for each `kind`: every generator (and every
/// family of ids within one) has its own, so no two sessions of the store
/// list share an id (a shared one is listed once, the other lost).
pub fn uuid(kind: u64, i: usize, j: usize) -> String {
    format!(
        "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
        kind as usize * 0x1000_0000 + i,
        j & 0xffff,
        (i >> 4) & 0xfff,
        j & 0xfff,
        i * 7919 + j
    )
}

pub fn timestamp(i: usize, j: usize) -> String {
    let seconds = i * 3_600 + j * 7;
    format!(
        "2026-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        1 + (seconds / 2_592_000) % 12,
        1 + (seconds / 86_400) % 28,
        (seconds / 3_600) % 24,
        (seconds / 60) % 60,
        seconds % 60,
        j % 1000
    )
}
