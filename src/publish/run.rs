//! One publish: resolve the sessions, read each one's surface, scan it,
//! write its snapshot bytes; only when every session is clean (or its
//! kinds allowed) does anything leave the machine — the probe, then each
//! snapshot (create-if-absent) and its manifest entry, and the local
//! snapshot cache.

use std::sync::Mutex;

use super::error::PublishError;
use super::secrets::{self, Finding, Scanned};
use super::snapshot::{self, Facts};
use super::{file_manifest, index, protocol};
use crate::model::{Session, SessionReader};
use crate::reference::snapshot::read_snapshot;
use crate::reference::{mention, time, uri, ReferenceError};
use crate::store::team::layout::{manifest_path, published_id, snapshot_path, valid_publisher};
use crate::store::team::pin::pinned_id;
use crate::store::team::url::Scheme;
use crate::store::team::{cache, ManifestEntry, TeamClient, TeamUrl};

/// What to publish, where, as whom.
#[derive(Debug, Clone)]
pub struct PublishRequest<'a> {
    /// The team store's URL.
    pub to: &'a str,
    /// Each a mention, a bare `hydra-session:` URI or an id.
    pub sessions: &'a [String],
    pub publisher: &'a str,
    /// The secret kinds the person says are not secrets here.
    pub allow_secret: &'a [String],
    /// Now, Unix epoch milliseconds (the entries' `publishedAt`).
    pub now_ms: u64,
}

/// One session published.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Published {
    /// The live published id, `~publisher/id`.
    pub session_id: String,
    /// The pinned id of this version.
    pub pinned_id: String,
    /// The canonical mention of the pinned id.
    pub mention: String,
    pub sha256: String,
    pub bytes: u64,
}

/// A session ready to go: its bytes and what the manifest records.
struct Ready {
    original_id: String,
    published: Published,
    title: Option<String>,
    snapshot: Vec<u8>,
}

/// The session id a publish argument names.
pub fn session_id_of(arg: &str) -> Result<String, ReferenceError> {
    let arg = arg.trim();
    if arg.starts_with("hydra-session:") {
        return uri::decode_reference(arg);
    }
    if arg.contains("](hydra-session:") {
        let parsed = mention::parse(arg)?;
        if let [only] = parsed.references.as_slice() {
            return Ok(only.session_id.clone());
        }
        return Err(ReferenceError::invalid_config(format!(
            "{} mentions in one session argument: give one session per argument",
            parsed.references.len()
        )));
    }
    Ok(arg.to_owned())
}

/// The sessions `publish` reads: any face's store list or view.
pub struct Sessions<'a> {
    /// The session with an id, as the store list elects it.
    pub get: &'a dyn Fn(&str) -> Option<Session>,
    pub reader: &'a dyn SessionReader,
}

/// Publishes every session of `request` from `sessions`, or nothing.
pub fn publish(
    sessions: &Sessions<'_>,
    request: &PublishRequest<'_>,
) -> Result<Vec<Published>, PublishError> {
    let url = TeamUrl::parse(request.to)?;
    if !valid_publisher(request.publisher) {
        return Err(ReferenceError::invalid_config(format!(
            "publisher name {:?}: use 1 to 64 of A-Z a-z 0-9 . _ - (not starting with .), \
             with --as NAME or the publisher setting",
            request.publisher
        ))
        .into());
    }
    if let Some(kind) = request.allow_secret.iter().find(|k| !secrets::is_kind(k)) {
        return Err(ReferenceError::invalid_config(format!(
            "--allow-secret {kind:?}: not a secret kind (kinds: {})",
            secrets::kinds().collect::<Vec<_>>().join(", ")
        ))
        .into());
    }
    let mut ready = Vec::new();
    let mut findings: Vec<Finding> = Vec::new();
    for arg in request.sessions {
        let id = session_id_of(arg)?;
        let session = (sessions.get)(&id).ok_or_else(|| {
            ReferenceError::invalid_config(format!("no session with id {id:?} in the stores"))
        })?;
        let (item, found) = prepare_one(sessions.reader, &session, request)?;
        findings.extend(found);
        ready.push(item);
    }
    findings.retain(|f| !request.allow_secret.iter().any(|k| k == f.kind));
    if !findings.is_empty() {
        return Err(PublishError::Secret { findings });
    }
    let client = crate::store::team::open(&url)?;
    let work = upload(&client, request.publisher, &ready, request.now_ms);
    // On a face's blocking pool the face's runtime drives the requests;
    // a one-shot command has none and starts its own.
    match tokio::runtime::Handle::try_current() {
        Ok(handle) => handle.block_on(work)?,
        Err(_) => runtime()?.block_on(work)?,
    }
    for item in &ready {
        // The cache is a convenience: a failure to fill it loses nothing.
        let _ = cache::cache_put(&item.published.sha256, &item.snapshot);
    }
    Ok(ready.into_iter().map(|r| r.published).collect())
}

/// Reads one session's whole surface and makes its snapshot; the scan's
/// findings name the published id.
fn prepare_one(
    reader: &dyn SessionReader,
    session: &Session,
    request: &PublishRequest<'_>,
) -> Result<(Ready, Vec<Finding>), PublishError> {
    let snapshot = read_snapshot(reader, session, session.label(), None, &|| false)
        .map_err(ReferenceError::read_failed)?;
    let id = published_id(request.publisher, &snapshot.header.id);
    let texts: Vec<&str> = snapshot
        .projection
        .messages
        .iter()
        .map(|m| m.text.as_str())
        .collect();
    let findings = secrets::scan(Scanned {
        session: &snapshot.header.id,
        title: snapshot.title.as_deref(),
        display_title: snapshot.header.label.as_deref(),
        cwd: snapshot.header.cwd.as_deref(),
        messages: &texts,
    });
    let bytes = snapshot::write(
        &snapshot,
        Facts {
            id: &id,
            agent: session.locator.format,
        },
    );
    let sha = cache::sha256_hex(&bytes);
    let pinned = pinned_id(&id, &sha);
    let shown = snapshot
        .header
        .label
        .clone()
        .or_else(|| snapshot.title.clone());
    let published = Published {
        mention: mention::format(&pinned, Some(shown.as_deref().unwrap_or(&id))),
        session_id: id,
        pinned_id: pinned,
        bytes: bytes.len() as u64,
        sha256: sha,
    };
    Ok((
        Ready {
            original_id: snapshot.header.id.clone(),
            published,
            title: shown,
            snapshot: bytes,
        },
        findings,
    ))
}

fn runtime() -> Result<tokio::runtime::Runtime, PublishError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| {
            ReferenceError::read_failed(format!("cannot start the network runtime: {e}")).into()
        })
}

/// Stores that passed the probe in this process: it runs at the first
/// publish to each.
static PROBED: Mutex<Vec<String>> = Mutex::new(Vec::new());

async fn upload(
    client: &TeamClient,
    publisher: &str,
    ready: &[Ready],
    now_ms: u64,
) -> Result<(), PublishError> {
    if client.conditional {
        let url = client.url_text().to_owned();
        let probed = PROBED.lock().map(|p| p.contains(&url)).unwrap_or(false);
        if !probed {
            protocol::probe(client).await?;
            if let Ok(mut p) = PROBED.lock() {
                p.push(url);
            }
        }
    }
    let bad_path = |what: &str| {
        PublishError::Reference(ReferenceError::invalid_config(format!(
            "team store {}: no path for {what}",
            client.url_text()
        )))
    };
    let mut entries = Vec::new();
    for item in ready {
        let sha = &item.published.sha256;
        let path = snapshot_path(client, sha).ok_or_else(|| bad_path("the snapshot"))?;
        protocol::put_snapshot(client, &path, &item.snapshot).await?;
        let manifest = manifest_path(client, publisher, &item.original_id)
            .ok_or_else(|| bad_path("the manifest"))?;
        let entry = ManifestEntry {
            sha256: sha.clone(),
            bytes: item.published.bytes,
            published_at: time::rfc3339(now_ms),
            title: item.title.clone(),
        };
        let session_id = &item.published.session_id;
        let written = if client.url.scheme == Scheme::File {
            let file = file_manifest::file_path(&client.url, &manifest);
            let dir = file.parent().unwrap_or(&file);
            // On `file://` the ETag is the one the store gives the file.
            file_manifest::append_entry(client.url_text(), dir, session_id, &entry)?;
            None
        } else {
            protocol::append_entry(client, &manifest, session_id, &entry).await?
        };
        entries.extend(index::entry_of(client, &manifest, &item.original_id, written).await);
    }
    // After every manifest: the index is a cache of them, updated once.
    index::update(client, publisher, entries).await;
    Ok(())
}

/// The login name: as the environment gives it, else the password
/// file's name of the current user.
pub fn login_name() -> Option<String> {
    ["USER", "LOGNAME"]
        .iter()
        .filter_map(|k| std::env::var(k).ok())
        .find(|v| !v.is_empty())
        .or_else(passwd_name)
}

#[cfg(unix)]
fn passwd_name() -> Option<String> {
    let uid = rustix::process::getuid().as_raw().to_string();
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|line| {
        let mut fields = line.split(':');
        let name = fields.next()?;
        (fields.nth(1)? == uid).then(|| name.to_owned())
    })
}

#[cfg(not(unix))]
fn passwd_name() -> Option<String> {
    None
}

/// Now, Unix epoch milliseconds.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}
