//! What the language-server benches share: a seeded generator, resident
//! memory of a process, and latency summaries.

#![allow(dead_code)] // Each bench uses its own subset.

use std::ffi::OsStr;
use std::process::Stdio;
use std::time::Duration;

use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use crate::lsp_common::TestClient;

/// The binary under bench: the one cargo built, or `BENCH_BINARY` (another
/// build, e.g. main's, measured by the same bench in the same minutes: on
/// a shared machine only such pairs compare).
pub fn binary() -> std::path::PathBuf {
    std::env::var_os("BENCH_BINARY")
        .map(Into::into)
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_hydra-session-lsp").into())
}

/// The server under bench over stdio, with `env` set (`RUST_LOG` is `warn`
/// unless `env` says otherwise), and a client on its pipes.
pub fn spawn_server(env: &[(&str, &OsStr)]) -> (Child, TestClient<ChildStdout, ChildStdin>) {
    let mut command = Command::new(binary());
    command.env("RUST_LOG", "warn");
    for (key, value) in env {
        command.env(key, value);
    }
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn the server (cargo bench builds it)");
    let client = TestClient::new(
        child.stdout.take().expect("stdout"),
        child.stdin.take().expect("stdin"),
    );
    (child, client)
}

/// A small seeded generator: the same store on every run.
pub struct Lcg(pub u64);

impl Lcg {
    pub fn next(&mut self, bound: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % bound.max(1)
    }
}

/// The resident memory of process `pid`, in KiB (0 when unknown).
pub fn rss_kib(pid: u32) -> u64 {
    status_kib(pid, "VmRSS")
}

/// A memory figure of `/proc/PID/status` (`VmRSS`, `VmHWM`, …), in KiB
/// (0 when unknown).
pub fn status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// The `p` quantile (0..=1) of `samples`, nearest rank.
pub fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort();
    let index = ((samples.len() as f64 - 1.0) * p).round() as usize;
    samples[index.min(samples.len() - 1)]
}

pub fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}
