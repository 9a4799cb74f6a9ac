//! The byte budget of one source (reference.md §4a): a fixed number of
//! bytes, or `"auto"`, from the capacity of the model that will read the
//! message (the target session's).

use std::fmt;

/// The budget when `"auto"` finds no capacity.
pub const DEFAULT_BUDGET: usize = 65_536;
/// Bounds of an automatic budget.
pub const AUTO_MIN: usize = 4_096;
pub const AUTO_MAX: usize = 1_048_576;

/// `maxReferenceBytes` as configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BudgetSetting {
    /// One budget for every source, from the target's capacity.
    #[default]
    Auto,
    /// Every source's budget, in bytes.
    Fixed(usize),
}

impl fmt::Display for BudgetSetting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BudgetSetting::Auto => f.write_str("auto"),
            BudgetSetting::Fixed(n) => write!(f, "{n}"),
        }
    }
}

/// What the store knows of the target session's capacity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetCapacity {
    /// The target is not in the store.
    NotInStore,
    /// The target's log records this capacity (tokens), or none.
    Known(Option<u64>),
}

/// Why a budget is what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BudgetBasis {
    /// `maxReferenceBytes` is a number.
    Fixed,
    /// A `tokens` window shared by `references` sources.
    Window { tokens: u64, references: usize },
    /// No target session is known.
    NoTarget,
    /// The target session is not in the store.
    NotInStore,
    /// The target's log records no capacity.
    NoCapacity,
}

/// A settled budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    pub bytes: usize,
    pub basis: BudgetBasis,
}

impl Budget {
    pub fn fixed(bytes: usize) -> Self {
        Self {
            bytes,
            basis: BudgetBasis::Fixed,
        }
    }

    /// One line for people: the budget and why, e.g. "66,666 bytes: a
    /// 200,000-token window shared by 3 references".
    pub fn describe(&self) -> String {
        let size = if self.bytes == DEFAULT_BUDGET {
            "64 KiB".to_string()
        } else {
            format!("{} bytes", thousands(self.bytes as u64))
        };
        let why = match self.basis {
            BudgetBasis::Fixed => "maxReferenceBytes is set".to_string(),
            BudgetBasis::Window { tokens, references } => {
                let mut why = format!(
                    "a {}-token window shared by {} reference{}",
                    thousands(tokens),
                    references,
                    if references == 1 { "" } else { "s" }
                );
                let share = tokens / references.max(1) as u64;
                if share < AUTO_MIN as u64 {
                    why.push_str(" (raised to the 4 KiB floor)");
                } else if share > AUTO_MAX as u64 {
                    why.push_str(" (capped at 1 MiB)");
                }
                why
            }
            BudgetBasis::NoTarget => "no target session is known".to_string(),
            BudgetBasis::NotInStore => "the target session is not in the store".to_string(),
            BudgetBasis::NoCapacity => "the target records no model capacity".to_string(),
        };
        format!("{size}: {why}")
    }
}

/// `min(1 MiB, max(4 KiB, floor(capacity / maxReferences)))`.
pub fn auto_bytes(capacity: u64, max_references: usize) -> usize {
    let share = capacity / max_references.max(1) as u64;
    share.clamp(AUTO_MIN as u64, AUTO_MAX as u64) as usize
}

/// The automatic budget for what the store knows of the target.
pub fn from_capacity(capacity: TargetCapacity, max_references: usize) -> Budget {
    match capacity {
        TargetCapacity::NotInStore => Budget {
            bytes: DEFAULT_BUDGET,
            basis: BudgetBasis::NotInStore,
        },
        TargetCapacity::Known(None) => Budget {
            bytes: DEFAULT_BUDGET,
            basis: BudgetBasis::NoCapacity,
        },
        TargetCapacity::Known(Some(tokens)) => Budget {
            bytes: auto_bytes(tokens, max_references),
            basis: BudgetBasis::Window {
                tokens,
                references: max_references,
            },
        },
    }
}

/// `1234567` → `1,234,567`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn automatic_budgets_are_bounded_shares() {
        assert_eq!(auto_bytes(200_000, 3), 66_666);
        assert_eq!(auto_bytes(30_000, 3), 10_000);
        assert_eq!(auto_bytes(9_000, 3), 4_096);
        assert_eq!(auto_bytes(9_000, 1), 9_000);
        assert_eq!(auto_bytes(10_000_000, 1), 1_048_576);
        assert_eq!(auto_bytes(1, 3), 4_096);
    }

    #[test]
    fn descriptions_say_why() {
        let window = from_capacity(TargetCapacity::Known(Some(200_000)), 3);
        assert_eq!(
            window.describe(),
            "66,666 bytes: a 200,000-token window shared by 3 references"
        );
        assert_eq!(
            from_capacity(TargetCapacity::Known(None), 3).describe(),
            "64 KiB: the target records no model capacity"
        );
        assert_eq!(
            from_capacity(TargetCapacity::Known(Some(9_000)), 3).describe(),
            "4,096 bytes: a 9,000-token window shared by 3 references (raised to the 4 KiB floor)"
        );
        assert_eq!(
            Budget::fixed(1000).describe(),
            "1,000 bytes: maxReferenceBytes is set"
        );
    }
}
