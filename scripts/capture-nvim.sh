#!/usr/bin/env bash
# Captures Neovim, with editors/nvim and the demo store, showing a diagnostic
# and a hover, into docs/nvim-screen.txt, and pastes it into README.md
# between the nvim-screen markers.
#
#   scripts/capture-nvim.sh [PATH/TO/hydra-session-lsp]
#
# Needs tmux and Neovim: $NVIM, else Neovim 0.11 from .cache/editors (made
# by tests/editors/install.sh nvim011), else nvim on the PATH. Also saves
# the completion menu after typing "@che" to docs/nvim-completion.txt
# (pasted between the nvim-completion markers).
# Runs its own tmux server (a private socket) and ends it.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
server=$(readlink -f "${1:-$repo/target/debug/hydra-session-lsp}")
out="$repo/docs/nvim-screen.txt"
menu_out="$repo/docs/nvim-completion.txt"
nvim=${NVIM:-}
if [ -z "$nvim" ]; then
  nvim=$(bash "$repo/tests/editors/install.sh" nvim011 2>/dev/null | tail -n 1 | cut -d= -f2- || true)
  [ -x "$nvim" ] || nvim=$(command -v nvim || true)
fi
doc="$repo/README.md"
cols=140
rows=30

command -v tmux >/dev/null || { echo "capture-nvim: tmux is needed" >&2; exit 1; }
[ -x "$nvim" ] || { echo "capture-nvim: no Neovim found (set NVIM)" >&2; exit 1; }
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
-- Everything else is the plugin's default: virtual text, K = hover, the
-- completion menu opening on "@".
if vim.fn.has("nvim-0.11") == 1 then
  vim.o.winborder = "rounded"
else
  vim.lsp.handlers["textDocument/hover"] = vim.lsp.with(vim.lsp.handlers.hover, { border = "rounded", max_width = 90 })
end
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
  "env TERM=xterm-256color XDG_STATE_HOME=$tmp/state XDG_DATA_HOME=$tmp/data XDG_CACHE_HOME=$tmp/cache $nvim --clean -n -i NONE -u $tmp/init.lua prompt.md"
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

save() { # FILE: the screen, without trailing blanks and empty last lines
  mkdir -p "$(dirname "$1")"
  screen | sed -e 's/[[:space:]]*$//' >"$1"
  printf '%s\n' "$(cat "$1")" >"$1"
  echo "capture-nvim: wrote $1"
}
save "$out"

# The completion menu after typing "@che" on a new last line.
tmux -L "$sock" send-keys -t capture Escape
tmux -L "$sock" send-keys -t capture G o
tmux -L "$sock" send-keys -t capture -l "Ask @che"
wait_for "Checkout tax rounding" 20
wait_for "test-writer" 5
save "$menu_out"

if [ -f "$doc" ]; then
  python3 "$repo/scripts/paste-screen.py" "$doc" nvim-screen "$out" nvim-completion "$menu_out"
fi
