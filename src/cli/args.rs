//! The command line's grammar (server.md "Command line").

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

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
    Lsp,
    /// Encode or decode canonical `hydra-session:` URIs.
    #[command(subcommand)]
    Uri(UriCommand),
    /// Parse mentions: readable text and references.
    Parse {
        /// Input file, or `-` for standard input (the default).
        file: Option<PathBuf>,
    },
    /// List mention candidates from the store, ranked.
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
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// `--deny warnings`: exit 1 on warnings too (for CI: an unknown
        /// session, a mistyped --store), as clippy's `-D warnings`.
        #[arg(long, short = 'D', value_enum, value_name = "LEVEL")]
        deny: Option<Deny>,
        /// Prompt or Markdown files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

/// Store and limit settings shared by the store-reading commands.
#[derive(Debug, Args)]
pub struct StoreArgs {
    /// Session store; repeat for a list (default: $HYDRA_SESSION_STORE, else
    /// $HYDRA_HOME/sessions, else ~/.hydra/sessions, plus the Claude Code and
    /// Codex stores that exist).
    #[arg(long)]
    pub store: Vec<PathBuf>,
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

/// Where `prepare` stores the full snapshots of truncated sources.
#[derive(Debug, Args)]
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
