//! A whole document (Gemini CLI's `session-*.json`, Copilot Chat's
//! `.json`) seen half-written, then completed in place under a stamp that
//! cannot tell (issue 27 item 15).
//!
//! Both writes go through one shared mapping of one page: the first write
//! to the page sets its modification time, the second (the page still
//! dirty and writable) changes no field of `stat` at all, as two writes
//! of the same size in one timestamp tick do on a file system with coarse
//! timestamps. Each write is followed by an open and close for writing,
//! so the watcher hears of it (a close after writing) without the stat
//! changing either.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use serde_json::json;

/// A Gemini CLI session document (`session-*.json`) of one exchange.
pub fn gemini_document(id: &str, prompt: &str) -> String {
    let doc = json!({
        "sessionId": id, "projectHash": "h", "startTime": "2026-01-01T09:00:00.000Z",
        "messages": [
            {"id": "1", "type": "user", "content": prompt},
            {"id": "2", "type": "gemini", "content": "done"},
        ],
    });
    format!("{doc:#}\n")
}

/// A Copilot Chat session document (`chatSessions/*.json`) of one exchange.
pub fn copilot_chat_document(id: &str, prompt: &str) -> String {
    let doc = json!({
        "version": 3, "sessionId": id, "creationDate": 1_796_026_500_000_u64,
        "requests": [{"message": {"text": prompt}, "response": [{"value": "done"}]}],
    });
    format!("{doc:#}\n")
}

/// Where each format keeps a document of `id` below a store root, and the
/// document: `(format, path, text)`.
pub fn documents(root: &Path, id: &str, prompt: &str) -> Vec<(&'static str, PathBuf, String)> {
    vec![
        (
            "gemini",
            root.join(format!("tmp/p/chats/session-2026-01-01T09-00-{id}.json")),
            gemini_document(id, prompt),
        ),
        (
            "copilot-chat",
            root.join(format!("ws/chatSessions/{id}.json")),
            copilot_chat_document(id, prompt),
        ),
    ]
}

/// A document being written in place.
pub struct InPlace {
    path: PathBuf,
    text: Vec<u8>,
    map: memmap2::MmapMut,
    _file: File,
}

impl InPlace {
    /// Creates `path` at the full size of `text` (zeros), writes its first
    /// half and tells the watcher.
    pub fn half(path: &Path, text: &str) -> InPlace {
        assert!(text.len() < 4096, "one page, or the second write shows");
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("dirs");
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(path)
            .expect("create the document");
        file.set_len(text.len() as u64).expect("size it");
        // SAFETY: the file is this test's own; nothing else truncates it
        // while the mapping lives.
        let mut map = unsafe { memmap2::MmapMut::map_mut(&file) }.expect("map");
        let half = text.len() / 2;
        map[..half].copy_from_slice(&text.as_bytes()[..half]);
        let this = InPlace {
            path: path.to_path_buf(),
            text: text.as_bytes().to_vec(),
            map,
            _file: file,
        };
        this.tell();
        this
    }

    /// Writes the rest and tells the watcher; whether the stat stayed as
    /// it was (the case under test: the page written back and cleaned in
    /// between, after half a minute, would fault and set the time again).
    pub fn complete(&mut self) -> bool {
        let before = stat(&self.path);
        let half = self.text.len() / 2;
        self.map[half..].copy_from_slice(&self.text[half..]);
        let unchanged = stat(&self.path) == before;
        assert_eq!(std::fs::read(&self.path).expect("read"), self.text);
        self.tell();
        unchanged
    }

    /// An open and close for writing: the watcher's event, no stat change.
    fn tell(&self) {
        drop(
            OpenOptions::new()
                .write(true)
                .open(&self.path)
                .expect("open"),
        );
    }
}

fn stat(path: &Path) -> (u64, i64, i64, i64, i64, u64) {
    let m = std::fs::metadata(path).expect("stat");
    (
        m.size(),
        m.mtime(),
        m.mtime_nsec(),
        m.ctime(),
        m.ctime_nsec(),
        m.ino(),
    )
}
