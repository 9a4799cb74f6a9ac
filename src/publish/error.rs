//! Why a publish did not happen, typed. Nothing in a message is a secret:
//! findings name a session, a turn and a kind; store errors are the team
//! store's own (the URL as given, never a credential).

use std::fmt;

use super::secrets::Finding;
use crate::reference::{ErrorCode, ReferenceError};
use crate::store::team::TeamError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PublishError {
    /// A bad argument, an unknown session, a session that cannot be read.
    Reference(ReferenceError),
    /// Credentials in what would be published; nothing was uploaded.
    Secret { findings: Vec<Finding> },
    /// The store failed.
    Team(TeamError),
    /// The store lets a failed precondition through: publishing to it
    /// could lose another publisher's version.
    NoPreconditions { url: String },
    /// A manifest's compare-and-swap lost every one of its attempts.
    Contended { url: String, path: String },
}

impl PublishError {
    /// The stable code the faces report.
    pub fn code(&self) -> &'static str {
        match self {
            PublishError::Reference(e) => e.code.as_str(),
            PublishError::Secret { .. } => "SESSION_REFERENCE_SECRET",
            PublishError::Team(e) => e.code(),
            PublishError::NoPreconditions { .. } | PublishError::Contended { .. } => {
                ErrorCode::ReadFailed.as_str()
            }
        }
    }

    /// The findings of a refused publish (empty otherwise).
    pub fn findings(&self) -> &[Finding] {
        match self {
            PublishError::Secret { findings } => findings,
            _ => &[],
        }
    }
}

impl fmt::Display for PublishError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PublishError::Reference(e) => f.write_str(&e.message),
            PublishError::Secret { findings } => {
                let mut kinds: Vec<&str> = findings.iter().map(|f| f.kind).collect();
                kinds.sort_unstable();
                kinds.dedup();
                write!(
                    f,
                    "nothing was published: credentials found ({}); remove them, or pass \
                     --allow-secret KIND for each kind that is not a secret",
                    kinds.join(", ")
                )
            }
            PublishError::Team(e) => write!(f, "{e}"),
            PublishError::NoPreconditions { url } => write!(
                f,
                "team store {url} ignores write preconditions (If-None-Match / If-Match): \
                 publishing there could lose a teammate's version, so nothing was published \
                 (SeaweedFS before 3.97 and some S3-compatible servers do this)"
            ),
            PublishError::Contended { url, path } => write!(
                f,
                "team store {url}: the manifest {path} kept changing under every attempt to \
                 append to it; nothing was lost, try again"
            ),
        }
    }
}

impl From<TeamError> for PublishError {
    fn from(e: TeamError) -> Self {
        PublishError::Team(e)
    }
}

impl From<ReferenceError> for PublishError {
    fn from(e: ReferenceError) -> Self {
        PublishError::Reference(e)
    }
}
