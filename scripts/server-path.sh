#!/usr/bin/env bash
# Prints the path of the built server binary for a profile (default: debug),
# wherever cargo puts it: `CARGO_TARGET_DIR`, `build.target-dir` in a cargo
# config, or ./target. Cargo is asked, never guessed.
#   scripts/server-path.sh [PROFILE]
set -euo pipefail
cd "$(dirname "$0")/.."
profile=${1:-debug}
metadata=$(cargo metadata --format-version 1 --no-deps) || {
  echo "server-path.sh: cargo metadata failed" >&2
  exit 1
}
target=$(printf '%s' "$metadata" | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
if [ -z "$target" ]; then
  echo "server-path.sh: no target_directory in cargo metadata" >&2
  exit 1
fi
printf '%s/%s/hydra-session-lsp\n' "$target" "$profile"
