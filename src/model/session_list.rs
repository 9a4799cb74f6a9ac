//! A list of sessions asked for one at a time. The search index walks the
//! language server's view of every session at each sync; a view keeps its
//! sessions packed in the ranked table, and copying 100,000 of them out
//! whole for that walk cost about 45 MiB while the index was built
//! (issue 29 item 6: the server stays within 80 MiB at every moment).

use std::borrow::Cow;

use super::Session;

/// Sessions by place, `0..count()`.
pub trait SessionList {
    fn count(&self) -> usize;

    /// The session at `place`: borrowed where the list holds sessions
    /// whole, made for the asking where it holds them packed.
    fn at(&self, place: usize) -> Option<Cow<'_, Session>>;
}

impl SessionList for Vec<Session> {
    fn count(&self) -> usize {
        self.len()
    }

    fn at(&self, place: usize) -> Option<Cow<'_, Session>> {
        self.get(place).map(Cow::Borrowed)
    }
}

impl SessionList for &[Session] {
    fn count(&self) -> usize {
        self.len()
    }

    fn at(&self, place: usize) -> Option<Cow<'_, Session>> {
        self.get(place).map(Cow::Borrowed)
    }
}
