#!/usr/bin/env bash
# Installs the real agents the tests in tests/agents drive, pinned by
# package.json and package-lock.json beside this script, from npm only, into
# the clone's cache (.cache/agents, gitignored): nothing outside the clone.
#
#   @anthropic-ai/claude-code 2.1.332   (a native binary; Node >= 22 is
#                                        declared, Node 20 only warns)
#   @openai/codex             0.171.0   (a Node launcher of a native binary)
#
#   bash tests/agents/install.sh
#
# A second run reuses the install when the lock file has not changed. Prints
# "claude=PATH" and "codex=PATH".
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache="$repo/.cache/agents"
mkdir -p "$cache"

if ! cmp -s "$here/package-lock.json" "$cache/package-lock.json" ||
  [ ! -f "$cache/node_modules/.package-lock.json" ]; then
  cp "$here/package.json" "$here/package-lock.json" "$cache/"
  echo "install: npm ci (tests/agents/package-lock.json) into .cache/agents" >&2
  # --engine-strict=false: Claude Code declares Node >= 22 for its launcher,
  # but the binary it installs runs alone.
  (cd "$cache" && npm ci --no-audit --no-fund --loglevel=error --engine-strict=false >&2)
fi

claude="$cache/node_modules/.bin/claude"
codex="$cache/node_modules/.bin/codex"
for bin in "$claude" "$codex"; do
  if [ ! -x "$bin" ]; then
    echo "install: $bin is missing after npm ci" >&2
    exit 1
  fi
done
echo "claude=$claude"
echo "codex=$codex"
