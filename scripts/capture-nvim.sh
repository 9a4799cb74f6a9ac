#!/usr/bin/env bash
# Captures Neovim, with editors/nvim and the demo store, showing a diagnostic
# and a hover, into docs/nvim-screen.txt, and pastes it into README.md
# between the nvim-screen markers.
#
#   scripts/capture-nvim.sh [PATH/TO/hydra-session-lsp]
#
# Needs nvim and tmux. Runs its own tmux server (a private socket) and ends it.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
server=$(readlink -f "${1:-$repo/target/debug/hydra-session-lsp}")
out="$repo/docs/nvim-screen.txt"
doc="$repo/README.md"
cols=140
rows=30

for tool in nvim tmux; do
  command -v "$tool" >/dev/null || { echo "capture-nvim: $tool is needed" >&2; exit 1; }
done
[ -x "$server" ] || { echo "capture-nvim: no server at $server (cargo build first)" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hydra-capture.XXXXXX")
sock="hydra-capture-$$"
cleanup() {
  tmux -L "$sock" kill-server 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

# The prompt: the demo mentions, one of a session that does not exist.
cat >"$tmp/prompt.md" <<'MD'
# Prompt

Not @[Ghost](hydra-session:Im5vLXN1Y2gtc2Vzc2lvbiI).
Pick up where @[Checkout tax rounding](hydra-session:ImNoZWNrb3V0LXRheCI) left off,
and reuse the cases from @[test-writer](hydra-session:ImNoZWNrb3V0LXRheC50ZXN0LXdyaXRlciI).
MD

cat >"$tmp/init.lua" <<LUA
vim.opt.runtimepath:prepend("$repo/editors/nvim")
vim.o.swapfile = false
vim.o.signcolumn = "yes"
vim.o.number = true
vim.o.laststatus = 2
vim.o.shortmess = vim.o.shortmess .. "I"
vim.o.termguicolors = false
vim.diagnostic.config({ virtual_text = true, signs = true, severity_sort = true })
vim.lsp.handlers["textDocument/hover"] = vim.lsp.with(vim.lsp.handlers.hover, { border = "rounded", max_width = 90 })
vim.keymap.set("n", "K", vim.lsp.buf.hover)
require("hydra_session").setup({
  cmd = { "$server", "--stdio" },
  settings = { store = "$repo/examples/sessions" },
})
LUA

screen() { tmux -L "$sock" capture-pane -p -t capture; }
wait_for() { # REGEX SECONDS
  local deadline=$((SECONDS + $2))
  until screen | grep -qE -- "$1"; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "capture-nvim: \"$1\" did not appear in $2 s; the screen was:" >&2
      screen >&2
      exit 1
    fi
    sleep 0.2
  done
}

cd "$tmp"
tmux -L "$sock" -f /dev/null new-session -d -s capture -x "$cols" -y "$rows" \
  "env TERM=xterm-256color XDG_STATE_HOME=$tmp/state XDG_DATA_HOME=$tmp/data XDG_CACHE_HOME=$tmp/cache nvim --clean -n -i NONE -u $tmp/init.lua prompt.md"
tmux -L "$sock" set-option -t capture status off >/dev/null

# The warning's virtual text, then the hover over the Checkout mention.
wait_for "prompt.md" 10
wait_for "^W +3 " 20 # the warning sign on line 3
tmux -L "$sock" send-keys -t capture 4G 20\|
sleep 0.3
before=$(screen)
tmux -L "$sock" send-keys -t capture K
deadline=$((SECONDS + 20))
until [ "$(screen)" != "$before" ]; do
  [ "$SECONDS" -lt "$deadline" ] || { echo "capture-nvim: no hover appeared" >&2; screen >&2; exit 1; }
  sleep 0.2
done
sleep 1 # let the float settle

mkdir -p "$(dirname "$out")"
screen | sed -e 's/[[:space:]]*$//' >"$out"
# Drop trailing empty lines.
printf '%s\n' "$(cat "$out")" >"$out"
echo "capture-nvim: wrote $out"

if [ -f "$doc" ] && grep -q '<!-- nvim-screen:start -->' "$doc"; then
  python3 - "$doc" "$out" <<'PY'
import sys, re
doc, screen = sys.argv[1], open(sys.argv[2]).read().rstrip("\n")
text = open(doc).read()
block = "<!-- nvim-screen:start -->\n```text\n" + screen + "\n```\n<!-- nvim-screen:end -->"
text = re.sub(r"<!-- nvim-screen:start -->.*?<!-- nvim-screen:end -->", lambda m: block, text, flags=re.S)
open(doc, "w").write(text)
PY
  echo "capture-nvim: updated $doc"
fi
