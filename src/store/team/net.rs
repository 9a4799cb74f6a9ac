//! Where a team store's requests run: one small tokio runtime of the
//! store's own, so a caller on any thread (a blocking-pool thread of the
//! language server, the CLI's main thread) waits for a request without
//! entering a runtime, and every wait is bounded.

use std::future::Future;
use std::sync::OnceLock;
use std::time::Duration;

use super::error::TeamError;

/// All of one listing or one fetch: under the 10 s the issue allows for a
/// store that does not answer.
pub const WHOLE_TIMEOUT: Duration = Duration::from_secs(8);

fn runtime() -> Option<&'static tokio::runtime::Runtime> {
    static RT: OnceLock<Option<tokio::runtime::Runtime>> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("team-store")
            .enable_all()
            .build()
            .ok()
    })
    .as_ref()
}

/// Runs `work` on the store's runtime and waits at most `limit` for it;
/// past the limit the work is dropped (its requests cancelled) and the
/// answer is [`TeamError::Timeout`] for `url`.
pub fn run<T, F>(url: &str, limit: Duration, work: F) -> Result<T, TeamError>
where
    T: Send + 'static,
    F: Future<Output = Result<T, TeamError>> + Send + 'static,
{
    let timeout = || TeamError::Timeout {
        url: url.to_owned(),
    };
    let rt = runtime().ok_or_else(|| TeamError::Backend {
        url: url.to_owned(),
        kind: "no runtime for network work".to_owned(),
    })?;
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    rt.spawn(async move {
        let answer = tokio::time::timeout(limit, work).await;
        let _ = tx.send(answer);
    });
    // The runtime's own timer ends the work; this wait is the backstop
    // when that runtime is starved.
    match rx.recv_timeout(limit + Duration::from_secs(1)) {
        Ok(Ok(answer)) => answer,
        Ok(Err(_)) | Err(_) => Err(timeout()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_is_answered_or_timed_out() {
        assert_eq!(run("u", WHOLE_TIMEOUT, async { Ok(3) }), Ok(3));
        let never = run::<(), _>("s3://b", Duration::from_millis(50), std::future::pending());
        assert_eq!(
            never,
            Err(TeamError::Timeout {
                url: "s3://b".into()
            })
        );
    }
}
