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
#      result reaches the next request;
#   5. Pi, Qwen Code, Kilo, Continue, Cline and Aider (sessions_test.py):
#      each writes a real session in a fresh HOME (a prompt, a tool call, a
#      resumed turn), which `candidates`, `prepare`, `status` and `search`
#      find with zero configuration;
#   6. Gemini CLI, Qwen Code, OpenCode and Copilot CLI (more_agents_test.py): the MCP
#      server configured as `mcp --print-config <agent>` prints it, one
#      prompt calling every tool (each result in the next request), the
#      agent's own session read back (not Qwen's: group 5 has it), Gemini's
#      and Qwen's `@hydra:<uri>` attachments, and OpenCode's TUI in tmux:
#      `@`, part of a title, Enter, a prompt, Enter, and the session's
#      context in the request;
#      and every client's printed config parsed (configs).
#   7. `hook gemini` under `gemini -p` (Gemini CLI 0.61.0) and `hook qwen`
#      under `qwen -p` (hooks_more_test.py): the context in the request,
#      Gemini's systemMessage shown, a bad mention blocked; the same for
#      `hook copilot` under `copilot -p` (Copilot CLI 1.0.102); Cline's hook
#      files and Continue's settings.json hooks, which add no context.
#
#   bash tests/agents/test.sh target/debug/hydra-session-lsp [AGENT...]
#
# AGENT names pick groups: claude, codex (1-4), pi, qwen, kilo, continue,
# cline, aider (5), gemini, opencode, copilot, configs (6); gemini, qwen,
# cline, continue and copilot also run their prompt hooks (7), qwen its MCP
# group in 6; default all.
#
# Prints one PASS/FAIL line per check and closes with "N passed, M failed";
# exits non-zero on any failure.
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: bash tests/agents/test.sh PATH/TO/hydra-session-lsp [AGENT...]" >&2
  exit 2
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
server=$(readlink -f "$1")
shift
# Which groups run: agents_test.py (Claude Code, Codex) and sessions_test.py
# (the others), each with the names asked for.
hooks=()
readers=()
more=()
prompt_hooks=()
for agent in "$@"; do
  case "$agent" in
    claude | codex) hooks+=("$agent") ;;
    pi | kilo | aider) readers+=("$agent") ;;
    continue | cline)
      readers+=("$agent")
      prompt_hooks+=("$agent")
      ;;
    qwen)
      readers+=(qwen)
      more+=(qwen)
      prompt_hooks+=(qwen)
      ;;
    gemini)
      more+=(gemini)
      prompt_hooks+=(gemini)
      ;;
    copilot)
      more+=(copilot)
      prompt_hooks+=(copilot)
      ;;
    opencode) more+=(opencode opencode-tui) ;;
    configs) more+=(configs) ;;
    *)
      echo "usage: unknown agent $agent (claude codex pi qwen kilo continue cline aider gemini opencode copilot configs)" >&2
      exit 2
      ;;
  esac
done
# No names: every group. Names: only theirs (agents_test.py picks Claude
# Code's or Codex's groups by HYDRA_AGENTS_ONLY when one of the two is named).
hooks_run=1
hooks_only=""
if [ $# -gt 0 ]; then
  [ ${#hooks[@]} -gt 0 ] || hooks_run=0
  [ ${#hooks[@]} -ne 1 ] || hooks_only=${hooks[0]}
  [ ${#readers[@]} -gt 0 ] || readers=(none)
  [ ${#more[@]} -gt 0 ] || more=(none)
  [ ${#prompt_hooks[@]} -gt 0 ] || prompt_hooks=(none)
elif [ -n "${HYDRA_AGENTS_ONLY:-}" ]; then
  # As before the other agents came: HYDRA_AGENTS_ONLY alone picks among
  # Claude Code's and Codex's groups only.
  readers=(none)
  more=(none)
  prompt_hooks=(none)
fi
store="$repo/examples/sessions"
work=$(mktemp -d "${TMPDIR:-/tmp}/hydra-agents.XXXXXX")
trap 'rm -rf "$work"' EXIT

passed=0
failed=0
finish() {
  echo "agent tests took ${SECONDS} s"
  echo "$passed passed, $failed failed"
  # Zero PASS lines is no proof of anything: a run that checked nothing fails.
  if [ "$failed" -eq 0 ] && [ "$passed" -eq 0 ]; then
    echo "FAIL agents: no check passed (0 PASS lines)"
    return 1
  fi
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
# npm and PyPI at once; a fresh machine's first install takes about 2 min
# alone, 10 min on a loaded one (with Gemini CLI, OpenCode and Copilot CLI).
timeout --kill-after=10 900 bash "$here/install.sh" "$@" >"$work/install.out" 2>"$work/install.err" || rc=$?
if [ "$rc" -ne 0 ]; then
  echo "FAIL agents: install.sh exited with status $rc"
  tail -n 20 "$work/install.err"
  failed=1
  finish
fi
claude=$(sed -n 's/^claude=//p' "$work/install.out")
codex=$(sed -n 's/^codex=//p' "$work/install.out")
grep '^install: .* took ' "$work/install.err" || true
echo "using $("$claude" --version) and $("$codex" --version 2>/dev/null), $server"

# Runs one test script under a time limit; its PASS/FAIL lines are counted.
run_script() {
  local script=$1 seconds=$2 rc=0
  shift 2
  timeout --kill-after=10 "$seconds" python3 "$here/$script" "$@" >"$work/test.out" 2>"$work/test.err" || rc=$?
  cat "$work/test.out"
  local p f s
  p=$(grep -c '^PASS ' "$work/test.out" || true)
  f=$(grep -c '^FAIL ' "$work/test.out" || true)
  s=$(grep -c '^SKIP ' "$work/test.out" || true)
  [ "$s" -eq 0 ] || echo "$s groups of $script skipped"
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    echo "FAIL agents: $script exited with status $rc$([ "$rc" -eq 124 ] && echo " (timed out)")"
    f=1
  fi
  if [ "$rc" -ne 0 ] && [ -s "$work/test.err" ]; then
    echo "--- $script: stderr (tail) ---"
    tail -c 3000 "$work/test.err"
  fi
  passed=$((passed + p))
  failed=$((failed + f))
}

if [ "$hooks_run" -eq 1 ]; then
  HYDRA_AGENTS_ONLY=${HYDRA_AGENTS_ONLY:-$hooks_only} \
    run_script agents_test.py 420 "$claude" "$codex" "$server" "$store"
fi
if [ "${readers[*]-}" != "none" ]; then
  run_script sessions_test.py 420 "$server" "$work/install.out" ${readers[@]+"${readers[@]}"}
fi
if [ "${more[*]-}" != "none" ]; then
  run_script more_agents_test.py 1200 "$server" "$work/install.out" "$store" ${more[@]+"${more[@]}"}
fi
if [ "${prompt_hooks[*]-}" != "none" ]; then
  run_script hooks_more_test.py 300 "$server" "$store" "$work/install.out" ${prompt_hooks[@]+"${prompt_hooks[@]}"}
fi
finish
