//! The command line: the same core as the server, one JSON document out.

mod args;
mod check;
mod hook;
mod input;
mod publish;
mod search;
mod settings;
mod terminal;

use std::io::{IsTerminal, Write};

use serde::Serialize;

use crate::model::{SessionStore, Status};
use crate::proto::ext;
use crate::reference::candidates::{self, Target};
use crate::reference::full_snapshot::SpillStore;
use crate::reference::prepare::{prepare_text, PrepareOptions};
use crate::reference::{mention, uri, ReferenceError};
use crate::store::Scan;
use args::{Cli, Command, Format, HookCommand, UriCommand};

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
    /// Run the language server (no subcommand, `--stdio` or `lsp`);
    /// `lsp --no-search-index` keeps no full-text index.
    Server { no_search_index: bool },
    /// Run the MCP server (`mcp`), with its flags.
    Mcp(crate::config::mcp::McpRequest),
    /// A subcommand, already run: its exit status.
    Done(i32),
}

/// Parses the command line and runs a subcommand; the server is the
/// caller's to start (the CLI does not depend on it).
pub fn main() -> Invocation {
    let cli = match Cli::parse_args() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            // Claude Code reads exit 2 from a prompt hook as "block this
            // prompt": a hook's usage mistake must not block every prompt.
            let usage = if is_hook() { FAILED } else { USAGE };
            return Invocation::Done(if e.use_stderr() { usage } else { OK });
        }
    };
    match cli.command {
        None if !cli.stdio && std::io::stdin().is_terminal() => {
            // Run by hand in a terminal: say what this is rather than wait
            // in silence (on stderr; stdout is the protocol channel).
            eprintln!(
                "hydra-session-lsp: a language server, waiting for LSP messages on stdin \
                 (see `hydra-session-lsp --help` for the command line)"
            );
            Invocation::Server {
                no_search_index: false,
            }
        }
        None => Invocation::Server {
            no_search_index: false,
        },
        Some(Command::Lsp { index }) => Invocation::Server {
            no_search_index: index.no_search_index,
        },
        Some(Command::Mcp {
            store,
            spill,
            limit,
            index,
            print_config,
            protocol,
        }) => {
            if print_config.is_some() {
                if let Err(message) = settings::printable_paths(&store, &spill) {
                    eprintln!("hydra-session-lsp mcp: {message}");
                    return Invocation::Done(USAGE);
                }
            }
            Invocation::Mcp(crate::config::mcp::McpRequest {
                settings: settings::requested(&store),
                spill: settings::spill_requested(&spill),
                limit: limit.map(|d| d.0),
                print_config,
                no_search_index: index.no_search_index,
                protocol,
            })
        }
        Some(command) => Invocation::Done(run_command(command)),
    }
}

/// Whether the first word that is not an option is `hook`.
fn is_hook() -> bool {
    std::env::args_os()
        .skip(1)
        .find(|a| !a.as_encoded_bytes().starts_with(b"-"))
        .is_some_and(|a| a == "hook")
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
        Command::Lsp { .. } | Command::Mcp { .. } => Ok(OK),
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
            let target_cwd = workspace(&settings, &store, cwd);
            let target = Target {
                session_id: settings.self_id.as_deref(),
                cwd: target_cwd.as_deref(),
            };
            // Only the sessions that can make the list are kept.
            let mut preselect = crate::reference::preselect::Preselect::new(target, &query, limit)?;
            store.offer_sessions(&mut preselect);
            let list = preselect.finish().candidates(target, &query, limit)?;
            // The process ends next: freeing a large index one block at a
            // time is wasted work.
            std::mem::forget(store);
            if settings.output == Some(Format::Mention) {
                // One line per session, whatever its title holds (line
                // breaks, terminal controls, bidi overrides): the one-line
                // rule, which `parse` reads back to the same id.
                let lines: String = list
                    .items
                    .iter()
                    .map(|c| c.one_line_mention() + "\n")
                    .collect();
                print_text(&lines);
                return Ok(OK);
            }
            print_ok(&ext::candidates(list.items))
        }
        Command::Prepare {
            store, file, spill, ..
        } => {
            let settings = settings::resolve(&store)?;
            let spill = settings::spill_for(&settings, &spill)?;
            let text = input::read_text(file.as_deref())?;
            let store = settings.open_store(Scan::HeadersOnly);
            let options = PrepareOptions {
                target: settings.self_id.as_deref(),
                max_references: settings.limits.max_references,
                max_reference_bytes: settings.limits.max_reference_bytes,
            };
            let spill = spill.as_ref().map(|s| s as &dyn SpillStore);
            let prepared = prepare_text(&text, options, &store, spill, &|| false)?;
            if settings.output == Some(Format::Text) {
                print_text(&prepared.text_form());
                return Ok(OK);
            }
            print_ok(&ext::Prepared::from(prepared))
        }
        Command::Files { query, limit, cwd } => {
            let limit = limit.map_or(crate::reference::settings::DEFAULT_CANDIDATE_LIMIT, |d| d.0);
            let cwd = cwd.unwrap_or_else(crate::config::paths::current_dir);
            let list = crate::files::candidates(Some(&cwd), &query, limit)?;
            // A cut list says so (stdout stays the JSON array).
            if list.folder_cut {
                eprintln!(
                    "hydra-session-lsp: note: the list is cut: the folder was read only in part \
                     (too large); type more of the name to narrow it"
                );
            } else if list.incomplete {
                eprintln!(
                    "hydra-session-lsp: note: the list is cut at --limit {limit}: more files match"
                );
            }
            print_ok(&ext::file_candidates(list.items))
        }
        Command::Check {
            store,
            deny,
            files,
            cwd,
        } => {
            let settings = settings::resolve(&store)?;
            let cwd = cwd.unwrap_or_else(crate::config::paths::current_dir);
            check::run(
                &settings,
                &files,
                &cwd,
                settings.output.unwrap_or(Format::Text),
                deny,
            )
        }
        Command::Status { store, index } => {
            let settings = settings::resolve(&store)?;
            let store = settings.index(Scan::Full);
            let sessions = store.sessions();
            let mut status = ext::Status::from(Status::new(
                store.status(),
                sessions.len(),
                false,
                &store.status_notes(),
            ));
            let search = search::status(&settings, &store, &sessions, index.no_search_index);
            status.search = Some(search.into());
            if terminal::for_a_person(settings.output) {
                print_text(&terminal::status(&status));
                return Ok(OK);
            }
            print_ok(&status)
        }
        Command::Search {
            store,
            limit,
            cwd,
            index,
            query,
        } => {
            let settings = settings::resolve(&store)?;
            search::run(
                &settings,
                &query,
                limit.map(|d| d.0),
                cwd,
                index.no_search_index,
            )
        }
        Command::Publish {
            store,
            to,
            publisher,
            allow_secret,
            sessions,
        } => {
            let settings = settings::resolve(&store)?;
            Ok(publish::run(
                &settings,
                &to,
                publisher,
                &allow_secret,
                &sessions,
            ))
        }
        Command::Hook(command) => {
            let (host, store, print_config) = match command {
                HookCommand::ClaudeCode {
                    store,
                    print_config,
                } => (hook::Host::ClaudeCode, store, print_config),
                HookCommand::Codex {
                    store,
                    print_config,
                } => (hook::Host::Codex, store, print_config),
                HookCommand::Qwen {
                    store,
                    print_config,
                } => (hook::Host::Qwen, store, print_config),
                HookCommand::Gemini {
                    store,
                    print_config,
                } => (hook::Host::Gemini, store, print_config),
                HookCommand::Copilot {
                    store,
                    print_config,
                } => (hook::Host::Copilot, store, print_config),
            };
            if print_config {
                print_text(&hook::print_config(host, &store));
                return Ok(OK);
            }
            Ok(hook::run(host, &store))
        }
    }
}

/// The workspace that ranks first: `--cwd`, else `--self`'s cwd, else
/// the current directory.
fn workspace(
    settings: &settings::Settings,
    store: &crate::store::FsStore,
    cwd: Option<String>,
) -> Option<String> {
    match cwd {
        Some(cwd) => Some(cwd),
        None => match settings.self_id.as_deref().and_then(|id| store.get(id)) {
            Some(session) => session.header.cwd,
            None => std::env::current_dir()
                .ok()
                .map(|d| d.to_string_lossy().into_owned()),
        },
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

/// Prints text as it is (a closed stdout is not worth a panic).
fn print_text(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

fn print_json(value: &impl Serialize) {
    let mut out = std::io::stdout().lock();
    // A closed stdout (a pipe to `head`) is not worth a panic.
    if serde_json::to_writer(&mut out, value).is_ok() {
        let _ = writeln!(out);
    }
}
