//! Team stores (issue 26): sessions shared through object storage (S3,
//! GCS, Azure Blob, any S3-compatible server, or a `file://` folder), read
//! through `object_store`. Published versions are immutable snapshots named
//! by their SHA-256; each published session has a manifest of its versions.
//!
//! This module is the shared interface of the reading side and `publish`:
//! the URL, the client, the bucket layout, the manifest, the typed errors,
//! pinned ids and the local snapshot cache.

pub mod cache;
pub mod client;
pub mod credentials;
pub mod error;
pub mod fetch;
pub mod index;
mod kept;
pub mod layout;
pub mod listing;
pub mod manifest;
pub mod net;
pub mod pin;
mod reader;
pub mod session;
pub mod store;
pub mod url;

pub use client::{open, TeamClient};
pub use error::TeamError;
pub use manifest::{Manifest, ManifestEntry};
pub use store::TeamStore;
pub use url::{Scheme, TeamUrl};
