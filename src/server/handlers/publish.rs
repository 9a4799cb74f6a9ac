//! `sessionReference/publish`: the editors' "Publish Session to Team
//! Store" — the sessions of the request's view published as the CLI's
//! `publish` does ([`crate::publish`]), on the blocking pool.

use serde_json::json;

use super::blocking;
use crate::proto::ext::{PublishedSession, SecretFinding};
use crate::publish::{self, PublishError, PublishRequest, Sessions};
use crate::server::error::{self, Result, REQUEST_FAILED};
use crate::server::lsp_ext::{self, Request};
use crate::server::request_view::RequestView;

pub async fn publish(
    request: &RequestView,
    params: <lsp_ext::Publish as Request>::Params,
) -> Result<<lsp_ext::Publish as Request>::Result> {
    if params.sessions.is_empty() {
        return Err(error::invalid_params("sessions: name at least one session"));
    }
    let view = request.sessions().await;
    let publisher = params
        .publisher
        .or_else(|| request.settings.publisher.clone())
        .or_else(publish::login_name)
        .unwrap_or_default();
    let published = blocking("publish", move |_cancelled| {
        let Some(reader) = view.reader.clone() else {
            return Err(PublishError::Reference(
                crate::reference::ReferenceError::invalid_config(
                    "the stores are not indexed yet: try again in a moment",
                ),
            ));
        };
        let sessions = Sessions {
            get: &|id| view.get(id),
            reader: reader.as_ref(),
        };
        publish::publish(
            &sessions,
            &PublishRequest {
                to: &params.to,
                sessions: &params.sessions,
                publisher: &publisher,
                allow_secret: &params.allow_secret,
                now_ms: publish::now_ms(),
            },
        )
    })
    .await?;
    if published.is_ok() {
        // The team stores list again now: what was published is then
        // listed (and mentionable) without waiting for the next poll.
        request.refresh_stores();
    }
    match published {
        Ok(published) => Ok(published.into_iter().map(PublishedSession::from).collect()),
        Err(e) => Err(refused(&e)),
    }
}

/// RequestFailed with the stable code, and the findings of a secret.
fn refused(e: &PublishError) -> lsp_server::ResponseError {
    let findings: Vec<SecretFinding> = e.findings().iter().map(SecretFinding::from).collect();
    let mut data = json!({ "code": e.code() });
    if !findings.is_empty() {
        data["findings"] = json!(findings);
    }
    lsp_server::ResponseError {
        code: REQUEST_FAILED,
        message: e.to_string(),
        data: Some(data),
    }
}
