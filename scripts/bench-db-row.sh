#!/usr/bin/env bash
# Peak resident memory of `candidates` and `prepare` on one session whose
# first prompt is one SIZE MiB message, in each database format and as a
# hydra log (issue 27 item 14; docs/robustness.md, docs/performance.md).
#   scripts/bench-db-row.sh [SIZE_MB]   (default 100)
# Builds bench-data/db-row-SIZE once (gitignored) with
# scripts/db-row-stores.py, then runs the debug binary under
# /usr/bin/time -f %M. BENCH_BINARY=path measures another build.
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-100}
dir=bench-data/db-row-$size
[ -f "$dir/zed/threads.db" ] || python3 scripts/db-row-stores.py "$dir" "$size"
[ -n "${BENCH_BINARY:-}" ] || cargo build --quiet --bin hydra-session-lsp
bin=${BENCH_BINARY:-target/debug/hydra-session-lsp}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export HOME=$scratch XDG_CACHE_HOME=$scratch/cache
for format in hydra kilo opencode goose crush zed; do
  case $format in
    hydra) id=h_big ;; kilo | opencode) id=ses_big ;; goose) id=g_big ;;
    crush) id=c_big ;; zed) id=z_big ;;
  esac
  args=(--store "$dir/$format" --store-format "$format")
  listed=$( { /usr/bin/time -f %M "$bin" candidates "${args[@]}" >/dev/null; } 2>&1 | tail -1)
  reference=$(printf '"%s"' "$id" | base64 -w0 | tr '+/' '-_' | tr -d '=')
  prepared=$( { printf 'Continue @[x](hydra-session:%s)' "$reference" \
    | /usr/bin/time -f %M "$bin" prepare "${args[@]}" >/dev/null; } 2>&1 | tail -1)
  echo "$format: candidates $((listed / 1024)) MiB, prepare $((prepared / 1024)) MiB"
done
