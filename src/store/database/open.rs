//! The one read preamble of every agent database (agent-logs-more.md
//! "OpenCode", "What reading it takes"; agent-logs-db-3.md "Reading a
//! database"): read-only, `query_only`, a busy timeout and a retry of
//! `SQLITE_BUSY`, `immutable=1` only when nothing beside the file says a
//! writer may be at work, one transaction per read, a deadline on every
//! read, columns chosen by name.
//!
//! The agents write while we read, in WAL mode. What is beside the file
//! decides how it is opened, and nothing is ever created there:
//!
//! - neither `-wal`, `-shm` nor `-journal`: nobody writes; a read-only
//!   open would create a `-shm`, so the file is opened `immutable=1`;
//! - a `-shm` (with or without its `-wal`): a read-only open shares it
//!   (its read marks change the `-shm`'s bytes, as every reader's do);
//! - a `-wal` without its `-shm` (a writer died, or a copy left half):
//!   opening beside it would create the `-shm`, so the database and its
//!   `-wal` are copied into a private, owner-only folder and read there
//!   (issue 27 item 10);
//! - a rollback `-journal`: a writer is in a transaction, or crashed in
//!   one. Not immutable (issue 27 item 11): a read-only open waits for the
//!   writer's lock, and a hot journal it cannot roll back is a read
//!   failure, reported and tried again on the next read.

use std::collections::HashSet;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rusqlite::{Connection, ErrorCode, OpenFlags, Transaction};

use crate::fsio::{self, Links};

/// How long one statement waits for a writer's lock (WAL recovery, a
/// checkpoint) before `SQLITE_BUSY`.
const BUSY_TIMEOUT: Duration = Duration::from_millis(1000);

/// How often a read that met `SQLITE_BUSY` is tried again.
const BUSY_RETRIES: u32 = 3;

/// Every read of a database ends within this (issue 27 item 13): a
/// recursive view, a huge table, a pathological query plan.
pub const READ_DEADLINE: Duration = Duration::from_secs(10);

/// The SQLite virtual-machine steps between two deadline checks.
const PROGRESS_STEPS: i32 = 1000;

/// The first bytes of every SQLite database file.
pub const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// Why a database could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DbError(pub String);

impl fmt::Display for DbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DbError {}

impl From<rusqlite::Error> for DbError {
    fn from(e: rusqlite::Error) -> Self {
        if e.sqlite_error_code() == Some(ErrorCode::OperationInterrupted) {
            return DbError(format!(
                "cannot read the database: the read took longer than {} s",
                READ_DEADLINE.as_secs()
            ));
        }
        DbError(format!("cannot read the database: {e}"))
    }
}

/// `path` + `suffix` (`-wal`, `-shm`, `-journal`).
pub fn beside(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Whether a writer may be at work: a `-wal`, `-shm` or `-journal` is
/// beside the file.
pub fn has_side_files(path: &Path) -> bool {
    ["-wal", "-shm", "-journal"]
        .iter()
        .any(|s| beside(path, s).symlink_metadata().is_ok())
}

/// Whether the file at `path` starts as a SQLite database (read without
/// following a last link, without blocking).
pub fn is_sqlite(path: &Path) -> bool {
    let Ok(file) = fsio::open_regular(path, Links::NoFollow) else {
        return false;
    };
    let mut head = [0u8; 16];
    file.take(16).read_exact(&mut head).is_ok() && &head == SQLITE_MAGIC
}

/// How `path` is opened, from what is beside it now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Immutable,
    Shared,
    PrivateCopy,
}

fn mode(path: &Path) -> Mode {
    let exists = |suffix: &str| beside(path, suffix).symlink_metadata().is_ok();
    match (exists("-wal"), exists("-shm"), exists("-journal")) {
        (false, false, false) => Mode::Immutable,
        (true, false, _) => Mode::PrivateCopy,
        _ => Mode::Shared,
    }
}

/// The `file:` URI of `path` with `query` (`immutable=1`), its bytes
/// escaped.
fn uri(path: &Path, query: &str) -> Option<String> {
    let text = path.to_str()?;
    let mut uri = String::from("file:");
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"/-_.~".contains(&b) {
            uri.push(char::from(b));
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri.push('?');
    uri.push_str(query);
    Some(uri)
}

/// A database open for reading, with the read preamble applied.
pub struct ReadOnlyDb {
    conn: Connection,
    /// When the current read must end (ms since `epoch`), shared with the
    /// progress handler.
    deadline: Arc<AtomicU64>,
    epoch: Instant,
    limit: Duration,
    /// The private copy read instead of a file whose `-shm` is missing;
    /// removed with it.
    _copy: Option<tempfile::TempDir>,
}

impl fmt::Debug for ReadOnlyDb {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReadOnlyDb").finish_non_exhaustive()
    }
}

impl ReadOnlyDb {
    /// Opens `path` for reading, creating nothing beside it.
    pub fn open(path: &Path) -> Result<Self, DbError> {
        Self::open_with_deadline(path, READ_DEADLINE)
    }

    /// [`Self::open`] with another deadline per read (tests).
    pub fn open_with_deadline(path: &Path, limit: Duration) -> Result<Self, DbError> {
        if !is_sqlite(path) {
            return Err(DbError("not a SQLite database".into()));
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let utf8 = || DbError("the database's path is not UTF-8".into());
        let (conn, copy) = match mode(path) {
            Mode::Immutable => {
                let uri = uri(path, "immutable=1").ok_or_else(utf8)?;
                (
                    Connection::open_with_flags(uri, flags | OpenFlags::SQLITE_OPEN_URI)?,
                    None,
                )
            }
            Mode::Shared => (Connection::open_with_flags(path, flags)?, None),
            Mode::PrivateCopy => {
                let (dir, copied) = private_copy(path)?;
                // Our own copy: SQLite may build its `-shm` and recover the
                // `-wal` there; `query_only` still refuses every write.
                let rw = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
                (Connection::open_with_flags(copied, rw)?, Some(dir))
            }
        };
        conn.busy_timeout(BUSY_TIMEOUT)?;
        conn.pragma_update(None, "query_only", 1)?;
        let deadline = Arc::new(AtomicU64::new(u64::MAX));
        let epoch = Instant::now();
        let watched = deadline.clone();
        conn.progress_handler(
            PROGRESS_STEPS,
            Some(move || elapsed_ms(epoch) > watched.load(Ordering::Relaxed)),
        )?;
        let db = ReadOnlyDb {
            conn,
            deadline,
            epoch,
            limit,
            _copy: copy,
        };
        db.arm();
        Ok(db)
    }

    /// Starts the deadline of one read.
    fn arm(&self) {
        let limit = u64::try_from(self.limit.as_millis()).unwrap_or(u64::MAX);
        self.deadline.store(
            elapsed_ms(self.epoch).saturating_add(limit),
            Ordering::Relaxed,
        );
    }

    /// Runs `read` in one transaction (one consistent snapshot across the
    /// tables) within the deadline; `SQLITE_BUSY` (a writer's WAL
    /// recovery, a checkpoint) is tried again a few times.
    pub fn read<T>(
        &mut self,
        mut read: impl FnMut(&Transaction<'_>) -> Result<T, DbError>,
    ) -> Result<T, DbError> {
        let mut attempt = 0;
        loop {
            self.arm();
            let result = (|| {
                let tx = self.conn.transaction()?;
                let value = read(&tx)?;
                tx.finish()?;
                Ok::<T, DbError>(value)
            })();
            match result {
                Err(e) if is_busy(&e) && attempt < BUSY_RETRIES => attempt += 1,
                other => return other,
            }
        }
    }

    /// Begins one read's transaction, its deadline started (for a format
    /// that runs its statements itself).
    pub fn transaction(&mut self) -> Result<Transaction<'_>, DbError> {
        self.arm();
        Ok(self.conn.transaction()?)
    }

    /// The column names of `table` (empty when there is no such table).
    pub fn columns(&mut self, table: &str) -> Result<Columns, DbError> {
        self.arm();
        let mut statement = self
            .conn
            .prepare("SELECT name FROM pragma_table_info(?1)")?;
        let names = statement
            .query_map([table], |row| row.get::<_, String>(0))?
            .collect::<Result<HashSet<_>, _>>()?;
        Ok(Columns(names))
    }

    /// The connection, for a format's own reads within [`Self::read`].
    pub fn connection(&self) -> &Connection {
        &self.conn
    }
}

/// Whether `e` is a `SQLITE_BUSY` (its text: rusqlite's message).
fn is_busy(e: &DbError) -> bool {
    e.0.contains("database is locked") || e.0.contains("database table is locked")
}

fn elapsed_ms(epoch: Instant) -> u64 {
    u64::try_from(epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// Copies `path` and its `-wal` into a new owner-only folder; the folder
/// and the copy's path.
fn private_copy(path: &Path) -> Result<(tempfile::TempDir, PathBuf), DbError> {
    let error = |e: std::io::Error| DbError(format!("cannot copy the database to read it: {e}"));
    let dir = tempfile::Builder::new()
        .prefix("hydra-db-")
        .tempdir()
        .map_err(error)?;
    let copied = dir.path().join("copy.db");
    for (from, to) in [
        (path.to_path_buf(), copied.clone()),
        (beside(path, "-wal"), beside(&copied, "-wal")),
    ] {
        let mut source = fsio::open_regular(&from, Links::NoFollow).map_err(error)?;
        let mut target = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&to)
            .map_err(error)?;
        fsio::make_private_file(&target).map_err(error)?;
        std::io::copy(&mut source, &mut target).map_err(error)?;
    }
    Ok((dir, copied))
}

/// A column read as text when it is text, else NULL (a stray type is not
/// a failed read).
pub fn text(row: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<Option<String>> {
    use rusqlite::types::ValueRef;
    Ok(match row.get_ref(i)? {
        ValueRef::Text(t) => Some(String::from_utf8_lossy(t).into_owned()),
        _ => None,
    })
}

/// A column read as an integer when it is one, else NULL.
pub fn integer(row: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<Option<i64>> {
    use rusqlite::types::ValueRef;
    Ok(match row.get_ref(i)? {
        ValueRef::Integer(n) => Some(n),
        _ => None,
    })
}

/// The columns of one table, as `PRAGMA table_info` lists them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Columns(pub HashSet<String>);

impl Columns {
    pub fn has(&self, name: &str) -> bool {
        self.0.contains(name)
    }

    /// Whether the table exists at all.
    pub fn exists(&self) -> bool {
        !self.0.is_empty()
    }

    /// `alias.name` when the column exists, else `NULL` (a column a later
    /// migration adds reads as NULL in an older database).
    pub fn or_null(&self, alias: &str, name: &str) -> String {
        if self.has(name) {
            format!("{alias}.{name}")
        } else {
            "NULL".into()
        }
    }

    /// [`Self::or_null`] of each of `names`, comma-separated: the optional
    /// columns of a `SELECT`.
    pub fn or_nulls(&self, alias: &str, names: &[&str]) -> String {
        names
            .iter()
            .map(|name| self.or_null(alias, name))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The first of `want` the table lacks, as a reason.
    pub fn require(&self, table: &str, want: &[&str]) -> Result<(), String> {
        if !self.exists() {
            return Err(format!("no table {table}"));
        }
        match want.iter().find(|c| !self.has(c)) {
            Some(missing) => Err(format!("table {table} has no column {missing}")),
            None => Ok(()),
        }
    }
}
