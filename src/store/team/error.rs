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
    /// No answer: `reason` is what happened, in a few words (connection
    /// refused, DNS lookup failed, connection closed, TLS).
    Unreachable { url: String, reason: String },
    /// A listing that had begun (`listed` objects seen) ended because the
    /// server stopped answering (`reason` as for [`Self::Unreachable`]).
    Stopped {
        url: String,
        listed: usize,
        reason: String,
    },
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
                | TeamError::Stopped { .. }
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
            E::PermissionDenied { .. } => TeamError::Denied {
                url,
                status: Some(403),
            },
            E::Unauthenticated { .. } => TeamError::Denied {
                url,
                status: Some(401),
            },
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
/// (401, 403, 404 and 409 arrive as their own variants). The one place
/// where object_store's and reqwest's errors become a reason a user reads.
fn classify_generic(url: String, source: &(dyn std::error::Error + 'static)) -> TeamError {
    use object_store::client::HttpErrorKind as K;
    let mut kind = None;
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(source);
    while let Some(e) = cur {
        if let Some(http) = e.downcast_ref::<object_store::client::HttpError>() {
            kind = kind.or(Some(http.kind()));
        }
        cur = e.source();
    }
    // A list's errors arrive generic, their status only in the text of a
    // private retry error of object_store's.
    match status_in_text(source) {
        Some(status @ (401 | 403)) => {
            return TeamError::Denied {
                url,
                status: Some(status),
            }
        }
        Some(404) => return TeamError::NoBucket { url },
        _ => {}
    }
    let reason = connection_reason(source);
    match (kind, reason) {
        (_, Some(Reason::TimedOut)) | (Some(K::Timeout), _) => TeamError::Timeout { url },
        (_, Some(reason)) => TeamError::Unreachable {
            url,
            reason: reason.text().to_owned(),
        },
        (Some(K::Connect), None) => TeamError::Unreachable {
            url,
            reason: "cannot connect".to_owned(),
        },
        // The request went out and no answer came back whole.
        (Some(K::Request | K::Interrupted), None) => TeamError::Unreachable {
            url,
            reason: "no complete answer".to_owned(),
        },
        _ if mentions_no_bucket(source) => TeamError::NoBucket { url },
        (Some(K::Decode), None) => TeamError::Backend {
            url,
            kind: "an answer that cannot be decoded".to_owned(),
        },
        _ => TeamError::Backend {
            url,
            kind: "request failed".to_owned(),
        },
    }
}

/// The HTTP status a chain's text names ("non-2xx status code: 403 …"),
/// read for the number only.
fn status_in_text(source: &(dyn std::error::Error + 'static)) -> Option<u16> {
    const MARK: &str = "status code: ";
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(source);
    while let Some(e) = cur {
        let text = e.to_string();
        if let Some(at) = text.find(MARK) {
            let digits = text.get(at + MARK.len()..at + MARK.len() + 3)?;
            return digits.parse().ok();
        }
        cur = e.source();
    }
    None
}

/// Why a connection failed, as far as the source chain tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reason {
    Refused,
    Closed,
    TimedOut,
    Dns,
    Tls,
}

impl Reason {
    const fn text(self) -> &'static str {
        match self {
            Reason::Refused => "connection refused",
            Reason::Closed => "connection closed",
            Reason::TimedOut => "timed out",
            Reason::Dns => "DNS lookup failed",
            Reason::Tls => "TLS handshake failed",
        }
    }
}

/// Reads the chain for an I/O error's kind, else for the words hyper and
/// its resolver use (read for the kind only, never shown: a message may
/// carry a signed URL).
fn connection_reason(source: &(dyn std::error::Error + 'static)) -> Option<Reason> {
    use std::io::ErrorKind as Io;
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(source);
    while let Some(e) = cur {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            match io.kind() {
                Io::ConnectionRefused => return Some(Reason::Refused),
                Io::ConnectionReset
                | Io::ConnectionAborted
                | Io::BrokenPipe
                | Io::UnexpectedEof => return Some(Reason::Closed),
                Io::TimedOut => return Some(Reason::TimedOut),
                _ => {}
            }
        }
        let text = e.to_string().to_ascii_lowercase();
        if text.contains("connection refused") {
            return Some(Reason::Refused);
        }
        if text.contains("dns error") || text.contains("failed to lookup address") {
            return Some(Reason::Dns);
        }
        if text.contains("connection closed") || text.contains("connection reset") {
            return Some(Reason::Closed);
        }
        if text.contains("certificate") || text.contains("tls handshake") {
            return Some(Reason::Tls);
        }
        cur = e.source();
    }
    None
}

impl TeamError {
    /// This failure, met by a listing after `listed` objects had come:
    /// the server stopped answering mid-listing (a failure to connect at
    /// all, or any other, stays as it is).
    pub fn mid_listing(self, listed: usize) -> TeamError {
        match self {
            TeamError::Unreachable { url, reason } if listed > 0 => TeamError::Stopped {
                url,
                listed,
                reason,
            },
            TeamError::Timeout { url } if listed > 0 => TeamError::Stopped {
                url,
                listed,
                reason: "timed out".to_owned(),
            },
            other => other,
        }
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
            TeamError::Unreachable { reason, .. } => {
                write!(f, "the server cannot be reached ({reason})")
            }
            TeamError::Stopped { reason, .. } => {
                write!(f, "the server stopped answering while listing ({reason})")
            }
            TeamError::Timeout { .. } => {
                write!(f, "timed out (no complete answer within the time allowed)")
            }
            TeamError::NoBucket { .. } => {
                write!(f, "no such bucket or container (HTTP 404)")
            }
            TeamError::Denied { status, .. } => {
                write!(f, "bad credentials: access denied")?;
                match status {
                    Some(s) => write!(f, " (HTTP {s})"),
                    None => Ok(()),
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
            | TeamError::Unreachable { url, .. }
            | TeamError::Stopped { url, .. }
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

    fn generic(source: Box<dyn std::error::Error + Send + Sync>) -> object_store::Error {
        object_store::Error::Generic {
            store: "S3",
            source,
        }
    }

    #[test]
    fn connection_failures_say_what_happened_and_nothing_else() {
        let refused = std::io::Error::new(
            std::io::ErrorKind::ConnectionRefused,
            "tcp connect to http://k:SECRET@host failed",
        );
        let t = TeamError::from_store("s3://b/p", "", &generic(Box::new(refused)));
        assert_eq!(
            t.detail(),
            "the server cannot be reached (connection refused)"
        );
        assert!(!t.to_string().contains("SECRET"), "{t}");
        let dns = generic("error sending request: dns error: failed to lookup address".into());
        assert_eq!(
            TeamError::from_store("s3://b", "", &dns).detail(),
            "the server cannot be reached (DNS lookup failed)"
        );
        let cut = TeamError::from_store(
            "s3://team/many",
            "",
            &generic("connection closed before message completed".into()),
        )
        .mid_listing(1000);
        assert_eq!(
            cut.detail(),
            "the server stopped answering while listing (connection closed)"
        );
        assert!(cut.is_store_down());
        let listed = generic(
            "Error performing GET http://h/b?list-type=2 in 2ms - Server returned non-2xx status code: 403 Forbidden: <Code>SignatureDoesNotMatch</Code>".into(),
        );
        assert_eq!(
            TeamError::from_store("s3://b", "", &listed).detail(),
            "bad credentials: access denied (HTTP 403)"
        );
        let denied = object_store::Error::PermissionDenied {
            path: "x".into(),
            source: "signature of SECRET".into(),
        };
        let t = TeamError::from_store("s3://b", "", &denied);
        assert_eq!(t.detail(), "bad credentials: access denied (HTTP 403)");
        assert!(!t.to_string().contains("SECRET"));
        // A failure to connect at all is not a listing cut short.
        let at_once = TeamError::Unreachable {
            url: "s3://b".into(),
            reason: "connection refused".into(),
        };
        assert_eq!(at_once.clone().mid_listing(0), at_once);
    }
}
