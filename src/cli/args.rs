//! The command line's grammar (server.md "Command line").

use std::path::PathBuf;

use clap::{ArgMatches, Args, Parser, Subcommand, ValueEnum};

#[derive(Debug, Parser)]
#[command(
    name = "hydra-session-lsp",
    version,
    about = "Language server and CLI for @-mentions of agent sessions",
    long_about = "Without a subcommand (or with --stdio, or `lsp`) runs the language server on stdin/stdout.\n\
                  The subcommands print JSON on stdout; a session-reference failure prints\n\
                  {\"error\":{\"code\",\"message\"}} and exits 1; a usage mistake exits 2."
)]
pub struct Cli {
    /// Run the language server on stdin/stdout (the default).
    #[arg(long, global = false)]
    pub stdio: bool,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the language server on stdin/stdout.
    Lsp {
        #[command(flatten)]
        index: SearchIndexArgs,
    },
    /// Encode or decode canonical `hydra-session:` URIs.
    #[command(subcommand)]
    Uri(UriCommand),
    /// Parse mentions: readable text and references.
    Parse {
        /// Input file, or `-` for standard input (the default).
        file: Option<PathBuf>,
    },
    /// List mention candidates from the stores, ranked.
    #[command(long_about = candidates_about())]
    Candidates {
        #[command(flatten)]
        store: StoreArgs,
        /// Case-insensitive filter on id, cwd, title and display title.
        #[arg(long, default_value = "")]
        query: String,
        /// At most this many candidates (default: 50).
        #[arg(long, value_parser = digits, allow_negative_numbers = true)]
        limit: Option<Digits>,
        /// The cwd to rank by (default: --self's cwd, else the current directory).
        #[arg(long)]
        cwd: Option<String>,
    },
    /// Prepare the bounded context of a message.
    Prepare {
        #[command(flatten)]
        store: StoreArgs,
        /// Accepted for symmetry with `candidates`; ranking does not apply.
        #[arg(long, hide = true)]
        cwd: Option<String>,
        #[command(flatten)]
        spill: SpillArgs,
        /// Input file, or `-` for standard input (the default).
        file: Option<PathBuf>,
    },
    /// List file and folder candidates for a file mention (`@path`).
    Files {
        /// The raw text typed after `@` (`"docs/des` is the quoted form).
        #[arg(long, default_value = "")]
        query: String,
        /// At most this many candidates (default: 50).
        #[arg(long, value_parser = digits, allow_negative_numbers = true)]
        limit: Option<Digits>,
        /// The folder to list under (default: the current directory).
        #[arg(long)]
        cwd: Option<PathBuf>,
    },
    /// Report the diagnostics the language server would publish.
    Check {
        #[command(flatten)]
        store: StoreArgs,
        /// Where relative file mentions are (default: the current directory).
        #[arg(long)]
        cwd: Option<PathBuf>,
        /// `--deny warnings`: exit 1 on warnings too (for CI: an unknown
        /// session, a mistyped --store), as clippy's `-D warnings`.
        #[arg(long, short = 'D', value_enum, value_name = "LEVEL")]
        deny: Option<Deny>,
        /// Prompt or Markdown files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Hooks for the agents people run.
    ///
    /// Cline, Continue, Kilo, OpenCode, Pi and Aider (the versions the
    /// tests pin) run no command on a prompt whose answer reaches the
    /// model: give them `prepare --format text` instead.
    #[command(subcommand)]
    Hook(HookCommand),
    /// Run the MCP server on stdin/stdout: sessions as resources, and the
    /// tools list_sessions, search_sessions, read_session and prepare.
    Mcp {
        #[command(flatten)]
        store: StoreArgs,
        #[command(flatten)]
        spill: SpillArgs,
        /// At most this many sessions listed as resources (default: 500).
        #[arg(long, value_parser = digits, allow_negative_numbers = true)]
        limit: Option<Digits>,
        #[command(flatten)]
        index: SearchIndexArgs,
        /// Print how to add this server to CLIENT, with the flags given.
        #[arg(long, value_name = "CLIENT",
              value_parser = clap::builder::PossibleValuesParser::new(crate::config::mcp::CLIENTS))]
        print_config: Option<String>,
        /// The newest MCP revision to speak (default: 2026-07-28; also
        /// HYDRA_SESSION_MCP_PROTOCOL). An older one answers
        /// `server/discover` with "method not found".
        #[arg(long, value_name = "REVISION",
              value_parser = clap::builder::PossibleValuesParser::new(crate::config::mcp::PROTOCOL_REVISIONS))]
        protocol: Option<String>,
    },
    /// The stores: their formats, sessions, skipped lines, errors and
    /// notes, and the search index (the language server's
    /// `sessionReference/status`).
    Status {
        #[command(flatten)]
        store: StoreArgs,
        #[command(flatten)]
        index: SearchIndexArgs,
    },
    /// Find sessions by what was said in them (full-text search over every
    /// message; the index is kept in $XDG_CACHE_HOME/hydra-session/search).
    /// Words must all match; "quoted phrases"; the last word matches as a
    /// prefix; filters agent:NAME cwd:PATH after:DATE before:DATE.
    Search {
        #[command(flatten)]
        store: StoreArgs,
        /// At most this many sessions (default: 10).
        #[arg(long, value_parser = digits, allow_negative_numbers = true)]
        limit: Option<Digits>,
        /// The workspace that ranks first (default: --self's cwd, else the
        /// current directory); the `cwd:` filter restricts instead.
        #[arg(long)]
        cwd: Option<String>,
        #[command(flatten)]
        index: SearchIndexArgs,
        /// The query. Flags may come after it, as with every command; a
        /// word that begins with `-` goes after `--`.
        // No `allow_hyphen_values`: with it, `search tax --store DIR` took
        // `--store DIR` as two more words and searched the default stores.
        #[arg(required = true, num_args = 1..)]
        query: Vec<String>,
    },
    /// Publish sessions to a team store: each session's projected surface
    /// as one immutable snapshot named by its SHA-256, recorded in the
    /// session's manifest. Prints the pinned mentions. Refuses (exit 1) when
    /// the text holds credentials, unless --allow-secret names each kind.
    Publish {
        #[command(flatten)]
        store: StoreArgs,
        /// The team store: s3://BUCKET/PREFIX, gs://BUCKET/PREFIX,
        /// az://CONTAINER/PREFIX or file:///ABSOLUTE/PATH.
        #[arg(long, value_name = "URL")]
        to: String,
        /// The publisher name in the published ids (`~NAME/id`; default:
        /// the login name).
        #[arg(long = "as", value_name = "NAME")]
        publisher: Option<String>,
        /// A kind of credential the scan found that is not one here;
        /// repeat for each kind (docs/team-store.md lists the kinds).
        #[arg(long = "allow-secret", value_name = "KIND")]
        allow_secret: Vec<String>,
        /// Sessions: a mention, a bare hydra-session: URI or an id.
        #[arg(required = true)]
        sessions: Vec<String>,
    },
}

#[derive(Debug, Subcommand)]
pub enum HookCommand {
    /// A Claude Code `UserPromptSubmit` hook: reads the hook's JSON on
    /// stdin; prints the referenced sessions' context as
    /// `additionalContext`, or blocks the prompt with the reason.
    ClaudeCode {
        #[command(flatten)]
        store: StoreArgs,
        /// Print the `~/.claude/settings.json` snippet that installs the hook.
        #[arg(long)]
        print_config: bool,
    },
    /// A Codex `UserPromptSubmit` hook: the same input and output as
    /// `claude-code`, with the context sized to what Codex keeps inline.
    Codex {
        #[command(flatten)]
        store: StoreArgs,
        /// Print the `~/.codex/hooks.json` snippet that installs the hook.
        #[arg(long)]
        print_config: bool,
    },
    /// A Qwen Code `UserPromptSubmit` hook: the same input and output as
    /// `claude-code`, with the context sized to what Qwen Code reads.
    Qwen {
        #[command(flatten)]
        store: StoreArgs,
        /// Print the `~/.qwen/settings.json` snippet that installs the hook.
        #[arg(long)]
        print_config: bool,
    },
    /// A Gemini CLI `BeforeAgent` hook: the same input and output as
    /// `claude-code`, under Gemini CLI's event name.
    Gemini {
        #[command(flatten)]
        store: StoreArgs,
        /// Print the `~/.gemini/settings.json` snippet that installs the hook.
        #[arg(long)]
        print_config: bool,
    },
    /// A Copilot CLI `userPromptSubmitted` hook: the context as its
    /// top-level `additionalContext`, or the prompt blocked with the reason.
    Copilot {
        #[command(flatten)]
        store: StoreArgs,
        /// Print the hook file to save as `~/.copilot/hooks/hydra-session.json`.
        #[arg(long)]
        print_config: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum UriCommand {
    /// The canonical URI of a session id (an id starting with `-` goes after `--`).
    Encode { id: String },
    /// The session id of a canonical URI.
    Decode { uri: String },
}

/// The least severe diagnostic that fails `check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Deny {
    Warnings,
}

/// An output format (`--format` with a value that is not a store format).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Mention,
}

impl Format {
    fn parse(name: &str) -> Option<Self> {
        match name {
            "text" => Some(Format::Text),
            "json" => Some(Format::Json),
            "mention" => Some(Format::Mention),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Json => "json",
            Format::Mention => "mention",
        }
    }
}

/// The store formats a `--store-format` (or the deprecated store value of
/// `--format`) may name: every row of the format table, and `auto`.
fn store_formats() -> Vec<&'static str> {
    crate::formats::FormatChoice::names()
}

/// `--store`'s long help: the short one with the agents whose default
/// stores are added, from the one table of formats.
fn store_help() -> String {
    format!(
        "Session store; repeat for a list (default: $HYDRA_SESSION_STORE, else \
         $HYDRA_HOME/sessions, else ~/.hydra/sessions, plus the stores of every agent this \
         build reads that exist: {})",
        crate::formats::table::agent_names()
    )
}

/// `candidates --help`: whose sessions are candidates, from the one table.
fn candidates_about() -> String {
    format!(
        "List mention candidates from the stores, ranked: hydra's sessions and those of {} \
         (each agent's default store when it exists, or the --store given).",
        crate::formats::table::agent_names()
    )
}

/// Store and limit settings shared by the store-reading commands.
#[derive(Debug, Args)]
pub struct StoreArgs {
    /// Session store; repeat for a list (default: $HYDRA_SESSION_STORE, else
    /// $HYDRA_HOME/sessions, else ~/.hydra/sessions, plus the stores of every
    /// agent this build reads that exist).
    #[arg(long, long_help = store_help())]
    pub store: Vec<PathBuf>,
    /// The log format of the --store before it (one of the formats this
    /// build reads, or auto: each log's first line tells).
    #[arg(long = "store-format", value_name = "F",
          value_parser = clap::builder::PossibleValuesParser::new(store_formats()))]
    pub store_format: Vec<String>,
    /// The output format (check: text, json; prepare: json, text;
    /// candidates: json, mention). A store format here, after a --store, is
    /// the deprecated spelling of --store-format.
    #[arg(long = "format", value_name = "F")]
    pub format: Vec<String>,
    /// Per --store: the format given right after it (filled by
    /// [`Cli::parse_args`]).
    #[arg(skip)]
    pub store_formats: Vec<Option<String>>,
    /// The output format, when one was given (filled by [`Cli::parse_args`]).
    #[arg(skip)]
    pub output: Option<Format>,
    /// The message's own session: never offered, never referenced.
    #[arg(long = "self", value_name = "ID")]
    pub self_id: Option<String>,
    /// Most distinct sessions one message may reference (1..=3, default 3).
    #[arg(long, value_parser = digits, allow_negative_numbers = true)]
    pub max_references: Option<Digits>,
    /// Byte budget of one source's data object, or `auto` (the default:
    /// from the model capacity --self's log records, else 65536).
    #[arg(long, value_parser = budget, value_name = "N|auto", allow_negative_numbers = true)]
    pub max_reference_bytes: Option<Budget>,
}

/// Whether the search index may be kept on disk.
#[derive(Debug, Default, Args)]
pub struct SearchIndexArgs {
    /// Keep no search index on disk: `search` builds one in memory for
    /// this call only, `mcp` keeps it in memory, `lsp` turns search off;
    /// `status` reports search as off.
    #[arg(long)]
    pub no_search_index: bool,
}

/// Where `prepare` stores the full snapshots of truncated sources.
#[derive(Debug, Default, Args)]
pub struct SpillArgs {
    /// Spill directory (default: $XDG_CACHE_HOME/hydra-session/snapshots,
    /// else ~/.cache/hydra-session/snapshots).
    #[arg(long, value_name = "DIR")]
    pub spill_dir: Option<PathBuf>,
    /// Store no full snapshots (wins over --spill-dir).
    #[arg(long)]
    pub no_spill: bool,
    /// Size cap of the spill directory in bytes (default 268435456).
    #[arg(long, value_parser = digits, value_name = "N", allow_negative_numbers = true)]
    pub spill_max_bytes: Option<Digits>,
}

/// `--max-reference-bytes`: decimal digits or `auto`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    Auto,
    Bytes(Digits),
}

fn budget(text: &str) -> Result<Budget, String> {
    if text == "auto" {
        return Ok(Budget::Auto);
    }
    if text.starts_with('-') {
        return digits(text).map(Budget::Bytes);
    }
    digits(text)
        .map(Budget::Bytes)
        .map_err(|_| "expected decimal digits or `auto`".into())
}

/// A limit written as decimal digits; its range is checked later, as a
/// session-reference error rather than a usage mistake.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Digits(pub u64);

fn digits(text: &str) -> Result<Digits, String> {
    if text.starts_with('-') {
        return Err(
            "expected a positive whole number (decimal digits); negative numbers are not limits"
                .into(),
        );
    }
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err("expected decimal digits".into());
    }
    // Saturate: anything past u64 is past 2^53 − 1 too.
    Ok(Digits(text.parse().unwrap_or(u64::MAX)))
}

impl Cli {
    /// Parses the process's arguments, then splits each subcommand's
    /// `--format` values into store formats and the output format.
    pub fn parse_args() -> Result<Self, clap::Error> {
        Self::parse_from_args(std::env::args_os())
    }

    pub fn parse_from_args<I, T>(args: I) -> Result<Self, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        use clap::{CommandFactory, FromArgMatches};
        let mut command = Self::command();
        let matches = command.try_get_matches_from_mut(args)?;
        let mut cli = Self::from_arg_matches(&matches)?;
        let mut leaf = &matches;
        while let Some((_, sub)) = leaf.subcommand() {
            leaf = sub;
        }
        let (allowed, store): (&[Format], Option<&mut StoreArgs>) = match &mut cli.command {
            Some(Command::Candidates { store, .. }) => {
                (&[Format::Json, Format::Mention], Some(store))
            }
            Some(Command::Prepare { store, .. }) => (&[Format::Json, Format::Text], Some(store)),
            Some(Command::Check { store, .. }) => (&[Format::Text, Format::Json], Some(store)),
            Some(Command::Status { store, .. }) => (&[Format::Json, Format::Text], Some(store)),
            Some(Command::Search { store, .. }) => {
                (&[Format::Json, Format::Mention, Format::Text], Some(store))
            }
            Some(Command::Hook(
                HookCommand::ClaudeCode { store, .. }
                | HookCommand::Codex { store, .. }
                | HookCommand::Qwen { store, .. }
                | HookCommand::Gemini { store, .. }
                | HookCommand::Copilot { store, .. },
            )) => (&[], Some(store)),
            Some(Command::Mcp { store, .. }) => (&[], Some(store)),
            Some(Command::Publish { store, .. }) => (&[Format::Json, Format::Mention], Some(store)),
            _ => (&[], None),
        };
        if let Some(store) = store {
            split_formats(leaf, store, allowed)
                .map_err(|message| command.error(clap::error::ErrorKind::InvalidValue, message))?;
        }
        Ok(cli)
    }
}

/// Pairs each store format with the `--store` before it and keeps the last
/// output format; a value that is neither, or an output format the command
/// does not print, is a usage mistake.
fn split_formats(
    matches: &ArgMatches,
    args: &mut StoreArgs,
    allowed: &[Format],
) -> Result<(), String> {
    let indices = |id: &str| -> Vec<usize> {
        matches
            .indices_of(id)
            .map(|i| i.collect())
            .unwrap_or_default()
    };
    let store_at = indices("store");
    args.store_formats = vec![None; args.store.len()];
    // Both spellings, in command-line order: each pairs with the --store
    // before it.
    let mut given: Vec<(usize, &str, &String)> = args
        .store_format
        .iter()
        .zip(indices("store_format"))
        .map(|(value, at)| (at, "--store-format", value))
        .collect();
    let mut outputs = Vec::new();
    for (value, at) in args.format.iter().zip(indices("format")) {
        if store_formats().contains(&value.as_str()) {
            given.push((at, "--format", value));
        } else {
            outputs.push(value);
        }
    }
    given.sort_unstable_by_key(|&(at, ..)| at);
    for (at, flag, value) in given {
        let Some(slot) = store_at.iter().rposition(|&s| s < at) else {
            return Err(format!(
                "{flag} {value} is a store format: it goes right after the --store it applies to"
            ));
        };
        let Some(format) = args.store_formats.get_mut(slot) else {
            return Err(format!("{flag} {value}: no --store before it"));
        };
        if format.is_some() {
            return Err(format!(
                "two store formats for --store {}",
                args.store
                    .get(slot)
                    .map(|p| p.display().to_string())
                    .unwrap_or_default()
            ));
        }
        *format = Some(value.clone());
    }
    for value in outputs {
        if let Some(output) = Format::parse(value) {
            if !allowed.contains(&output) {
                let names: Vec<&str> = allowed.iter().map(|f| f.name()).collect();
                return Err(if names.is_empty() {
                    format!(
                        "--format {value}: this command takes only store formats ({})",
                        store_formats().join(", ")
                    )
                } else {
                    format!(
                        "--format {value}: this command prints {}",
                        names.join(" or ")
                    )
                });
            }
            args.output = Some(output);
        } else {
            return Err(format!(
                "unknown --format {value:?} (output: text, json, mention; store: {})",
                store_formats().join(", ")
            ));
        }
    }
    Ok(())
}
