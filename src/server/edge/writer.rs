//! The writer thread: writes what the server sends, in order, each message
//! framed once. Its channel is bounded (see the module above).

use std::io::{BufWriter, Write};
use std::time::Duration;

use crossbeam_channel::{Receiver, Sender};
use serde_json::json;

use super::frame::frame;
use super::Outgoing;

/// The running writer: stop it with [`Writer::finish`].
pub struct Writer {
    stop: Sender<()>,
    done: Receiver<()>,
}

impl Writer {
    /// Writes what arrives on `outbox` to `output` on a thread of its own.
    pub fn spawn(
        output: impl Write + Send + 'static,
        outbox: Receiver<Outgoing>,
    ) -> std::io::Result<Writer> {
        let (stop, stopped) = crossbeam_channel::bounded(1);
        let (finished, done) = crossbeam_channel::bounded(1);
        std::thread::Builder::new()
            .name("lsp-writer".to_string())
            .spawn(move || {
                write_messages(output, &outbox, &stopped);
                let _ = finished.send(());
            })?;
        Ok(Writer { stop, done })
    }

    /// Writes what is queued now, then stops; waits at most `grace` (a
    /// client that does not read must not keep the process alive).
    pub fn finish(self, grace: Duration) {
        let _ = self.stop.send(());
        let _ = self.done.recv_timeout(grace);
    }
}

fn write_messages(output: impl Write, outbox: &Receiver<Outgoing>, stop: &Receiver<()>) {
    let mut output = BufWriter::with_capacity(1 << 16, output);
    let mut broken = false;
    loop {
        crossbeam_channel::select! {
            recv(outbox) -> next => match next {
                Ok(message) => write_one(&mut output, message, &mut broken),
                Err(_) => return,
            },
            recv(stop) -> _ => {
                while let Ok(message) = outbox.try_recv() {
                    write_one(&mut output, message, &mut broken);
                }
                return;
            }
        }
    }
}

/// Writes one message; once the client is gone, messages are dropped (so
/// nobody waits for room that will never come).
fn write_one(output: &mut impl Write, message: Outgoing, broken: &mut bool) {
    if *broken {
        return;
    }
    let written = match message {
        Outgoing::Message(message) => message.write(output),
        Outgoing::ErrorWithoutId(error) => {
            let body = json!({"jsonrpc": "2.0", "id": null, "error": error}).to_string();
            output
                .write_all(&frame(body.as_bytes()))
                .and_then(|()| output.flush())
        }
    };
    if let Err(e) = written {
        tracing::debug!("cannot write to the client: {e}");
        *broken = true;
    }
}
