//! Reading an OpenCode database (`opencode.db`, `opencode-*.db`) without
//! ever writing to it or beside it (agent-logs-more.md "OpenCode", "What
//! reading it takes").
//!
//! OpenCode keeps the file in WAL mode while it runs, several processes
//! writing. A read-only open then shares its `-shm`; when neither `-wal`
//! nor `-shm` exists a read-only open would create the `-shm`, so that
//! state (nobody writing) is opened `immutable=1` — then and only then.
//! Every read is one short transaction: one consistent snapshot that does
//! not hold back OpenCode's checkpoints. A locked or half-migrated file
//! is a read failure with its reason, after at most the busy timeout.

use std::collections::HashMap;
use std::fmt;
use std::path::Path;

use rusqlite::{Connection, Row};

use crate::store::database::bounded::{self, Place};
pub use crate::store::database::open::DbError;
use crate::store::database::open::{Columns, ReadOnlyDb};

/// One `session` row, with its project's worktree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRow {
    pub id: String,
    pub parent_id: Option<String>,
    pub directory: Option<String>,
    pub worktree: Option<String>,
    pub title: Option<String>,
    pub agent: Option<String>,
    /// `revert` JSON.
    pub revert: Option<String>,
    pub time_created: Option<i64>,
    pub time_updated: Option<i64>,
}

/// One session's rows: messages `(id, data)` by id, parts
/// `(message id, id, data)` by message then id.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionRows {
    pub messages: Vec<(String, String)>,
    pub parts: Vec<(String, String, String)>,
}

/// What an incremental index compares: the newest `time_updated` and the
/// highest message id (the contract's keys), and the rows counted, which
/// also change when OpenCode deletes (a revert's cleanup, a deleted
/// session). File sizes say nothing (SQLite updates in place).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DbStamp {
    pub max_time_updated: Option<i64>,
    pub max_message_id: Option<String>,
    pub sessions: i64,
    pub messages: i64,
}

/// One session's messages as an index compares them: the highest id and
/// how many there are.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MessageKey {
    pub max_id: Option<String>,
    pub count: i64,
}

impl MessageKey {
    /// The key a query selected as `max(id), count(*)` from column `at`
    /// on (one session's, or each session's of a `GROUP BY`).
    fn of(row: &Row<'_>, at: usize) -> rusqlite::Result<Self> {
        Ok(MessageKey {
            max_id: row.get(at)?,
            count: row.get(at + 1)?,
        })
    }
}

/// One session's parts as a cache compares them: a text part streamed
/// into changes no message row, only its part's `time_updated`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PartKey {
    pub max_time_updated: Option<i64>,
    pub count: i64,
}

/// Every session of a database with what tells each one's changes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Listing {
    pub sessions: Vec<SessionRow>,
    pub stamp: DbStamp,
    /// By session id; a session without messages has none.
    pub messages: HashMap<String, MessageKey>,
}

/// An open database: through the shared read preamble
/// (`store::database::open`).
pub struct OpencodeDb {
    conn: ReadOnlyDb,
    session_columns: Columns,
    part_columns: Columns,
    message_columns: Columns,
    project_columns: Columns,
}

impl OpencodeDb {
    /// Opens `path` for reading, creating nothing beside it.
    pub fn open(path: &Path) -> Result<Self, DbError> {
        Self::over(ReadOnlyDb::open(path)?)
    }

    /// Takes `conn` as an OpenCode (or Kilo Code) database: its tables
    /// checked, its columns read.
    pub fn over(mut conn: ReadOnlyDb) -> Result<Self, DbError> {
        let db = OpencodeDb {
            session_columns: conn.columns("session")?,
            part_columns: conn.columns("part")?,
            message_columns: conn.columns("message")?,
            project_columns: conn.columns("project")?,
            conn,
        };
        let not = |why: String| {
            if why.starts_with("no table") {
                DbError(format!("not an OpenCode database (yet): {why}"))
            } else {
                DbError(format!("not an OpenCode database this build reads: {why}"))
            }
        };
        db.session_columns
            .require("session", &["id"])
            .map_err(not)?;
        db.message_columns
            .require("message", &["id", "session_id", "data"])
            .map_err(not)?;
        db.part_columns
            .require("part", &["id", "message_id", "data"])
            .map_err(not)?;
        Ok(db)
    }

    /// `session.<name>` when the column exists, else `NULL`.
    fn session_column(&self, name: &str) -> String {
        self.session_columns.or_null("s", name)
    }

    /// The `SELECT` of session rows, with `filter` after `FROM`.
    fn session_sql(&self, filter: &str) -> Result<String, DbError> {
        let worktree =
            if self.project_columns.has("worktree") && self.session_columns.has("project_id") {
                "(SELECT p.worktree FROM project p WHERE p.id = s.project_id)"
            } else {
                "NULL"
            };
        Ok(format!(
            "SELECT s.id, {}, {}, {worktree}, {}, {}, {}, {}, {} FROM session s {filter}",
            self.session_column("parent_id"),
            self.session_column("directory"),
            self.session_column("title"),
            self.session_column("agent"),
            self.session_column("revert"),
            self.session_column("time_created"),
            self.session_column("time_updated"),
        ))
    }

    fn session_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<SessionRow> {
        Ok(SessionRow {
            id: row.get(0)?,
            parent_id: row.get(1)?,
            directory: row.get(2)?,
            worktree: row.get(3)?,
            title: row.get(4)?,
            agent: row.get(5)?,
            revert: row.get(6)?,
            time_created: row.get(7)?,
            time_updated: row.get(8)?,
        })
    }

    fn stamp_sql(&self) -> String {
        format!(
            "SELECT (SELECT max({}) FROM session s), (SELECT max(id) FROM message), \
             (SELECT count(*) FROM session), (SELECT count(*) FROM message)",
            self.session_column("time_updated")
        )
    }

    fn read_stamp(conn: &Connection, sql: &str) -> rusqlite::Result<DbStamp> {
        conn.query_row(sql, [], |row| {
            Ok(DbStamp {
                max_time_updated: row.get(0)?,
                max_message_id: row.get(1)?,
                sessions: row.get(2)?,
                messages: row.get(3)?,
            })
        })
    }

    /// The database's stamp alone: one cheap query, to tell whether
    /// anything changed since a [`Self::listing`].
    pub fn stamp(&mut self) -> Result<DbStamp, DbError> {
        let sql = self.stamp_sql();
        let tx = self.conn.transaction()?;
        let stamp = Self::read_stamp(&tx, &sql)?;
        tx.finish()?;
        Ok(stamp)
    }

    /// Every session by id, the stamp and each session's message key, in
    /// one transaction (one consistent snapshot).
    pub fn listing(&mut self) -> Result<Listing, DbError> {
        let sql = self.session_sql("ORDER BY s.id")?;
        let stamp_sql = self.stamp_sql();
        let tx = self.conn.transaction()?;
        let sessions = {
            let mut statement = tx.prepare(&sql)?;
            let rows = statement.query_map([], Self::session_row)?;
            rows.collect::<Result<Vec<_>, _>>()?
        };
        let messages = {
            let mut statement = tx
                .prepare("SELECT session_id, max(id), count(*) FROM message GROUP BY session_id")?;
            let rows = statement.query_map([], |row| {
                Ok((row.get::<_, Option<String>>(0)?, MessageKey::of(row, 1)?))
            })?;
            let mut keys = HashMap::new();
            for row in rows {
                if let (Some(id), key) = row? {
                    keys.insert(id, key);
                }
            }
            keys
        };
        let stamp = Self::read_stamp(&tx, &stamp_sql)?;
        tx.finish()?;
        Ok(Listing {
            sessions,
            stamp,
            messages,
        })
    }

    /// Every session, by id, with the stamp, in one transaction.
    pub fn sessions(&mut self) -> Result<(Vec<SessionRow>, DbStamp), DbError> {
        let listing = self.listing()?;
        Ok((listing.sessions, listing.stamp))
    }

    /// The session `id` and its message key, in one transaction; `None`
    /// when the database no longer holds it.
    pub fn session(&mut self, id: &str) -> Result<Option<(SessionRow, MessageKey)>, DbError> {
        let sql = self.session_sql("WHERE s.id = ?1")?;
        let tx = self.conn.transaction()?;
        let row = {
            let mut statement = tx.prepare(&sql)?;
            let mut rows = statement.query_map([id], Self::session_row)?;
            rows.next().transpose()?
        };
        let key = tx.query_row(
            "SELECT max(id), count(*) FROM message WHERE session_id = ?1",
            [id],
            |row| MessageKey::of(row, 0),
        )?;
        tx.finish()?;
        Ok(row.map(|row| (row, key)))
    }

    /// The key of `id`'s parts; `None` when the table has no
    /// `session_id` and `time_updated` to tell it by.
    pub fn part_key(&mut self, id: &str) -> Result<Option<PartKey>, DbError> {
        if !["session_id", "time_updated"]
            .iter()
            .all(|c| self.part_columns.has(c))
        {
            return Ok(None);
        }
        let tx = self.conn.transaction()?;
        let key = tx.query_row(
            "SELECT max(time_updated), count(*) FROM part WHERE session_id = ?1",
            [id],
            |row| {
                Ok(PartKey {
                    max_time_updated: row.get(0)?,
                    count: row.get(1)?,
                })
            },
        )?;
        tx.finish()?;
        Ok(Some(key))
    }

    /// One session's messages and parts as a listing reads them (issue 27
    /// item 14): each `data` read as a stream, every string in it cut
    /// (`database::shrink`), never held whole; [`Self::session_rows`]
    /// when the tables cannot be read so.
    pub fn session_rows_listed(&mut self, id: &str) -> Result<SessionRows, DbError> {
        match self.streamable() {
            true => self.placed_rows(id, true),
            false => self.selected_rows(id),
        }
    }

    fn streamable(&self) -> bool {
        let conn = self.conn.connection();
        bounded::streamable(conn, "message") && bounded::streamable(conn, "part")
    }

    /// One session's rows placed first (ids and rowids), each `data` then
    /// read alone: shrunk for a `listing`, else whole and once — never
    /// carried through SQLite's sort of the parts.
    fn placed_rows(&mut self, id: &str, listing: bool) -> Result<SessionRows, DbError> {
        let place = bounded::select_list;
        let message_sql = format!(
            "SELECT m.id, {} FROM message m WHERE m.session_id = ?1 ORDER BY m.id",
            place("m", &["data"])
        );
        let part_sql = format!(
            "SELECT p.message_id, p.id, {} FROM part p \
             JOIN message m ON m.id = p.message_id \
             WHERE m.session_id = ?1 ORDER BY p.message_id, p.id",
            place("p", &["data"])
        );
        let tx = self.conn.transaction()?;
        let placed_messages = {
            let mut statement = tx.prepare(&message_sql)?;
            let rows = statement.query_map([id], |row| {
                Ok((row.get::<_, String>(0)?, Place::of(row, 1)?))
            })?;
            rows.collect::<Result<Vec<_>, _>>()?
        };
        let placed_parts = {
            let mut statement = tx.prepare(&part_sql)?;
            let rows = statement.query_map([id], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, String>(1)?,
                    Place::of(row, 1)?,
                ))
            })?;
            rows.collect::<Result<Vec<_>, _>>()?
        };
        // `data` is NOT NULL in OpenCode's schema; one that is not text
        // reads as no JSON (a skipped row), as a `String` read would fail.
        let data = |place: &Place, table: &str| {
            bounded::body_text(&tx, place, 0, table, "data", listing).map(Option::unwrap_or_default)
        };
        let mut rows = SessionRows::default();
        for (message, place) in placed_messages {
            rows.messages.push((message, data(&place, "message")?));
        }
        for (message, part, place) in placed_parts {
            rows.parts.push((message, part, data(&place, "part")?));
        }
        tx.finish()?;
        Ok(rows)
    }

    /// One session's messages and parts, in one transaction.
    pub fn session_rows(&mut self, id: &str) -> Result<SessionRows, DbError> {
        match self.streamable() {
            true => self.placed_rows(id, false),
            false => self.selected_rows(id),
        }
    }

    /// [`Self::session_rows`] by one query per table, bodies and all (a
    /// table blob I/O cannot read: a view, `WITHOUT ROWID`).
    fn selected_rows(&mut self, id: &str) -> Result<SessionRows, DbError> {
        let tx = self.conn.transaction()?;
        let messages = {
            let mut statement =
                tx.prepare("SELECT id, data FROM message WHERE session_id = ?1 ORDER BY id")?;
            let rows = statement.query_map([id], |row| Ok((row.get(0)?, row.get(1)?)))?;
            rows.collect::<Result<Vec<_>, _>>()?
        };
        let parts = {
            let mut statement = tx.prepare(
                "SELECT p.message_id, p.id, p.data FROM part p \
                 JOIN message m ON m.id = p.message_id \
                 WHERE m.session_id = ?1 ORDER BY p.message_id, p.id",
            )?;
            let rows =
                statement.query_map([id], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?;
            rows.collect::<Result<Vec<_>, _>>()?
        };
        tx.finish()?;
        Ok(SessionRows { messages, parts })
    }
}

impl fmt::Debug for OpencodeDb {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpencodeDb").finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Event;
    use crate::store::opencode::session::project_rows;

    const SCHEMA: &str = "CREATE TABLE project (id text PRIMARY KEY, worktree text NOT NULL);
        CREATE TABLE session (id text PRIMARY KEY, project_id text, parent_id text, directory text, title text, revert text, agent text, time_created integer, time_updated integer);
        CREATE TABLE message (id text PRIMARY KEY, session_id text, time_created integer, time_updated integer, data text);
        CREATE TABLE part (id text PRIMARY KEY, message_id text, session_id text, time_created integer, time_updated integer, data text);
        INSERT INTO project VALUES ('p', '/w');
        INSERT INTO session VALUES ('ses_1', 'p', NULL, '', 'New session - 2026-08-20T11:00:00.000Z', NULL, NULL, 5, 6);
        INSERT INTO message VALUES ('msg_1', 'ses_1', 5, 5, '{\"role\":\"user\"}');
        INSERT INTO part VALUES ('prt_1', 'msg_1', 'ses_1', 5, 5, '{\"type\":\"text\",\"text\":\"hello\"}');";

    fn listing(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    fn read_all(path: &Path) -> Result<(Vec<SessionRow>, SessionRows), DbError> {
        let mut db = OpencodeDb::open(path)?;
        let (sessions, _) = db.sessions()?;
        let rows = db.session_rows("ses_1")?;
        Ok((sessions, rows))
    }

    /// A database with the schema as OpenCode keeps it open: in WAL mode.
    fn wal_writer(path: &Path) -> Connection {
        let writer = Connection::open(path).unwrap();
        writer.pragma_update(None, "journal_mode", "WAL").unwrap();
        writer.execute_batch(SCHEMA).unwrap();
        writer
    }

    #[test]
    fn a_database_nobody_writes_is_read_immutable_creating_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("opencode.db");
        Connection::open(&path)
            .unwrap()
            .execute_batch(SCHEMA)
            .unwrap();
        let before = listing(dir.path());
        assert_eq!(before, ["opencode.db"]);
        let (sessions, rows) = read_all(&path).unwrap();
        assert_eq!(sessions[0].worktree.as_deref(), Some("/w"));
        assert_eq!(rows.messages.len(), 1);
        assert_eq!(listing(dir.path()), before);
    }

    #[test]
    fn a_database_being_written_in_wal_mode_is_read_creating_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("opencode-dev.db");
        let writer = wal_writer(&path);
        let before = listing(dir.path());
        assert!(
            before.contains(&"opencode-dev.db-wal".to_string()),
            "{before:?}"
        );
        assert!(
            before.contains(&"opencode-dev.db-shm".to_string()),
            "{before:?}"
        );
        let (sessions, _) = read_all(&path).unwrap();
        assert_eq!(sessions.len(), 1);
        // What OpenCode writes next is seen by the next read.
        writer
            .execute_batch("INSERT INTO message VALUES ('msg_2', 'ses_1', 7, 7, '{}');")
            .unwrap();
        let (_, rows) = read_all(&path).unwrap();
        assert_eq!(rows.messages.len(), 2);
        assert_eq!(listing(dir.path()), before);
        drop(writer);
    }

    #[test]
    fn a_locked_database_is_a_read_failure_not_a_hang() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("opencode.db");
        let writer = wal_writer(&path);
        // Another process holding the file exclusively.
        writer
            .execute_batch("PRAGMA locking_mode=EXCLUSIVE; BEGIN EXCLUSIVE; INSERT INTO message VALUES ('msg_9', 'ses_1', 1, 1, '{}');")
            .unwrap();
        let error = read_all(&path).unwrap_err();
        assert!(error.0.contains("cannot read the database"), "{error}");
        drop(writer);
    }

    #[test]
    fn a_half_migrated_database_says_what_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("opencode.db");
        Connection::open(&path)
            .unwrap()
            .execute_batch(
                "CREATE TABLE session (id text); CREATE TABLE message (id text, data text);",
            )
            .unwrap();
        let error = OpencodeDb::open(&path).unwrap_err();
        assert!(
            error.0.contains("table message has no column session_id"),
            "{error}"
        );
        let empty = dir.path().join("opencode-x.db");
        Connection::open(&empty)
            .unwrap()
            .execute_batch("CREATE TABLE t (x);")
            .unwrap();
        assert!(OpencodeDb::open(&empty)
            .unwrap_err()
            .0
            .contains("no table session"));
        // A column added by a later migration is not needed.
        let older = dir.path().join("opencode-old.db");
        Connection::open(&older)
            .unwrap()
            .execute_batch("CREATE TABLE session (id text); CREATE TABLE message (id text, session_id text, data text); CREATE TABLE part (id text, message_id text, data text); INSERT INTO session VALUES ('ses_1');")
            .unwrap();
        let (sessions, _) = OpencodeDb::open(&older).unwrap().sessions().unwrap();
        assert_eq!(sessions[0].title, None);
    }

    /// The real fixture (issue 15): revert, compaction, a sub-agent and a
    /// default title, read from `../shared/real-logs` beside the repo.
    #[test]
    fn the_real_fixture_projects_as_the_contract_says() {
        let Some(dir) = crate::formats::toolkit::real_logs::real_logs("opencode") else {
            return;
        };
        let path = dir.join("synthetic-data-v1.2/opencode.db");
        let mut db = OpencodeDb::open(&path).unwrap();
        let (sessions, stamp) = db.sessions().unwrap();
        assert_eq!(sessions.len(), 3);
        assert!(stamp.max_message_id.is_some());
        let main = sessions
            .iter()
            .find(|s| s.id == "ses_3a1b2c3d4ffeAbCdEfGhIjKlMn")
            .unwrap();
        let rows = db.session_rows(&main.id).unwrap();
        // The revert its row names applies, as every read projects it.
        let projected = project_rows(main, &rows, None);
        // What the checkpoint shadows is left out, as projection does.
        let through = projected.entries.iter().find_map(|e| match e.event {
            Event::Checkpoint { through_seq, .. } => Some(through_seq),
            _ => None,
        });
        let kinds: Vec<_> = projected
            .entries
            .iter()
            .filter(|e| matches!(e.event, Event::Checkpoint { .. }) || Some(e.seq) > through)
            .map(|e| match &e.event {
                Event::Checkpoint { text, .. } => {
                    format!("checkpoint {}", text.lines().next().unwrap_or(""))
                }
                Event::Message { role, text } => format!("{} {text}", role.as_str()),
                _ => String::new(),
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "checkpoint ## Goal",
                "user Now add a test",
                "assistant Added Settings.test.tsx."
            ]
        );
        assert_eq!(
            projected.first_user_text.as_deref(),
            Some("Add dark mode to the settings page")
        );
        let child = sessions.iter().find(|s| s.parent_id.is_some()).unwrap();
        assert_eq!(child.parent_id.as_deref(), Some(main.id.as_str()));
    }
}
