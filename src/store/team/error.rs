//! What can go wrong with a team store, typed. Every message names the
//! store's URL (as the user gave it) and never a credential: the detail of
//! a backend error is reduced to its kind and HTTP status, because a
//! response body or a signed request may echo what it was sent.

use std::fmt;

/// A team store failure. Reading a session maps it to
/// `SESSION_REFERENCE_READ_FAILED`; listing turns it into a store note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TeamError {
    /// The URL does not name a team store.
    BadUrl { url: String, reason: String },
    /// The client could not be built (an unusable setting in the
    /// environment: a bad region, endpoint or key format).
    Config { url: String, reason: String },
    /// No answer: connection refused, DNS, TLS.
    Unreachable { url: String },
    /// No answer in time.
    Timeout { url: String },
    /// The bucket or container does not exist.
    NoBucket { url: String },
    /// Credentials missing, wrong or not allowed to do this.
    Denied { url: String, status: Option<u16> },
    /// An object the layout expects is absent.
    NotFound { url: String, path: String },
    /// A conditional write lost (the object exists or changed).
    Conflict { url: String, path: String },
    /// A manifest that is not one (`path` inside the store).
    BadManifest {
        url: String,
        path: String,
        reason: String,
    },
    /// Bytes whose SHA-256 is not the one asked for.
    HashMismatch { url: String, sha256: String },
    /// An object larger than the program reads.
    TooLarge {
        url: String,
        path: String,
        limit: u64,
    },
    /// Any other failure of the backend, by kind only.
    Backend { url: String, kind: String },
}

impl TeamError {
    /// The stable code a failed read reports.
    pub const fn code(&self) -> &'static str {
        match self {
            TeamError::BadUrl { .. } | TeamError::Config { .. } => {
                "SESSION_REFERENCE_INVALID_CONFIG"
            }
            _ => "SESSION_REFERENCE_READ_FAILED",
        }
    }

    /// Whether this says the store cannot be reached at all (a note for the
    /// whole store rather than for one object).
    pub const fn is_store_down(&self) -> bool {
        matches!(
            self,
            TeamError::Unreachable { .. }
                | TeamError::Timeout { .. }
                | TeamError::NoBucket { .. }
                | TeamError::Denied { .. }
                | TeamError::Config { .. }
        )
    }

    /// Maps a backend error on `path` of the store at `url`.
    pub fn from_store(url: &str, path: &str, err: &object_store::Error) -> TeamError {
        use object_store::Error as E;
        let url = url.to_owned();
        let path = path.to_owned();
        match err {
            E::NotFound { source, .. } => {
                if mentions_no_bucket(source.as_ref()) {
                    TeamError::NoBucket { url }
                } else {
                    TeamError::NotFound { url, path }
                }
            }
            E::AlreadyExists { .. } | E::Precondition { .. } => TeamError::Conflict { url, path },
            E::PermissionDenied { .. } | E::Unauthenticated { .. } => {
                TeamError::Denied { url, status: None }
            }
            E::Generic { source, .. } => classify_generic(url, source.as_ref()),
            E::NotSupported { .. } | E::NotImplemented { .. } => TeamError::Backend {
                url,
                kind: "not supported by this backend".to_owned(),
            },
            E::InvalidPath { .. } => TeamError::Backend {
                url,
                kind: "invalid path".to_owned(),
            },
            _ => TeamError::Backend {
                url,
                kind: "error".to_owned(),
            },
        }
    }
}

/// A backend's generic error, by the HTTP error kind in its source chain
/// (401, 403, 404 and 409 arrive as their own variants).
fn classify_generic(url: String, source: &(dyn std::error::Error + 'static)) -> TeamError {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(source);
    while let Some(e) = cur {
        if let Some(http) = e.downcast_ref::<object_store::client::HttpError>() {
            use object_store::client::HttpErrorKind as K;
            match http.kind() {
                K::Timeout => return TeamError::Timeout { url },
                K::Connect => return TeamError::Unreachable { url },
                _ => {}
            }
        }
        cur = e.source();
    }
    if mentions_no_bucket(source) {
        return TeamError::NoBucket { url };
    }
    TeamError::Backend {
        url,
        kind: "request failed".to_owned(),
    }
}

/// Whether an error's text says the bucket itself is absent (S3's
/// `NoSuchBucket`, Azure's `ContainerNotFound`, GCS's "bucket does not
/// exist"): read for its kind, never shown.
fn mentions_no_bucket(source: &(dyn std::error::Error + 'static)) -> bool {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(source);
    while let Some(e) = cur {
        let text = e.to_string();
        if text.contains("NoSuchBucket")
            || text.contains("ContainerNotFound")
            || text.contains("bucket does not exist")
        {
            return true;
        }
        cur = e.source();
    }
    false
}

impl TeamError {
    /// The message without the store's URL (for a note that names the
    /// store already).
    pub fn detail(&self) -> String {
        struct Detail<'a>(&'a TeamError);
        impl fmt::Display for Detail<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.write_detail(f)
            }
        }
        Detail(self).to_string()
    }

    fn write_detail(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TeamError::BadUrl { reason, .. } => write!(f, "{reason}"),
            TeamError::Config { reason, .. } => {
                write!(f, "cannot configure the client: {reason}")
            }
            TeamError::Unreachable { .. } => write!(f, "cannot connect"),
            TeamError::Timeout { .. } => write!(f, "no answer in time"),
            TeamError::NoBucket { .. } => {
                write!(f, "the bucket or container does not exist")
            }
            TeamError::Denied { status, .. } => {
                write!(f, "access denied (check the credentials")?;
                match status {
                    Some(s) => write!(f, "; HTTP {s})"),
                    None => f.write_str(")"),
                }
            }
            TeamError::NotFound { path, .. } => write!(f, "{path} is absent"),
            TeamError::Conflict { path, .. } => {
                write!(f, "{path} changed or exists already")
            }
            TeamError::BadManifest { path, reason, .. } => {
                write!(f, "{path} is not a manifest: {reason}")
            }
            TeamError::HashMismatch { sha256, .. } => write!(
                f,
                "the bytes of snapshot sha256:{sha256} do not have that hash"
            ),
            TeamError::TooLarge { path, limit, .. } => {
                write!(f, "{path} is larger than {limit} bytes")
            }
            TeamError::Backend { kind, .. } => write!(f, "{kind}"),
        }
    }
}

impl fmt::Display for TeamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "team store {}: ", self.url())?;
        self.write_detail(f)
    }
}

impl TeamError {
    /// The store's URL the error names.
    pub fn url(&self) -> &str {
        match self {
            TeamError::BadUrl { url, .. }
            | TeamError::Config { url, .. }
            | TeamError::Unreachable { url }
            | TeamError::Timeout { url }
            | TeamError::NoBucket { url }
            | TeamError::Denied { url, .. }
            | TeamError::NotFound { url, .. }
            | TeamError::Conflict { url, .. }
            | TeamError::BadManifest { url, .. }
            | TeamError::HashMismatch { url, .. }
            | TeamError::TooLarge { url, .. }
            | TeamError::Backend { url, .. } => url,
        }
    }
}

impl std::error::Error for TeamError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backend_errors_keep_their_kind_and_the_url_only() {
        let err = object_store::Error::NotFound {
            path: "x".into(),
            source: "secret-body NoSuchKey".into(),
        };
        let t = TeamError::from_store("s3://b/p", "sessions/x", &err);
        assert_eq!(
            t,
            TeamError::NotFound {
                url: "s3://b/p".into(),
                path: "sessions/x".into()
            }
        );
        assert!(!t.to_string().contains("secret-body"));
        let gone = object_store::Error::NotFound {
            path: "x".into(),
            source: "<Code>NoSuchBucket</Code>".into(),
        };
        assert!(TeamError::from_store("s3://b", "", &gone).is_store_down());
        assert_eq!(t.code(), "SESSION_REFERENCE_READ_FAILED");
    }
}
