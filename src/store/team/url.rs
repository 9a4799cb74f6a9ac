//! A team store's URL: `s3://BUCKET/PREFIX`, `gs://BUCKET/PREFIX`,
//! `az://CONTAINER/PREFIX` (or `azure://`), `file:///abs/path`.
//!
//! Parsed once, by hand and strictly: a URL that carries a user, a
//! password, a query or a fragment is refused, so what [`TeamUrl`] prints
//! (the URL as the user gave it) can never hold a credential.

use std::fmt;

use super::error::TeamError;

/// Which backend a team store speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scheme {
    S3,
    Gcs,
    Azure,
    File,
}

/// A parsed team store URL.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TeamUrl {
    pub scheme: Scheme,
    /// The bucket (S3, GCS) or container (Azure); empty for `file://`.
    pub bucket: String,
    /// The folder inside the bucket, without leading or trailing `/`; for
    /// `file://` the absolute path of the store's folder.
    pub prefix: String,
    /// The URL as the user gave it (for notes; never a credential).
    pub original: String,
}

impl TeamUrl {
    /// Parses `text` as a team store URL.
    pub fn parse(text: &str) -> Result<TeamUrl, TeamError> {
        let bad = |reason: &str| TeamError::BadUrl {
            // A refused URL may hold a secret (`s3://KEY:SECRET@…`): the
            // note names its scheme only.
            url: redacted(text),
            reason: reason.to_owned(),
        };
        let (scheme_text, rest) = text
            .split_once("://")
            .ok_or_else(|| bad("not a URL (expected s3://, gs://, az:// or file://)"))?;
        let scheme = match scheme_text.to_ascii_lowercase().as_str() {
            "s3" | "s3a" => Scheme::S3,
            "gs" => Scheme::Gcs,
            "az" | "azure" | "abfs" => Scheme::Azure,
            "file" => Scheme::File,
            _ => {
                return Err(bad(
                    "unknown scheme (expected s3://, gs://, az:// or file://)",
                ))
            }
        };
        if rest.contains(['?', '#']) {
            return Err(bad("a team store URL takes no query or fragment"));
        }
        if rest.chars().any(char::is_control) {
            return Err(bad("control character in the URL"));
        }
        if scheme == Scheme::File {
            return parse_file(rest, text).map_err(&bad);
        }
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        if bucket.contains('@') {
            return Err(bad(
                "credentials do not belong in the URL; use the environment",
            ));
        }
        if bucket.is_empty() {
            return Err(bad("no bucket named"));
        }
        if !bucket
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_'))
        {
            return Err(bad("the bucket name has characters no cloud allows"));
        }
        let prefix = clean_prefix(prefix).ok_or_else(|| bad("`.` or `..` in the prefix"))?;
        Ok(TeamUrl {
            scheme,
            bucket: bucket.to_owned(),
            prefix,
            original: text.to_owned(),
        })
    }

    /// Whether `text` names a team store (by its scheme), so the store list
    /// tells a URL from a folder before parsing it.
    pub fn looks_like(text: &str) -> bool {
        text.split_once("://").is_some_and(|(s, _)| {
            matches!(
                s.to_ascii_lowercase().as_str(),
                "s3" | "s3a" | "gs" | "az" | "azure" | "abfs" | "file"
            )
        })
    }
}

impl fmt::Display for TeamUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.original)
    }
}

/// `file:///abs/path` (or `file://localhost/abs/path`).
fn parse_file(rest: &str, original: &str) -> Result<TeamUrl, &'static str> {
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    if !path.starts_with('/') {
        return Err("a file:// store needs an absolute path (file:///…)");
    }
    if path.contains('%') {
        // No percent-decoding: a path is taken as written.
        return Err("percent escapes in a file:// URL are not supported");
    }
    let inner = clean_prefix(path).ok_or("`.` or `..` in the path")?;
    Ok(TeamUrl {
        scheme: Scheme::File,
        bucket: String::new(),
        prefix: format!("/{inner}"),
        original: original.to_owned(),
    })
}

/// The prefix without empty parts; `None` with a `.` or `..` part.
fn clean_prefix(prefix: &str) -> Option<String> {
    let parts: Vec<&str> = prefix.split('/').filter(|p| !p.is_empty()).collect();
    if parts.iter().any(|p| *p == "." || *p == "..") {
        return None;
    }
    Some(parts.join("/"))
}

/// A URL that failed to parse, shown without anything after its scheme's
/// `://` when it may carry a user or password.
fn redacted(text: &str) -> String {
    match text.split_once("://") {
        Some((scheme, rest)) if rest.contains('@') => format!("{scheme}://…"),
        _ => text.chars().filter(|c| !c.is_control()).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_scheme_parses_into_bucket_and_prefix() {
        let u = TeamUrl::parse("s3://team-bucket/sessions/a/").unwrap();
        assert_eq!((u.scheme, u.bucket.as_str()), (Scheme::S3, "team-bucket"));
        assert_eq!(u.prefix, "sessions/a");
        assert_eq!(u.to_string(), "s3://team-bucket/sessions/a/");
        assert_eq!(TeamUrl::parse("gs://b").unwrap().scheme, Scheme::Gcs);
        assert_eq!(TeamUrl::parse("gs://b").unwrap().prefix, "");
        assert_eq!(TeamUrl::parse("az://c/p").unwrap().scheme, Scheme::Azure);
        assert_eq!(TeamUrl::parse("azure://c/p").unwrap().bucket, "c");
        let f = TeamUrl::parse("file:///tmp/team//x/").unwrap();
        assert_eq!((f.scheme, f.prefix.as_str()), (Scheme::File, "/tmp/team/x"));
        assert_eq!(TeamUrl::parse("file:///").unwrap().prefix, "/");
    }

    #[test]
    fn a_url_with_credentials_is_refused_without_echoing_them() {
        let err = TeamUrl::parse("s3://AKIAX:hunter2@bucket/p").unwrap_err();
        let text = err.to_string();
        assert!(
            !text.contains("hunter2") && !text.contains("AKIAX"),
            "{text}"
        );
    }

    #[test]
    fn malformed_urls_are_refused() {
        for bad in [
            "bucket/p",
            "http://x/y",
            "s3:///p",
            "s3://b/p?x=1",
            "s3://b/../p",
            "file://relative/p",
            "s3://b k/p",
        ] {
            assert!(TeamUrl::parse(bad).is_err(), "{bad}");
        }
        assert!(TeamUrl::looks_like("S3://b") && !TeamUrl::looks_like("/home/x"));
    }
}
