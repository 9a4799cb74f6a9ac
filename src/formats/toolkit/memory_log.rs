//! A log held in memory, for tests and fuzz targets: the bytes, and
//! optionally a modification time and a path that a format reads facts of
//! the session from (a sub-agent's folder, files beside the log).

use std::io::{self, Read};
use std::path::{Path, PathBuf};

use crate::formats::LogSource;

/// A log whose bytes are in memory.
#[derive(Debug, Clone, Default)]
pub struct MemoryLog {
    pub name: String,
    pub bytes: Vec<u8>,
    pub modified_ms: Option<u64>,
    pub path: Option<PathBuf>,
}

impl MemoryLog {
    /// `bytes` as a log named `memory.jsonl`, with no time and no place.
    pub fn new(bytes: impl Into<Vec<u8>>) -> Self {
        Self {
            name: "memory.jsonl".into(),
            bytes: bytes.into(),
            modified_ms: None,
            path: None,
        }
    }

    /// The same log, modified at `millis`.
    pub fn modified(self, millis: u64) -> Self {
        Self {
            modified_ms: Some(millis),
            ..self
        }
    }

    /// The same log, as if it were the file at `path`.
    pub fn at(self, path: impl Into<PathBuf>) -> Self {
        Self {
            path: Some(path.into()),
            ..self
        }
    }
}

impl LogSource for MemoryLog {
    fn name(&self) -> &str {
        &self.name
    }

    fn open(&self, limit: Option<u64>) -> io::Result<(Box<dyn Read + '_>, u64)> {
        let size = self.bytes.len() as u64;
        Ok((
            Box::new(&self.bytes[..]),
            limit.map_or(size, |l| l.min(size)),
        ))
    }

    fn modified_ms(&self) -> Option<u64> {
        self.modified_ms
    }

    fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }
}
