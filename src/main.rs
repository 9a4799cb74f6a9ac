fn main() {
    std::process::exit(hydra_session_lsp::cli::main());
}
