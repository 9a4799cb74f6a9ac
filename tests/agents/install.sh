#!/usr/bin/env bash
# Installs the real agents the tests in tests/agents drive, pinned, into the
# clone's cache (.cache/agents, gitignored): nothing outside the clone.
#
# From npm, by package.json and package-lock.json beside this script:
#   @anthropic-ai/claude-code      2.1.332  (a native binary; Node >= 22 is
#                                            declared, Node 20 only warns)
#   @openai/codex                  0.171.0  (a Node launcher of a native binary)
#   @mariozechner/pi-coding-agent  0.73.1   (pi)
#   @qwen-code/qwen-code           0.24.4   (qwen; declares Node >= 22, runs on 20)
#   @kilocode/cli                  7.7.7    (kilo, a native binary; 7.8.1's
#                                            platform packages are not on the registry)
#   @continuedev/cli               1.5.47   (cn)
#   cline                          3.0.65   (a Node launcher of a native binary)
#   @google/gemini-cli             0.61.0   (gemini)
#   opencode-ai                    1.18.33  (a native binary)
#   @github/copilot                1.0.102  (a Node launcher of a native binary,
#                                            which unpacks itself on a first run)
# From PyPI, by aider-requirements.txt beside this script, into a venv:
#   aider-chat                     0.86.2   (aider)
# Crush (@charmland/crush) is not installed: its postinstall downloads the
# binary from GitHub, which CI cannot reach.
#
#   bash tests/agents/install.sh [AGENT...]
#
# With agent names (claude codex pi qwen kilo continue cline aider gemini
# opencode copilot) the venv
# is made only when aider is among them; npm installs the whole lock either
# way. A second run reuses each install whose pin file has not changed.
# Prints NAME=PATH for each agent installed, and each install's seconds and
# size on stderr.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache="$repo/.cache/agents"
mkdir -p "$cache"

wanted() {
  local name
  for name in "${@:2}"; do [ "$name" = "$1" ] && return 0; done
  return 1
}
want_aider=0
if [ $# -eq 0 ] || wanted aider "$@"; then want_aider=1; fi

size() { du -sh "$1" 2>/dev/null | cut -f1; }

npm_install() {
  if cmp -s "$here/package-lock.json" "$cache/package-lock.json" &&
    [ -f "$cache/node_modules/.package-lock.json" ]; then
    return 0
  fi
  cp "$here/package.json" "$here/package-lock.json" "$cache/"
  echo "install: npm install (tests/agents/package-lock.json) into .cache/agents" >&2
  local start=$SECONDS
  # `npm install` from the lock, not `npm ci`: the registry serves only some
  # of the agents' platform packages (darwin, windows, arm), so the lock
  # lacks those optional entries and `npm ci` refuses it as out of sync;
  # `npm install` installs exactly the locked versions and leaves the lock
  # as it is. --engine-strict=false: Claude Code and Qwen Code declare
  # Node >= 22 for their launchers, and both run on Node 20.
  (cd "$cache" && npm install --no-audit --no-fund --loglevel=error --engine-strict=false >&2)
  echo "install: npm took $((SECONDS - start)) s, node_modules $(size "$cache/node_modules")" >&2
}

aider_install() {
  local venv="$cache/aider-venv"
  if cmp -s "$here/aider-requirements.txt" "$venv/aider-requirements.txt" && [ -x "$venv/bin/aider" ]; then
    return 0
  fi
  echo "install: pip install (tests/agents/aider-requirements.txt) into .cache/agents/aider-venv" >&2
  local start=$SECONDS
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/aider-requirements.txt" >&2
  cp "$here/aider-requirements.txt" "$venv/"
  echo "install: pip took $((SECONDS - start)) s, aider-venv $(size "$venv")" >&2
}

# The two registries at once: each install is mostly waiting on the network.
aider_status=0
if [ "$want_aider" -eq 1 ]; then
  aider_install &
  aider_pid=$!
fi
npm_install
if [ "$want_aider" -eq 1 ]; then
  wait "$aider_pid" || aider_status=$?
fi
if [ "$aider_status" -ne 0 ]; then
  echo "install: pip install of aider failed (status $aider_status)" >&2
  exit 1
fi

bin="$cache/node_modules/.bin"
agents=(claude="$bin/claude" codex="$bin/codex" pi="$bin/pi" qwen="$bin/qwen" kilo="$bin/kilo"
  continue="$bin/cn" cline="$bin/cline" gemini="$bin/gemini" opencode="$bin/opencode"
  copilot="$bin/copilot")
[ "$want_aider" -eq 1 ] && agents+=(aider="$cache/aider-venv/bin/aider")
for entry in "${agents[@]}"; do
  if [ ! -x "${entry#*=}" ]; then
    echo "install: ${entry#*=} is missing after the install" >&2
    exit 1
  fi
done
printf '%s\n' "${agents[@]}"
