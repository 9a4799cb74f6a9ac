//! A format's declaration: its unit type and its `impl LogFormat`, with the
//! name given once and what tells its logs, so a format's `mod.rs` holds
//! only its own rules (the parts every format wrote alike are here).

/// Declares format `Type` named `"name"`, then either
/// - a line format: `recognizes: path` (its first-line rule, a
///   `fn(&[u8]) -> bool`; or no such line, and `fn recognizes` among the
///   methods in braces) and `tracked_by: (…)` (the arguments of
///   [`tracked_by!`](super::track::tracked_by)), or
/// - a document: `document_by: Tracker` (see
///   [`document_by!`](super::whole::document_by)),
///
/// and, in braces, any other `LogFormat` method it defines.
macro_rules! log_format {
    (
        $(#[$attr:meta])*
        $ty:ident = $name:literal,
        recognizes: $recognizes:path,
        tracked_by: ($($tracked:tt)*)
        $(, { $($more:tt)* })?
    ) => {
        $crate::formats::toolkit::declare::log_format!(@unit $(#[$attr])* $ty = $name, {
            fn recognizes(&self, line: &[u8]) -> bool {
                $recognizes(line)
            }

            $crate::formats::toolkit::track::tracked_by!($($tracked)*);
            $($($more)*)?
        });
    };
    (
        $(#[$attr:meta])*
        $ty:ident = $name:literal,
        tracked_by: ($($tracked:tt)*),
        { $($more:tt)* }
    ) => {
        $crate::formats::toolkit::declare::log_format!(@unit $(#[$attr])* $ty = $name, {
            $crate::formats::toolkit::track::tracked_by!($($tracked)*);
            $($more)*
        });
    };
    (
        $(#[$attr:meta])*
        $ty:ident = $name:literal,
        document_by: $tracker:ty
        $(, { $($more:tt)* })?
    ) => {
        $crate::formats::toolkit::declare::log_format!(@unit $(#[$attr])* $ty = $name, {
            $crate::formats::toolkit::whole::document_by!($tracker);
            $($($more)*)?
        });
    };
    (@unit $(#[$attr:meta])* $ty:ident = $name:literal, { $($body:tt)* }) => {
        $(#[$attr])*
        #[derive(Debug, Clone, Copy)]
        pub struct $ty;

        impl $crate::formats::LogFormat for $ty {
            fn name(&self) -> &'static str {
                $name
            }

            $($body)*
        }
    };
}
pub(crate) use log_format;
