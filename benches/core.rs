//! Core benchmarks: retention, candidates over large stores, mention scans.
//!
//! `cargo bench --bench core` (figures in docs/performance.md).

use std::fs;
use std::hint::black_box;
use std::path::Path;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use hydra_session_lsp::model::SessionStore;
use hydra_session_lsp::reference::candidates::Target;
use hydra_session_lsp::reference::mention;
use hydra_session_lsp::reference::projection::{Dropped, Message, Projection, Role};
use hydra_session_lsp::reference::retention::{retain, SourceMeta};
use hydra_session_lsp::reference::table::candidates;
use hydra_session_lsp::store::FsStore;

fn projection(messages: usize) -> Projection {
    let messages = (0..messages)
        .map(|i| Message {
            seq: i as u64 + 1,
            role: if i % 2 == 0 {
                Role::User
            } else {
                Role::Assistant
            },
            checkpoint: i == messages / 2,
            text: format!(
                "message {i}: the tax <rounding> is off in cart.rs, \"quoted\" naïve 😀 "
            )
            .repeat(1 + i % 7),
        })
        .collect();
    Projection {
        messages,
        dropped: Dropped::default(),
        compacted: true,
        ..Projection::default()
    }
}

fn bench_retention(c: &mut Criterion) {
    let meta = SourceMeta {
        session_id: "bench",
        label: "Bench",
        cwd: Some("/w"),
        captured_through_seq: Some(400_000),
    };
    let input = projection(200_000);
    c.bench_function("retain 200k messages into 64 KiB", |b| {
        b.iter_batched(
            || input.clone(),
            |p| black_box(retain(&meta, p, 65_536)),
            BatchSize::LargeInput,
        )
    });
    // Issue 10 item 5: checkpoints that shadow nothing all survive step 1,
    // so step 2 sees every one of them (it was quadratic there).
    let mut group = c.benchmark_group("retain unshadowed checkpoints into 64 KiB");
    group.sample_size(10);
    for count in [20_000, 60_000, 200_000] {
        let input = checkpoints(count);
        group.bench_function(format!("{count} checkpoints"), |b| {
            b.iter_batched(
                || input.clone(),
                |p| black_box(retain(&meta, p, 65_536)),
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

/// `count` compact checkpoints through seq 0: none shadows another.
fn checkpoints(count: usize) -> Projection {
    let messages = (0..count)
        .map(|i| Message {
            seq: i as u64 + 1,
            role: Role::User,
            checkpoint: true,
            text: format!("summary {i}: rounding is per cart now"),
        })
        .collect();
    Projection {
        messages,
        dropped: Dropped::default(),
        compacted: true,
        ..Projection::default()
    }
}

/// A store of `count` sessions of 2–20 KB each, in three workspaces.
fn make_store(dir: &Path, count: usize) {
    for i in 0..count {
        let sub = dir.join(format!("{:02}", i % 100));
        let _ = fs::create_dir_all(&sub);
        let mut log = format!(
            "{{\"type\":\"session\",\"version\":1,\"id\":\"s-{i}\",\"createdAt\":{},\"cwd\":\"/work/p{}\"}}\n",
            1_764_400_000_000u64 + (i as u64 * 7919) % 100_000,
            i % 3
        );
        let turns = 2 + (i * 31) % 36;
        for t in 0..turns {
            log.push_str(&format!(
                "{{\"seq\":{},\"type\":\"user/message\",\"data\":{{\"source\":{{\"kind\":\"user\"}},\"content\":[{{\"type\":\"text\",\"text\":\"turn {t} of session {i}: {}\"}}]}}}}\n",
                t + 1,
                "lorem ipsum dolor sit amet ".repeat(16)
            ));
        }
        log.push_str(&format!(
            "{{\"seq\":{},\"type\":\"session/title\",\"data\":{{\"title\":\"Session {i}\"}}}}\n",
            turns + 1
        ));
        let _ = fs::write(sub.join(format!("s-{i}.jsonl")), log);
    }
}

fn bench_candidates(c: &mut Criterion) {
    let mut group = c.benchmark_group("candidates");
    group.sample_size(10);
    for count in [1_000usize, 5_000, 10_000] {
        let Ok(dir) = tempfile::tempdir() else { return };
        make_store(dir.path(), count);
        // The CLI path: scan headers and titles, then rank.
        group.bench_function(format!("scan + rank, {count} sessions"), |b| {
            b.iter(|| {
                let catalog = FsStore::scan(dir.path());
                black_box(candidates(
                    &catalog.sessions(),
                    Target {
                        session_id: None,
                        cwd: Some("/work/p1"),
                    },
                    "",
                    50,
                ))
            })
        });
        // The server path: the index is in memory; rank with a query.
        let sessions = FsStore::scan(dir.path()).sessions();
        group.bench_function(
            format!("rank in memory, {count} sessions, query \"ses\""),
            |b| {
                b.iter(|| {
                    black_box(candidates(
                        &sessions,
                        Target {
                            session_id: None,
                            cwd: Some("/work/p1"),
                        },
                        "ses",
                        50,
                    ))
                })
            },
        );
    }
    group.finish();
}

fn bench_scan(c: &mut Criterion) {
    let unit = "Compare @[Checkout tax rounding](hydra-session:ImNoZWNrb3V0LXRheCI) with hydra-session:ImEi and some prose. ";
    let doc = unit.repeat(1_000_000 / unit.len());
    c.bench_function("scan mentions in a 1 MB document", |b| {
        b.iter(|| black_box(mention::scan(&doc).len()))
    });
}

criterion_group!(benches, bench_retention, bench_candidates, bench_scan);
criterion_main!(benches);
