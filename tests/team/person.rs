//! One teammate: a `HOME` of their own (so their caches and spills are
//! theirs), a local hydra store in it, and the binary run as them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

pub struct Person {
    pub name: &'static str,
    home: tempfile::TempDir,
    /// The environment every run of theirs gets besides `HOME`.
    pub env: Vec<(String, String)>,
}

impl Person {
    pub fn new(name: &'static str, env: Vec<(String, String)>) -> Person {
        let home = tempfile::tempdir().expect("a home");
        std::fs::create_dir_all(home.path().join("sessions")).expect("a store");
        Person { name, home, env }
    }

    pub fn home(&self) -> &Path {
        self.home.path()
    }

    /// Their local store of hydra logs.
    pub fn store(&self) -> PathBuf {
        self.home.path().join("sessions")
    }

    pub fn store_arg(&self) -> String {
        self.store().to_string_lossy().into_owned()
    }

    /// Writes a hydra log of `id` whose messages are `texts` (user and
    /// assistant in turn), titled `title`.
    pub fn write_session(&self, id: &str, title: &str, texts: &[&str]) {
        let mut log = serde_json::json!({
            "type": "session", "version": 1, "id": id,
            "createdAt": 1_764_400_000_000u64, "cwd": "/home/team/shop",
        })
        .to_string()
            + "\n";
        let mut seq = 0;
        for (i, text) in texts.iter().enumerate() {
            seq += 1;
            let line = if i % 2 == 0 {
                serde_json::json!({"seq": seq, "type": "user/message", "data": {
                    "source": {"kind": "user"}, "content": [{"type": "text", "text": text}]}})
            } else {
                serde_json::json!({"seq": seq, "type": "assistant/message", "data": {
                    "message": {"content": [{"type": "text", "text": text}]}}})
            };
            log += &(line.to_string() + "\n");
        }
        seq += 1;
        log += &(serde_json::json!({"seq": seq, "type": "session/title", "data": {"title": title}})
            .to_string() + "\n");
        let name = format!("{}.jsonl", id.replace('/', "_"));
        std::fs::write(self.store().join(name), log).expect("a log");
    }

    /// The binary run as this person, with `stdin`.
    pub fn run(&self, args: &[&str], stdin: &str) -> Run {
        let start = Instant::now();
        let mut command = Command::new(env!("CARGO_BIN_EXE_hydra-session-lsp"));
        command
            .args(args)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home())
            .env("USER", self.name)
            .env("XDG_CACHE_HOME", self.home().join(".cache"))
            .env("CLAUDE_CONFIG_DIR", "/nonexistent")
            .env("CODEX_HOME", "/nonexistent")
            // No instance-metadata wait off cloud machines, whatever
            // the reading side does by itself.
            .env("AWS_EC2_METADATA_DISABLED", "true")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in &self.env {
            command.env(k, v);
        }
        let mut child = command.spawn().expect("the binary runs");
        if let Some(mut input) = child.stdin.take() {
            use std::io::Write;
            let _ = input.write_all(stdin.as_bytes());
        }
        let output = child.wait_with_output().expect("the binary ends");
        Run {
            output,
            took: start.elapsed(),
        }
    }
}

pub struct Run {
    pub output: Output,
    pub took: Duration,
}

impl Run {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.output.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}): {}\nstderr: {}",
                self.stdout(),
                self.stderr()
            )
        })
    }

    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).into_owned()
    }

    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).into_owned()
    }

    pub fn code(&self) -> Option<i32> {
        self.output.status.code()
    }

    #[track_caller]
    pub fn ok(self) -> Run {
        assert_eq!(
            self.code(),
            Some(0),
            "stdout: {}\nstderr: {}",
            self.stdout(),
            self.stderr()
        );
        self
    }
}
