//! Pinned ids: `~<publisher>/<id>@sha256:<64 lower-case hex>` names one
//! published version. The rule lives in the reference core (a mention's
//! resolution needs it below the stores); the store re-exports it.

pub use crate::reference::pin::{is_sha256_hex, pinned_id, split_pin};
