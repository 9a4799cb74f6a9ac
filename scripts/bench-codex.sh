#!/usr/bin/env bash
# Throughput and peak memory of `prepare` and `candidates` on large Codex
# rollouts (docs/agent-logs.md, "Codex" → "Figures").
#   scripts/bench-codex.sh [SIZE_MB]   (default 100)
# Generates, once (bench-data is gitignored), from the 0.125 fixture:
#   codex-SIZE/items/   its lines repeated to SIZE MB, a `compacted` line
#                       (readable summary, one history message) every 50
#                       repetitions;
#   codex-SIZE/events/  the same with only its `event_msg` lines: an
#                       events-only rollout, which a read passes twice.
# Then runs the release binary three times per case under /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-100}
dir=bench-data/codex-$size
# A real rollout, read where it is kept (the project does not copy it).
fixture=../shared/real-logs/codex/2026/05/11/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl
[ -f "$fixture" ] || { echo "skipped: $fixture is absent" >&2; exit 0; }
command -v /usr/bin/time >/dev/null || { apt-get update -qq && apt-get install -y -qq time >/dev/null; }
cargo build --release --quiet --bin hydra-session-lsp
bin=target/release/hydra-session-lsp
if [ ! -f "$dir/events/rollout-events.jsonl" ]; then
  mkdir -p "$dir/items" "$dir/events"
  python3 - "$fixture" "$dir" "$size" <<'PY'
import json, sys
fixture, out, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
lines = open(fixture, encoding="utf-8").read().split("\n")[:-1]
meta, body = lines[0], lines[1:]
def write(path, meta, body):
    with open(path, "w", encoding="utf-8") as f:
        f.write(meta + "\n")
        n, rep = len(meta) + 1, 0
        while n < size * 1024 * 1024:
            for line in body:
                f.write(line + "\n")
                n += len(line.encode()) + 1
            rep += 1
            if rep % 50 == 0:
                c = json.dumps({"timestamp": "2026-05-11T09:00:00.000Z", "type": "compacted",
                    "payload": {"message": f"summary {rep}", "replacement_history": [
                        {"type": "message", "role": "user",
                         "content": [{"type": "input_text", "text": f"kept {rep}"}]}]}})
                f.write(c + "\n")
                n += len(c) + 1
write(f"{out}/items/rollout-items.jsonl", meta, body)
m = json.loads(meta)
m["payload"]["id"] = "events-only-big"
write(f"{out}/events/rollout-events.jsonl", json.dumps(m),
      [l for l in body if json.loads(l)["type"] == "event_msg"])
PY
fi
for case in items events; do
  log=$(ls "$dir/$case"/*.jsonl)
  bytes=$(stat -c %s "$log")
  id=$([ "$case" = items ] && echo 019e1625-789d-76c0-80ab-3724b5ddb799 || echo events-only-big)
  printf 'Summarise @[big](%s)\n' "$($bin uri encode -- "$id" | tr -d '"')" > "$dir/prompt-$case.md"
  cat "$log" > /dev/null   # warm the page cache
  for command in prepare candidates; do
    for run in 1 2 3; do
      if [ "$command" = prepare ]; then
        /usr/bin/time -f '%e %M' -o "$dir/time.txt" $bin prepare --store "$dir/$case" "$dir/prompt-$case.md" > "$dir/out.json"
      else
        /usr/bin/time -f '%e %M' -o "$dir/time.txt" $bin candidates --store "$dir/$case" > /dev/null
      fi
      read -r wall rss_kb < "$dir/time.txt"
      awk -v b="$bytes" -v w="$wall" -v r="$rss_kb" -v c="$case" -v m="$command" -v n="$run" \
        'BEGIN { printf "%s %s run %d: %.0f MB in %.2f s = %.0f MB/s, peak RSS %.1f MiB\n", c, m, n, b/1e6, w, b/1e6/w, r/1024 }'
    done
  done
done
