#!/usr/bin/env bash
# Real-agent tests (issue 14): Claude Code 2.1.332 and Codex 0.171.0 from npm
# (pinned in package-lock.json, installed into .cache/agents by install.sh)
# against a fake model API on 127.0.0.1 (fake_api.py) that records requests:
#   1. the Claude Code hook under `claude -p`: the context in the request,
#      the systemMessage shown, a bad mention blocked;
#   2. the Codex hook under `codex exec`: the same;
#   3. interactive `claude` in tmux with the MCP server: ` @`, part of a
#      title, ↓, Enter, Enter, and the session's context in the request;
#   4. `codex exec` with the MCP server: a scripted read_session call whose
#      result reaches the next request.
#
#   bash tests/agents/test.sh target/debug/hydra-session-lsp
#
# Prints one PASS/FAIL line per check and closes with "N passed, M failed";
# exits non-zero on any failure.
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: bash tests/agents/test.sh PATH/TO/hydra-session-lsp" >&2
  exit 2
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
server=$(readlink -f "$1")
store="$repo/examples/sessions"
work=$(mktemp -d "${TMPDIR:-/tmp}/hydra-agents.XXXXXX")
trap 'rm -rf "$work"' EXIT

passed=0
failed=0
finish() {
  echo "agent tests took ${SECONDS} s"
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}

if [ ! -x "$server" ]; then
  echo "FAIL server binary: $1 is not an executable file"
  failed=1
  finish
fi
for tool in node npm tmux python3; do
  if ! command -v "$tool" >/dev/null; then
    echo "FAIL agents: $tool is not installed (.ci/run installs it)"
    failed=1
    finish
  fi
done

rc=0
timeout --kill-after=10 300 bash "$here/install.sh" >"$work/install.out" 2>"$work/install.err" || rc=$?
if [ "$rc" -ne 0 ]; then
  echo "FAIL agents: install.sh exited with status $rc"
  tail -n 20 "$work/install.err"
  failed=1
  finish
fi
claude=$(sed -n 's/^claude=//p' "$work/install.out")
codex=$(sed -n 's/^codex=//p' "$work/install.out")
echo "using $("$claude" --version) and $("$codex" --version 2>/dev/null), $server"

rc=0
timeout --kill-after=10 420 python3 "$here/agents_test.py" "$claude" "$codex" "$server" "$store" \
  >"$work/test.out" 2>"$work/test.err" || rc=$?
cat "$work/test.out"
passed=$(grep -c '^PASS ' "$work/test.out" || true)
failed=$(grep -c '^FAIL ' "$work/test.out" || true)
skipped=$(grep -c '^SKIP ' "$work/test.out" || true)
[ "$skipped" -eq 0 ] || echo "$skipped groups skipped (HYDRA_AGENTS_ONLY)"
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
  echo "FAIL agents: agents_test.py exited with status $rc$([ "$rc" -eq 124 ] && echo " (timed out)")"
  failed=1
fi
if [ "$rc" -ne 0 ] && [ -s "$work/test.err" ]; then
  echo "--- agents_test.py: stderr (tail) ---"
  tail -c 3000 "$work/test.err"
fi
finish
