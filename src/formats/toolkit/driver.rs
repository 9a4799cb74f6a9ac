//! The walk every reader makes over a log: open it, hand on its complete
//! lines, and turn what went wrong into the one [`ReadError`] a read
//! reports, with the log's name and the line at fault.

use crate::formats::lines::{self, Flow, LinesError};
use crate::formats::LogSource;
use crate::model::{Cancelled, LogError, ReadError};

/// Why a line handler stopped a walk: the line at fault and the reason.
pub type LineFault = (u64, String);

/// The error a read of `log` reports, at `line` when one is at fault.
pub fn log_error(log: &dyn LogSource, line: Option<u64>, reason: impl Into<String>) -> ReadError {
    ReadError::Log(LogError {
        file: log.name().to_string(),
        line,
        reason: reason.into(),
    })
}

/// What one walk saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Walked {
    /// Bytes up to and including the last complete line handed on.
    pub bytes: u64,
    /// The log's size when it was opened: the limit a second pass over
    /// the same bytes opens with.
    pub size: u64,
}

/// Opens `log` (up to `limit`, see [`LogSource::open`]) and hands each
/// complete line to `on_line`, polling `cancelled` between chunks. A line
/// over [`lines::MAX_READ_LINE`] fails the read at its number.
pub fn walk(
    log: &dyn LogSource,
    limit: Option<u64>,
    cancelled: Cancelled<'_>,
    on_line: &mut dyn FnMut(&[u8]) -> Result<Flow, LineFault>,
) -> Result<Walked, ReadError> {
    let (mut reader, size) = log
        .open(limit)
        .map_err(|e| log_error(log, None, e.to_string()))?;
    let mut handed = 0u64;
    let walked = lines::for_each_line(&mut reader, size, cancelled, &mut |raw| {
        handed += 1;
        on_line(raw)
    });
    match walked {
        Ok(bytes) => Ok(Walked { bytes, size }),
        Err(LinesError::Io(e)) => Err(log_error(log, None, e.to_string())),
        Err(LinesError::Cancelled) => Err(ReadError::Cancelled),
        Err(LinesError::Line((n, reason))) => Err(log_error(log, Some(n), reason)),
        Err(LinesError::TooLong) => Err(log_error(
            log,
            Some(handed + 1),
            format!("a line longer than {} MiB", lines::MAX_READ_LINE >> 20),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::toolkit::memory_log::MemoryLog;

    #[test]
    fn a_walk_hands_on_complete_lines_and_names_the_faulty_one() {
        let log = MemoryLog::new(b"a\nb\nunfinished".to_vec());
        let mut seen = Vec::new();
        let walked = walk(&log, None, &|| false, &mut |l| {
            seen.push(l.to_vec());
            Ok(Flow::Continue)
        })
        .unwrap();
        assert_eq!(seen, vec![b"a".to_vec(), b"b".to_vec()]);
        assert_eq!(walked, Walked { bytes: 4, size: 14 });
        let failed = walk(&log, None, &|| false, &mut |_| Err((2, "bad".into())));
        match failed {
            Err(ReadError::Log(e)) => {
                assert_eq!(
                    (e.file.as_str(), e.line, e.reason.as_str()),
                    ("memory.jsonl", Some(2), "bad")
                )
            }
            other => panic!("{other:?}"),
        }
        let cancelled = walk(&log, None, &|| true, &mut |_| Ok(Flow::Continue));
        assert!(matches!(cancelled, Err(ReadError::Cancelled)));
    }
}
