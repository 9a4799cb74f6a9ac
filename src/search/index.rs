//! Opening the index: one folder, created when missing; a folder that is
//! not a readable index of this schema (corrupt, half-deleted, another
//! program's) is moved aside and a new index made, never a fatal error.
//! Readers see the last commit, never a torn one (tantivy's meta file is
//! replaced atomically); one writer at a time across processes (tantivy's
//! lock file in the folder).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tantivy::schema::IndexRecordOption;
use tantivy::{DocSet, Index, IndexReader, ReloadPolicy, Searcher, Term, TERMINATED};

use super::checksum;
use super::counted;
use super::error::SearchError;
use super::location;
use super::manifest::ManifestBuilder;
pub use super::manifest::{Indexed, Manifest};
use super::paged::{PagedDirectory, Pages};
use super::schema::{self, Fields};
use super::tokenizer;

/// Decompressed blocks of the doc store kept per segment (tantivy keeps
/// 100): nothing is stored and no search reads a stored document
/// (`columns.rs`), so the cache would only hold memory (issue 29 item 6).
const DOC_STORE_CACHE_BLOCKS: usize = 4;

/// An open index and its reader.
pub struct SearchIndex {
    pub(crate) index: Index,
    pub(crate) fields: Fields,
    pub(crate) reader: IndexReader,
    /// `None` for an index in memory (search with the index turned off).
    dir: Option<PathBuf>,
    /// Where a broken index was moved, when opening found one.
    pub moved_aside: Option<PathBuf>,
    /// The manifest of the last commit read, with that commit's searcher
    /// generation.
    manifest: Mutex<Option<(u64, Arc<Manifest>)>>,
    /// The searcher generation whose doc store was last found intact
    /// ([`SearchIndex::verify_doc_store`], once per commit read).
    doc_store_verified: Mutex<Option<u64>>,
    /// The read mappings of the index's files (none in memory).
    pages: Pages,
}

impl SearchIndex {
    /// Opens the index in `dir`, creating it when missing, replacing it
    /// (moved aside) when broken. `dir` must be ready
    /// ([`location::prepare`]).
    pub fn open_or_create(dir: &Path, now_ms: u64) -> Result<Self, SearchError> {
        match Self::open_in(dir, true) {
            Ok(index) => Ok(index),
            Err(SearchError::Broken(why)) => {
                tracing::warn!(
                    "search index {} is unusable ({why}); rebuilding",
                    dir.display()
                );
                let aside = location::move_aside(dir, now_ms).map_err(SearchError::io)?;
                location::make_index_dir(dir).map_err(SearchError::Io)?;
                let mut index = Self::open_in(dir, true)?;
                index.moved_aside = Some(aside);
                Ok(index)
            }
            Err(e) => Err(e),
        }
    }

    /// Opens an existing index for reading only; `None` when there is none.
    pub fn open_existing(dir: &Path) -> Result<Option<Self>, SearchError> {
        if !dir.join("meta.json").is_file() {
            return Ok(None);
        }
        Self::open_in(dir, false).map(Some)
    }

    fn open_in(dir: &Path, create: bool) -> Result<Self, SearchError> {
        let fields = Fields::new();
        let directory = PagedDirectory::open(dir).map_err(|e| SearchError::Io(e.to_string()))?;
        let pages = directory.pages();
        let exists = Index::exists(&directory).map_err(|e| SearchError::Broken(e.to_string()))?;
        let index = if exists {
            let index = Index::open(directory).map_err(|e| SearchError::Broken(e.to_string()))?;
            if index.schema() != fields.schema {
                return Err(SearchError::Broken("another schema".into()));
            }
            index
        } else if create {
            let index = Index::create(directory, fields.schema.clone(), Default::default())
                .map_err(SearchError::from)?;
            location::narrow(dir);
            index
        } else {
            return Err(SearchError::Broken("no index".into()));
        };
        let opened = Self::ready(index, fields, Some(dir.to_path_buf()), pages)
            .map_err(|e| SearchError::Broken(e.to_string()))?;
        // Every segment the meta file names must be readable.
        opened
            .manifest()
            .map_err(|e| SearchError::Broken(e.to_string()))?;
        Ok(opened)
    }

    /// An index in memory, gone with the process: what searching with the
    /// index turned off builds, so nothing is written to disk.
    pub fn in_memory() -> Result<Self, SearchError> {
        let fields = Fields::new();
        let index = Index::create_in_ram(fields.schema.clone());
        Ok(Self::ready(index, fields, None, Pages::default())?)
    }

    /// `index` ready for this schema: its analyzers registered (the
    /// fields name them, so no query or write works without), and a
    /// reader reloaded only when told (after a commit), on disk or in
    /// memory alike.
    fn ready(
        index: Index,
        fields: Fields,
        dir: Option<PathBuf>,
        pages: Pages,
    ) -> tantivy::Result<Self> {
        index
            .tokenizers()
            .register(tokenizer::NAME, tokenizer::analyzer());
        index
            .tokenizers()
            .register(counted::NAME, counted::Counted::default());
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .doc_store_cache_num_blocks(DOC_STORE_CACHE_BLOCKS)
            .try_into()?;
        Ok(SearchIndex {
            index,
            fields,
            reader,
            dir,
            moved_aside: None,
            manifest: Mutex::default(),
            doc_store_verified: Mutex::default(),
            pages,
        })
    }

    /// The read mappings of the index's files, to let go of their
    /// resident pages ([`Pages::release`]) from another thread.
    pub fn pages(&self) -> Pages {
        self.pages.clone()
    }

    /// Checks the checksum of every file of the last commit: a file whose
    /// bytes changed under an intact footer (a bad disk, a stray write)
    /// reads as garbage or panics in tantivy. Reads the whole index, so it
    /// runs after a build and after a failure, never per query; with plain
    /// reads, so none of it stays mapped into the process (`checksum`).
    pub fn verify(&self) -> Result<(), SearchError> {
        self.verified(checksum::damaged)
    }

    /// [`SearchIndex::verify`] of the doc store's files alone
    /// ([`checksum::damaged_doc_store`]), once per commit this process
    /// reads: 8.5 MB of doc store at 100,000 sessions, a few milliseconds.
    pub fn verify_doc_store(&self) -> Result<(), SearchError> {
        let generation = self.reader.searcher().generation().generation_id();
        let Ok(mut verified) = self.doc_store_verified.lock() else {
            return self.verified(checksum::damaged_doc_store);
        };
        if *verified == Some(generation) {
            return Ok(());
        }
        self.verified(checksum::damaged_doc_store)?;
        *verified = Some(generation);
        Ok(())
    }

    fn verified(
        &self,
        damaged: fn(&Index, &Path) -> tantivy::Result<Vec<PathBuf>>,
    ) -> Result<(), SearchError> {
        let Some(dir) = self.dir.as_deref() else {
            return Ok(());
        };
        match damaged(&self.index, dir) {
            Ok(bad) if bad.is_empty() => Ok(()),
            Ok(bad) => {
                let names: Vec<String> = bad.iter().map(|p| p.display().to_string()).collect();
                Err(SearchError::Broken(format!(
                    "corrupt files: {}",
                    names.join(", ")
                )))
            }
            Err(e) => Err(SearchError::Broken(e.to_string())),
        }
    }

    /// A new, empty index in place of this one, which is moved aside
    /// (found corrupt by [`SearchIndex::verify`]); in memory, a new one.
    pub fn rebuilt(&self, now_ms: u64) -> Result<SearchIndex, SearchError> {
        let Some(dir) = self.dir.as_deref() else {
            return Self::in_memory();
        };
        let aside = location::move_aside(dir, now_ms).map_err(SearchError::io)?;
        location::make_index_dir(dir).map_err(SearchError::Io)?;
        let mut index = Self::open_in(dir, true)?;
        index.moved_aside = Some(aside);
        Ok(index)
    }

    /// The index's folder (`None` in memory).
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// The bytes of the index's files.
    pub fn size(&self) -> u64 {
        self.dir.as_deref().map_or(0, location::size)
    }

    /// Narrows the modes of what tantivy wrote (see [`location::narrow`]).
    pub fn narrow(&self) {
        if let Some(dir) = &self.dir {
            location::narrow(dir);
        }
    }

    /// Sees the last commit (of this process or another).
    pub fn reload(&self) -> Result<(), SearchError> {
        self.reader.reload().map_err(SearchError::from)
    }

    /// What the index holds, session by session (from the last commit
    /// this reader sees). Read once per commit seen: the server and a
    /// sync that follows an open ask again for the same one.
    pub fn manifest(&self) -> Result<Arc<Manifest>, SearchError> {
        let searcher = self.reader.searcher();
        let generation = searcher.generation().generation_id();
        if let Ok(cached) = self.manifest.lock() {
            if let Some((of, manifest)) = cached.as_ref() {
                if *of == generation {
                    return Ok(manifest.clone());
                }
            }
        }
        // tantivy panics on some corrupt files (an `unwrap` in its
        // dictionary reader): such an index is broken, not this process.
        let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.read_manifest(&searcher)
        }));
        // It read a column of every session document: those pages stay in
        // the page cache, not in this process (`paged.rs`).
        self.pages.release();
        let manifest = match read {
            Ok(read) => Arc::new(read?),
            Err(_) => {
                return Err(SearchError::Broken(
                    "a panic reading its session documents".into(),
                ))
            }
        };
        if let Ok(mut cached) = self.manifest.lock() {
            *cached = Some((generation, manifest.clone()));
        }
        Ok(manifest)
    }

    /// The session documents' columns, segment by segment (no stored
    /// document is read).
    fn read_manifest(&self, searcher: &Searcher) -> Result<Manifest, SearchError> {
        let f = &self.fields;
        let name = |field| f.schema.get_field_name(field);
        let session_docs = Term::from_field_text(f.kind, schema::SESSION);
        let mut out = ManifestBuilder::default();
        for segment in searcher.segment_readers() {
            let fast = segment.fast_fields();
            let (version, messages, surface_hash) = (
                fast.u64(name(f.version))?,
                fast.u64(name(f.messages))?,
                fast.u64(name(f.surface_hash))?,
            );
            let Some(ids) = fast.str(name(f.session))? else {
                continue;
            };
            let postings = segment
                .inverted_index(f.kind)?
                .read_postings(&session_docs, IndexRecordOption::Basic)
                .map_err(SearchError::io)?;
            let Some(mut postings) = postings else {
                continue;
            };
            let alive = segment.alive_bitset();
            // Each session document's id ordinal, then the ids decoded in
            // ordinal order in one pass over the dictionary (decoding
            // them one by one scans a block each: most of a warm search's
            // time at 100,000 sessions).
            let mut found: Vec<(u64, Indexed)> = Vec::new();
            let mut doc = postings.doc();
            while doc != TERMINATED {
                let ord = ids.term_ords(doc).next();
                if let (Some(ord), true) = (ord, alive.is_none_or(|a| a.is_alive(doc))) {
                    let indexed = Indexed {
                        version: version.first(doc).unwrap_or(0),
                        messages: messages.first(doc).unwrap_or(0),
                        surface_hash: surface_hash.first(doc).unwrap_or(0),
                    };
                    found.push((ord, indexed));
                }
                doc = postings.advance();
            }
            found.sort_unstable_by_key(|(ord, _)| *ord);
            let mut next = found.iter().map(|(_, indexed)| indexed);
            // Sorted above, as the dictionary requires.
            ids.dictionary()
                .sorted_ords_to_term_cb(found.iter().map(|(ord, _)| *ord), |term| {
                    if let (Ok(id), Some(indexed)) = (std::str::from_utf8(term), next.next()) {
                        out.push(id, indexed.clone());
                    }
                    Ok(())
                })
                .map_err(SearchError::io)?;
        }
        Ok(out.finish())
    }
}
