//! Why search could not run.

use std::fmt;

use super::query::QueryError;

/// A search failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchError {
    /// The query is malformed: the person's to fix.
    Query(QueryError),
    /// The index folder is not a readable index (it is moved aside).
    Broken(String),
    /// Another process is writing the index: this one reads what it last
    /// committed.
    Busy,
    /// Another process is building the index and what it committed does
    /// not cover the store yet (this many sessions), past the wait of an
    /// explicit search: never "nothing found" for "not indexed yet".
    StillIndexing(usize),
    /// The disk is full: search turns off, everything else goes on.
    DiskFull(String),
    /// Any other failure of the file system or of the index.
    Io(String),
}

impl SearchError {
    pub fn io(e: std::io::Error) -> Self {
        if is_disk_full(&e) {
            SearchError::DiskFull(e.to_string())
        } else {
            SearchError::Io(e.to_string())
        }
    }
}

/// `ENOSPC` or `EDQUOT`: no room left for the index.
fn is_disk_full(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded
    )
}

impl From<QueryError> for SearchError {
    fn from(e: QueryError) -> Self {
        SearchError::Query(e)
    }
}

impl From<tantivy::TantivyError> for SearchError {
    fn from(e: tantivy::TantivyError) -> Self {
        use tantivy::directory::error::LockError;
        match e {
            tantivy::TantivyError::LockFailure(LockError::LockBusy, _) => SearchError::Busy,
            tantivy::TantivyError::IoError(io) => {
                SearchError::io(std::io::Error::new(io.kind(), io.to_string()))
            }
            other => {
                let text = other.to_string();
                // tantivy wraps some write errors in its own types: the
                // words are all that is left of ENOSPC there.
                if text.contains("No space left on device") || text.contains("Disk quota exceeded")
                {
                    SearchError::DiskFull(text)
                } else {
                    SearchError::Io(text)
                }
            }
        }
    }
}

impl fmt::Display for SearchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SearchError::Query(e) => e.fmt(f),
            SearchError::Broken(why) => write!(f, "the search index is unusable: {why}"),
            SearchError::Busy => f.write_str("another process is updating the search index"),
            SearchError::StillIndexing(behind) => write!(
                f,
                "still indexing: another process is building the search index \
                 ({behind} sessions not indexed yet); try again shortly"
            ),
            SearchError::DiskFull(why) => {
                write!(
                    f,
                    "search is off: no space left for the search index ({why})"
                )
            }
            SearchError::Io(why) => write!(f, "the search index failed: {why}"),
        }
    }
}

impl std::error::Error for SearchError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_disk_is_told_apart() {
        let full = std::io::Error::from(std::io::ErrorKind::StorageFull);
        assert!(matches!(SearchError::io(full), SearchError::DiskFull(_)));
        let other = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        assert!(matches!(SearchError::io(other), SearchError::Io(_)));
        let wrapped =
            tantivy::TantivyError::InternalError("No space left on device (os error 28)".into());
        assert!(matches!(
            SearchError::from(wrapped),
            SearchError::DiskFull(_)
        ));
    }
}
