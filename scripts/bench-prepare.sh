#!/usr/bin/env bash
# Throughput and peak memory of `prepare` on one generated log.
#   scripts/bench-prepare.sh [SIZE_MB] [spill]   (default 100; try 1000)
# Generates bench-data/SIZE/big.jsonl once (gitignored), then runs the
# release binary three times under /usr/bin/time -v. Without `spill` it
# runs with --no-spill; with `spill` the truncated source's full snapshot
# is stored in bench-data/spill (emptied before each run), so the figure
# is end to end: both passes over the log, hashing and writing.
# BENCH_BINARY=path measures another build (a before/after in one session).
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-100}
mode=${2:-no-spill}
dir=bench-data/$size
command -v /usr/bin/time >/dev/null || { apt-get update -qq && apt-get install -y -qq time >/dev/null; }
cargo build --release --quiet --example gen_log --bin hydra-session-lsp
bin=${BENCH_BINARY:-target/release/hydra-session-lsp}
[ -f "$dir/store/big.jsonl" ] || target/release/examples/gen_log "$dir/store/big.jsonl" "$size"
bytes=$(stat -c %s "$dir/store/big.jsonl")
printf 'Summarise @[big](%s)\n' "$(target/release/hydra-session-lsp uri encode bench-big | tr -d '"')" > "$dir/prompt.md"
cat "$dir/store/big.jsonl" > /dev/null   # warm the page cache
spill_dir=bench-data/spill
case "$mode" in
  spill) flags=(--spill-dir "$spill_dir") ;;
  *) flags=(--no-spill) ;;
esac
for run in 1 2 3; do
  rm -rf "$spill_dir"
  /usr/bin/time -f '%e %U %S %M' -o "$dir/time.txt" \
    "$bin" prepare --store "$dir/store" "${flags[@]}" "$dir/prompt.md" > "$dir/out.json"
  read -r wall user sys rss_kb < "$dir/time.txt"
  awk -v b="$bytes" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss_kb" -v n="$run" -v m="$mode" \
    'BEGIN { printf "run %d (%s): %.0f MB in %.2f s wall (%.2f s CPU) = %.0f MB/s, peak RSS %.1f MiB\n", n, m, b/1e6, w, u+s, b/1e6/w, r/1024 }'
done
if [ "$mode" = spill ]; then
  grep -o 'fullSnapshot[^}]*}' "$dir/out.json" | head -1
  ls -l "$spill_dir"
fi
