//! `publish --to URL SESSION…`: the sessions' snapshots to a team store,
//! their pinned mentions out (a JSON array, or `--format mention`: one a
//! line). A refusal is one JSON error on stdout and exit 1.

use serde::Serialize;

use super::args::Format;
use super::settings::Settings;
use super::{print_json, print_text, FAILED, OK};
use crate::model::SessionStore;
use crate::proto::ext::{PublishedSession, SecretFinding};
use crate::publish::{self, PublishError, PublishRequest, Sessions};
use crate::store::Scan;

/// Runs `publish`; the exit status.
pub fn run(
    settings: &Settings,
    to: &str,
    publisher: Option<String>,
    allow_secret: &[String],
    sessions: &[String],
) -> i32 {
    let publisher = publisher.or_else(publish::login_name).unwrap_or_default();
    let store = settings.open_store(Scan::HeadersOnly);
    let request = PublishRequest {
        to,
        sessions,
        publisher: &publisher,
        allow_secret,
        now_ms: publish::now_ms(),
    };
    let reader = store.reader();
    let sessions = Sessions {
        get: &|id| store.get(id),
        reader: reader.as_ref(),
    };
    match publish::publish(&sessions, &request) {
        Ok(published) => {
            if settings.output == Some(Format::Mention) {
                let lines: String = published.iter().map(|p| p.mention.clone() + "\n").collect();
                print_text(&lines);
            } else {
                let out: Vec<PublishedSession> =
                    published.into_iter().map(PublishedSession::from).collect();
                print_json(&out);
            }
            OK
        }
        Err(e) => {
            print_json(&refusal(&e));
            FAILED
        }
    }
}

#[derive(Serialize)]
struct Refusal {
    error: RefusalBody,
}

#[derive(Serialize)]
struct RefusalBody {
    code: &'static str,
    message: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    findings: Vec<SecretFinding>,
}

fn refusal(e: &PublishError) -> Refusal {
    Refusal {
        error: RefusalBody {
            code: e.code(),
            message: e.to_string(),
            findings: e.findings().iter().map(SecretFinding::from).collect(),
        },
    }
}
