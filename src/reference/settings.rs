//! The limits shared by the CLI and the server, validated once.

use super::budget::BudgetSetting;
use super::error::ReferenceError;
use crate::model::MAX_SAFE_INTEGER;

/// Hard maximum of distinct sources in one message.
pub const MAX_REFERENCES: u64 = 3;
pub const DEFAULT_CANDIDATE_LIMIT: u64 = 50;
/// The spill directory's default size cap (reference.md §5a).
pub const DEFAULT_SPILL_MAX_BYTES: u64 = 268_435_456;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    pub max_references: usize,
    pub candidate_limit: usize,
    pub max_reference_bytes: BudgetSetting,
    /// The spill directory's size cap; validated even when spilling is off.
    pub spill_max_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_references: MAX_REFERENCES as usize,
            candidate_limit: DEFAULT_CANDIDATE_LIMIT as usize,
            max_reference_bytes: BudgetSetting::Auto,
            spill_max_bytes: DEFAULT_SPILL_MAX_BYTES,
        }
    }
}

/// Checks one limit: a positive safe integer (reference.md §8).
pub fn check_limit(name: &str, value: u64) -> Result<usize, ReferenceError> {
    if value == 0 || value > MAX_SAFE_INTEGER {
        return Err(ReferenceError::invalid_config(format!(
            "session-reference: {name} must be a positive safe integer"
        )));
    }
    if name == "maxReferences" && value > MAX_REFERENCES {
        return Err(ReferenceError::invalid_config(
            "session-reference: maxReferences must not exceed 3",
        ));
    }
    usize::try_from(value).map_err(|_| {
        ReferenceError::invalid_config(format!("session-reference: {name} is too large"))
    })
}
