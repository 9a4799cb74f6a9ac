//! Open documents: their text as ropes, with the client's version.
//!
//! Owned by the main loop's [`ServerState`](super::state::ServerState) and
//! changed only by notifications, in their arrival order.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use lsp_types::{TextDocumentContentChangeEvent, Url};
use ropey::Rope;

use crate::proto::position::{self, Encoding};

#[derive(Debug)]
struct Document {
    rope: Rope,
    version: i32,
    /// Bumped by every change and every request for fresh diagnostics: a
    /// diagnostics run whose generation is no longer current is dropped.
    generation: Arc<AtomicU64>,
    /// Held while publishing, so an older run never lands after a newer one.
    publish: Arc<tokio::sync::Mutex<()>>,
}

/// A consistent view of one document (cloning a rope is O(1)).
#[derive(Debug, Clone)]
pub struct DocumentSnapshot {
    pub rope: Rope,
    pub version: i32,
}

/// What a diagnostics run needs to know whether it is still current.
#[derive(Debug, Clone)]
pub struct Ticket {
    pub generation: u64,
    counter: Arc<AtomicU64>,
    pub publish: Arc<tokio::sync::Mutex<()>>,
}

impl Ticket {
    pub fn is_current(&self) -> bool {
        self.counter.load(Ordering::SeqCst) == self.generation
    }
}

#[derive(Debug, Default)]
pub struct Documents {
    map: HashMap<Url, Document>,
}

impl Documents {
    pub fn open(&mut self, uri: Url, text: &str, version: i32) {
        // Reopening keeps the counter, so runs for the old text are dropped.
        let (generation, publish) = match self.map.get(&uri) {
            Some(doc) => (doc.generation.clone(), doc.publish.clone()),
            None => (Arc::default(), Arc::default()),
        };
        generation.fetch_add(1, Ordering::SeqCst);
        self.map.insert(
            uri,
            Document {
                rope: Rope::from_str(text),
                version,
                generation,
                publish,
            },
        );
    }

    /// Applies the edits in order. A change for a document that is not open
    /// is ignored (there is nothing to apply it to).
    pub fn change(
        &mut self,
        uri: &Url,
        version: i32,
        changes: &[TextDocumentContentChangeEvent],
        encoding: Encoding,
    ) -> bool {
        let Some(doc) = self.map.get_mut(uri) else {
            return false;
        };
        for change in changes {
            apply(&mut doc.rope, change, encoding);
        }
        doc.version = version;
        doc.generation.fetch_add(1, Ordering::SeqCst);
        true
    }

    pub fn close(&mut self, uri: &Url) {
        if let Some(doc) = self.map.remove(uri) {
            doc.generation.fetch_add(1, Ordering::SeqCst);
        }
    }

    pub fn snapshot(&self, uri: &Url) -> Option<DocumentSnapshot> {
        self.map.get(uri).map(|doc| DocumentSnapshot {
            rope: doc.rope.clone(),
            version: doc.version,
        })
    }

    /// A new generation for `uri` (invalidating runs in flight).
    pub fn ticket(&self, uri: &Url) -> Option<Ticket> {
        let doc = self.map.get(uri)?;
        let generation = doc.generation.fetch_add(1, Ordering::SeqCst) + 1;
        Some(Ticket {
            generation,
            counter: doc.generation.clone(),
            publish: doc.publish.clone(),
        })
    }

    pub fn uris(&self) -> Vec<Url> {
        self.map.keys().cloned().collect()
    }
}

/// One content change: a range edit, or (no range) the whole new text.
fn apply(rope: &mut Rope, change: &TextDocumentContentChangeEvent, encoding: Encoding) {
    let Some(range) = change.range else {
        *rope = Rope::from_str(&change.text);
        return;
    };
    let start = position::offset(rope, range.start, encoding);
    // A reversed range is read as empty at its start, never an error.
    let end = position::offset(rope, range.end, encoding).max(start);
    let (start, end) = (rope.byte_to_char(start), rope.byte_to_char(end));
    rope.remove(start..end);
    rope.insert(start, &change.text);
}

#[cfg(test)]
mod tests {
    use super::*;
    use lsp_types::{Position, Range};

    fn edit(l1: u32, c1: u32, l2: u32, c2: u32, text: &str) -> TextDocumentContentChangeEvent {
        TextDocumentContentChangeEvent {
            range: Some(Range::new(Position::new(l1, c1), Position::new(l2, c2))),
            range_length: None,
            text: text.into(),
        }
    }

    #[test]
    fn edits_apply_in_order_with_utf16_columns() {
        let mut docs = Documents::default();
        let uri = Url::parse("file:///a.md").unwrap();
        docs.open(uri.clone(), "😀x\r\ny", 1);
        assert!(docs.change(
            &uri,
            2,
            &[edit(0, 2, 0, 3, "é"), edit(1, 0, 1, 1, "z")],
            Encoding::Utf16
        ));
        let snap = docs.snapshot(&uri).unwrap();
        assert_eq!(snap.rope.to_string(), "😀é\r\nz");
        assert_eq!(snap.version, 2);
        // Past the end: clamped.
        docs.change(&uri, 3, &[edit(9, 9, 9, 9, "!")], Encoding::Utf8);
        assert_eq!(docs.snapshot(&uri).unwrap().rope.to_string(), "😀é\r\nz!");
    }
}
