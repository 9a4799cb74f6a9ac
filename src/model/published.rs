//! What a store that publishes versions of a session (a team store, issue
//! 26) knows of one version: where it stands in the session's manifest,
//! when it was published, and which version is the latest. Hover shows it.

/// One published version of a session, as its store's last listing saw
/// the session's manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublishedVersion {
    /// The version's digest (64 lower-case hex digits).
    pub sha256: String,
    /// Its place among the manifest's entries, from 1 (oldest first);
    /// `None` when the manifest does not record it (a pin of a version
    /// published elsewhere, or a manifest not listed yet).
    pub position: Option<usize>,
    /// How many versions the manifest records.
    pub versions: usize,
    /// When it was published (RFC 3339), when the manifest says.
    pub published_at: Option<String>,
    /// The manifest's latest entry when it is another version: a newer one
    /// exists (or, unlisted, one the manifest knows instead).
    pub newer: Option<LatestVersion>,
}

/// The latest entry of a manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LatestVersion {
    pub sha256: String,
    pub published_at: String,
}
