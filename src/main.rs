use hydra_session_lsp::{cli, server};

fn main() {
    let status = match cli::main() {
        cli::Invocation::Server => server::run_stdio(),
        cli::Invocation::Done(status) => status,
    };
    std::process::exit(status);
}
