//! The format-neutral session model: what every log format is read into
//! and what the reference core works on. It knows no file format, no path
//! and no protocol, so it sits at the bottom of the module graph.

// The core never prints: stdout is the protocol channel of the server.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod event;
pub mod published;
pub mod read;
pub mod session;
pub mod session_list;
pub mod status;
pub mod store;
pub mod surrogates;

pub use event::{Entry, Event, Role};
pub use published::{LatestVersion, PublishedVersion};
pub use read::{LogError, ReadError, ReadSummary};
pub use session::{Locator, Session, SessionHeader, SessionKey, SessionSink};
pub use session_list::SessionList;
pub use status::{NoteKind, SearchStatus, Status, StatusNote};
pub use store::{Cancelled, SessionReader, SessionStore, StoreNote, StoreStatus, Version, Wake};

/// Largest integer the contract accepts (2^53 − 1).
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;
