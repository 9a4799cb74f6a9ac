//! The command line: the same core as the server, one JSON document out.

mod args;
mod check;
mod input;
mod settings;

use std::io::Write;

use clap::Parser;
use serde::Serialize;

use crate::model::SessionStore;
use crate::reference::candidates::{self, Target};
use crate::reference::prepare::{prepare_text, PrepareOptions};
use crate::reference::{mention, uri, ReferenceError};
use crate::store::Scan;
use args::{Cli, Command, UriCommand};

/// Exit statuses.
pub const OK: i32 = 0;
pub const FAILED: i32 = 1;
pub const USAGE: i32 = 2;

/// A command's outcome: a session-reference failure (JSON, exit 1) or a
/// usage mistake (stderr, exit 2).
pub enum Failure {
    Reference(ReferenceError),
    Usage(String),
}

impl From<ReferenceError> for Failure {
    fn from(e: ReferenceError) -> Self {
        Failure::Reference(e)
    }
}

/// What the process was asked to do.
pub enum Invocation {
    /// Run the language server (no subcommand, `--stdio` or `lsp`).
    Server,
    /// A subcommand, already run: its exit status.
    Done(i32),
}

/// Parses the command line and runs a subcommand; the server is the
/// caller's to start (the CLI does not depend on it).
pub fn main() -> Invocation {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return Invocation::Done(if e.use_stderr() { USAGE } else { OK });
        }
    };
    match cli.command {
        None | Some(Command::Lsp) => Invocation::Server,
        Some(command) => Invocation::Done(run_command(command)),
    }
}

fn run_command(command: Command) -> i32 {
    match run(command) {
        Ok(status) => status,
        Err(Failure::Usage(message)) => {
            eprintln!("hydra-session-lsp: {message}");
            USAGE
        }
        Err(Failure::Reference(error)) => {
            print_json(&ErrorOutput::from(&error));
            FAILED
        }
    }
}

fn run(command: Command) -> Result<i32, Failure> {
    match command {
        Command::Lsp => Ok(OK),
        Command::Uri(UriCommand::Encode { id }) => print_ok(&uri::encode(&id)),
        Command::Uri(UriCommand::Decode { uri: text }) => print_ok(&uri::decode_reference(&text)?),
        Command::Parse { file } => {
            let text = input::read_text(file.as_deref())?;
            let parsed = mention::parse(&text)?;
            print_ok(&ParseOutput {
                text: &parsed.text,
                references: parsed
                    .references
                    .iter()
                    .map(|r| ReferenceOutput {
                        session_id: &r.session_id,
                        label: &r.label,
                    })
                    .collect(),
            })
        }
        Command::Candidates {
            store,
            query,
            limit,
            cwd,
        } => {
            let settings = settings::resolve(&store)?;
            let limit = limit.map_or(settings.limits.candidate_limit as u64, |d| d.0);
            candidates::check_limit(limit)?;
            let store = settings.open_store(Scan::Full);
            let target_cwd = match cwd {
                Some(cwd) => Some(cwd),
                None => match settings.self_id.as_deref().and_then(|id| store.get(id)) {
                    Some(session) => session.header.cwd,
                    None => std::env::current_dir()
                        .ok()
                        .map(|d| d.to_string_lossy().into_owned()),
                },
            };
            let target = Target {
                session_id: settings.self_id.as_deref(),
                cwd: target_cwd.as_deref(),
            };
            // Only the sessions that can make the list are kept.
            let mut preselect = candidates::Preselect::new(target, &query, limit)?;
            store.for_each_session(&mut |s| preselect.offer(s));
            let list = candidates::candidates(&preselect.finish(), target, &query, limit)?;
            // The process ends next: freeing a large index one block at a
            // time is wasted work.
            std::mem::forget(store);
            print_ok(&list.items)
        }
        Command::Prepare { store, file, .. } => {
            let settings = settings::resolve(&store)?;
            let text = input::read_text(file.as_deref())?;
            let store = settings.open_store(Scan::HeadersOnly);
            let options = PrepareOptions {
                target: settings.self_id.as_deref(),
                max_references: settings.limits.max_references,
                max_reference_bytes: settings.limits.max_reference_bytes,
            };
            print_ok(&prepare_text(&text, options, &store, &|| false)?)
        }
        Command::Check {
            store,
            format,
            files,
            ..
        } => {
            let settings = settings::resolve(&store)?;
            check::run(&settings, &files, format)
        }
    }
}

#[derive(Serialize)]
struct ParseOutput<'a> {
    text: &'a str,
    references: Vec<ReferenceOutput<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ReferenceOutput<'a> {
    session_id: &'a str,
    label: &'a str,
}

#[derive(Serialize)]
struct ErrorOutput<'a> {
    error: ErrorBody<'a>,
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    code: &'static str,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    canonical: Option<&'a str>,
}

impl<'a> From<&'a ReferenceError> for ErrorOutput<'a> {
    fn from(e: &'a ReferenceError) -> Self {
        ErrorOutput {
            error: ErrorBody {
                code: e.code.as_str(),
                message: &e.message,
                canonical: e.canonical.as_deref(),
            },
        }
    }
}

fn print_ok(value: &impl Serialize) -> Result<i32, Failure> {
    print_json(value);
    Ok(OK)
}

fn print_json(value: &impl Serialize) {
    let mut out = std::io::stdout().lock();
    // A closed stdout (a pipe to `head`) is not worth a panic.
    if serde_json::to_writer(&mut out, value).is_ok() {
        let _ = writeln!(out);
    }
}
