//! A published session's manifest: every version, oldest first; "latest"
//! is the last entry. JSON, camelCase, `version: 1`.

use serde::{Deserialize, Serialize};

use super::error::TeamError;
use crate::reference::pin::is_sha256_hex;

/// The largest manifest read (a manifest grows by one short entry per
/// publish: 4 MiB is tens of thousands of versions).
pub const MAX_MANIFEST_BYTES: usize = 4 << 20;

/// The one manifest version this program writes and reads.
pub const MANIFEST_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    pub version: u32,
    /// The published id, `~<publisher>/<id>`.
    pub session_id: String,
    pub entries: Vec<ManifestEntry>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ManifestEntry {
    /// The snapshot's SHA-256, 64 lower-case hex digits.
    pub sha256: String,
    pub bytes: u64,
    /// When it was published, RFC 3339 UTC.
    pub published_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

impl Manifest {
    /// A new manifest of one session, with no version yet.
    pub fn new(session_id: impl Into<String>) -> Manifest {
        Manifest {
            version: MANIFEST_VERSION,
            session_id: session_id.into(),
            entries: Vec::new(),
        }
    }

    /// Parses and checks a manifest's bytes: bounded, version 1, a
    /// published id, every digest 64 lower-case hex. The error's reason
    /// names what is wrong (the caller adds the URL and path).
    pub fn parse(bytes: &[u8]) -> Result<Manifest, TeamError> {
        let bad = |reason: String| TeamError::BadManifest {
            url: String::new(),
            path: String::new(),
            reason,
        };
        if bytes.len() > MAX_MANIFEST_BYTES {
            return Err(bad(format!("larger than {MAX_MANIFEST_BYTES} bytes")));
        }
        let manifest: Manifest =
            serde_json::from_slice(bytes).map_err(|e| bad(format!("not manifest JSON ({e})")))?;
        manifest.check().map_err(bad)?;
        Ok(manifest)
    }

    /// What [`Manifest::parse`] checks past the JSON (an index's copies
    /// are checked the same way): version 1, a published id, every digest
    /// 64 lower-case hex; the reason when not.
    pub fn check(&self) -> Result<(), String> {
        if self.version != MANIFEST_VERSION {
            return Err(format!("unknown version {}", self.version));
        }
        if !self.session_id.starts_with('~') || !self.session_id.contains('/') {
            return Err("its sessionId is not a published id".to_owned());
        }
        match self.entries.iter().find(|e| !is_sha256_hex(&e.sha256)) {
            Some(e) => Err(format!(
                "entry sha256 {:?} is not 64 lower-case hex",
                e.sha256
            )),
            None => Ok(()),
        }
    }

    /// The manifest's bytes as written (compact JSON).
    pub fn to_bytes(&self) -> Vec<u8> {
        // Serializing a struct of strings and numbers cannot fail.
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// The last entry: the version a live id resolves to.
    pub fn latest(&self) -> Option<&ManifestEntry> {
        self.entries.last()
    }

    /// The entry of version `sha`, if this manifest records it.
    pub fn entry(&self, sha: &str) -> Option<&ManifestEntry> {
        self.entries.iter().find(|e| e.sha256 == sha)
    }
}

impl TeamError {
    /// A manifest error from [`Manifest::parse`] with where it was read.
    pub fn at_manifest(self, url: &str, path: &str) -> TeamError {
        match self {
            TeamError::BadManifest { reason, .. } => TeamError::BadManifest {
                url: url.to_owned(),
                path: path.to_owned(),
                reason,
            },
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEX: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn a_manifest_round_trips_in_camel_case() {
        let mut m = Manifest::new("~ana/s1");
        m.entries.push(ManifestEntry {
            sha256: HEX.into(),
            bytes: 12,
            published_at: "2026-12-02T09:00:00Z".into(),
            title: Some("Fix rounding".into()),
        });
        let bytes = m.to_bytes();
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert!(text.contains("\"sessionId\":\"~ana/s1\"") && text.contains("publishedAt"));
        assert_eq!(Manifest::parse(&bytes).unwrap(), m);
        assert_eq!(m.latest().unwrap().sha256, HEX);
    }

    #[test]
    fn bad_manifests_are_refused() {
        let big = vec![b' '; MAX_MANIFEST_BYTES + 1];
        assert!(Manifest::parse(&big).is_err());
        assert!(Manifest::parse(br#"{"version":2,"sessionId":"~a/b","entries":[]}"#).is_err());
        assert!(Manifest::parse(br#"{"version":1,"sessionId":"a/b","entries":[]}"#).is_err());
        let upper = format!(
            r#"{{"version":1,"sessionId":"~a/b","entries":[{{"sha256":"{}","bytes":1,"publishedAt":"x"}}]}}"#,
            HEX.to_uppercase()
        );
        assert!(Manifest::parse(upper.as_bytes()).is_err());
        let err = Manifest::parse(b"nope")
            .unwrap_err()
            .at_manifest("s3://b", "m.json");
        assert!(err.to_string().contains("s3://b") && err.to_string().contains("m.json"));
    }
}
