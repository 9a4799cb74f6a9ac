#!/usr/bin/env bash
# The project's test command: every Rust test (unit, conformance, CLI, LSP,
# property), then the editor integrations against the built server.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo fmt --check
cargo clippy --all-targets --quiet -- -D warnings
cargo test
cargo build --quiet
if [ -f editors/test.sh ]; then
  bash editors/test.sh "$PWD/target/debug/hydra-session-lsp"
fi
