//! What a sync of the index did: its own module, so the writer and what
//! writes one session's documents (session_docs.rs) both count into it.

/// What one sync did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SyncReport {
    /// Sessions indexed for the first time.
    pub added: usize,
    /// Sessions that only grew: their new messages were added.
    pub appended: usize,
    /// Sessions indexed again (shadowed, rewound, rewritten).
    pub reindexed: usize,
    /// Sessions removed (their log is gone).
    pub removed: usize,
    /// Messages written.
    pub messages: u64,
    /// Their text, in bytes.
    pub text_bytes: u64,
    /// Sessions whose log could not be read (left out until it can).
    pub unreadable: usize,
}

impl SyncReport {
    pub fn changed(&self) -> bool {
        self.added + self.appended + self.reindexed + self.removed > 0
    }
}
