//! What every format's reader is built from, so that a format module holds
//! only its own rules: its declaration ([`declare`]), lenient JSON values ([`lenient`]), the walk over a
//! log's complete lines with the errors every read reports alike
//! ([`driver`]), a whole-JSON document's members as its lines come
//! ([`document`]), a document's array elements as its bytes come
//! ([`elements`]) and its read ([`whole`]), index files beside many logs
//! parsed once per change ([`side_index`]), a JSON text's strings told from
//! its structure ([`strings`]), a log held in memory for tests
//! and fuzz targets ([`memory_log`]), the scanner and full read of any
//! line format's tracker ([`track`]), and the environment's paths each
//! format's default stores are found by ([`home`]).

pub mod declare;
pub mod document;
pub mod driver;
pub mod elements;
#[cfg(test)]
pub mod golden;
#[cfg(test)]
pub mod hard_case;
pub mod home;
pub mod lenient;
pub mod memory_log;
#[cfg(test)]
pub mod real_logs;
pub mod side_index;
pub mod strings;
#[cfg(test)]
pub mod test_support;
pub mod track;
pub mod whole;
