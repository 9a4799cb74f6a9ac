#!/usr/bin/env bash
# Throughput and peak memory of `prepare` on one generated Claude Code
# transcript (two passes over the file: tree, then the live branch).
#   scripts/bench-prepare-claude.sh [SIZE_MB]   (default 100; try 1000)
# Generates bench-data/claude-SIZE/ once (gitignored), then runs the release
# binary three times under /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-100}
dir=bench-data/claude-$size
id=bench-claude-0000-0000-000000000000
command -v /usr/bin/time >/dev/null || { apt-get update -qq && apt-get install -y -qq time >/dev/null; }
cargo build --release --quiet --example gen_claude_log --bin hydra-session-lsp
[ -f "$dir/store/-home-ana-shop/$id.jsonl" ] || target/release/examples/gen_claude_log "$dir/store/-home-ana-shop/$id.jsonl" "$size"
bytes=$(stat -c %s "$dir/store/-home-ana-shop/$id.jsonl")
printf 'Summarise @[big](%s)\n' "$(target/release/hydra-session-lsp uri encode "$id" | tr -d '"')" > "$dir/prompt.md"
cat "$dir/store/-home-ana-shop/$id.jsonl" > /dev/null   # warm the page cache
for run in 1 2 3; do
  /usr/bin/time -f '%e %U %S %M' -o "$dir/time.txt" \
    target/release/hydra-session-lsp prepare --store "$dir/store" "$dir/prompt.md" > "$dir/out.json"
  read -r wall user sys rss_kb < "$dir/time.txt"
  awk -v b="$bytes" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss_kb" -v n="$run" \
    'BEGIN { printf "run %d: %.0f MB in %.2f s wall (%.2f s CPU) = %.0f MB/s, peak RSS %.1f MiB\n", n, b/1e6, w, u+s, b/1e6/w, r/1024 }'
done
