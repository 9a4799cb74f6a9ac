//! Error texts that repeat part of their input: the rule is the core's
//! ([`crate::reference::echo`]), shared by every face.

pub use crate::reference::echo::short;
