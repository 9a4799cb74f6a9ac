//! The live session index, below the faces: one [`LiveIndex`] per store
//! list, kept fresh by the store's change reports and published as
//! immutable [`View`]s, read through one [`SnapshotCache`], and asked for
//! the context of a session id ([`context_of`]). The language server and
//! the MCP server each keep one; the CLI's one-shot commands read a store
//! once and need none. A store of any kind feeds it: anything that is a
//! `model::SessionStore` (the file stores of `store`, a team store) is
//! started with [`LiveIndex::start`].

mod cache;
mod context;
mod fetches;
mod index;
#[cfg(test)]
mod index_tests;
mod view;

pub use crate::heap::give_back_freed;
pub use cache::{CachedSource, SnapshotCache};
pub use context::{context_of, retained_of};
pub use fetches::Fetches;
pub use index::{IndexEvent, LiveIndex, FIRST_INDEX_GRACE};
pub use view::View;
