//! Noticing `exit` as soon as it is handled.
//!
//! tower-lsp 0.20 marks the service exited on `exit` but only stops reading
//! when the next message arrives, so a client that keeps stdin open would
//! keep the server alive. This wrapper signals a `Notify` once the `exit`
//! notification has gone through the service; `serve` races on it.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use tokio::sync::Notify;
use tower_lsp::jsonrpc::{Request, Response};
use tower_lsp::ExitedError;
use tower_service::Service;

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

pub struct ExitWatch<S> {
    inner: S,
    exited: Arc<Notify>,
}

/// Wraps `service`; the `Notify` fires once `exit` has been handled.
pub fn watch<S>(service: S) -> (ExitWatch<S>, Arc<Notify>) {
    let exited = Arc::new(Notify::new());
    (
        ExitWatch {
            inner: service,
            exited: exited.clone(),
        },
        exited,
    )
}

impl<S> Service<Request> for ExitWatch<S>
where
    S: Service<Request, Response = Option<Response>, Error = ExitedError>,
    S::Future: Send + 'static,
{
    type Response = Option<Response>;
    type Error = ExitedError;
    type Future = BoxFuture<Result<Option<Response>, ExitedError>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let is_exit = request.method() == "exit";
        let future = self.inner.call(request);
        if !is_exit {
            return Box::pin(future);
        }
        let exited = self.exited.clone();
        Box::pin(async move {
            let result = future.await;
            // `notify_one` keeps a permit, so the signal is not lost even
            // if nobody waits yet.
            exited.notify_one();
            result
        })
    }
}
