#!/usr/bin/env bash
# The team store against a local SeaweedFS (`weed mini`, tests/team/install.sh):
#   scripts/bench-team.sh [SESSIONS]   (default 10000)
# 1. publishing one 10 MB session (three runs, each a new version);
# 2. publishing SESSIONS small sessions in one command, then listing them
#    with `candidates --store s3://…` cold (an empty cache) and warm (the
#    same cache, again), three runs each;
# 3. completion p50/p95 at the language server's client with those
#    sessions as a local store, then as the team store.
# Uses the release binary (BENCH_BINARY=path measures another build).
# Everything lives in bench-data/team (gitignored); the server is stopped
# at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
sessions=${1:-10000}
bin=${BENCH_BINARY:-target/release/hydra-session-lsp}
[ -n "${BENCH_BINARY:-}" ] || cargo build --release --quiet --bin hydra-session-lsp
weed=$(bash tests/team/install.sh | sed -n 's/^WEED=//p')
dir=$PWD/bench-data/team
rm -rf "$dir" && mkdir -p "$dir/data" "$dir/big" "$dir/many"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
port=$(free_port)
cat >"$dir/s3.json" <<'JSON'
{"identities":[{"name":"bench","credentials":[{"accessKey":"bench","secretKey":"bench-secret"}],"actions":["Admin","Read","Write","List","Tagging"]}]}
JSON
args=(mini -dir="$dir/data" -ip=127.0.0.1 -ip.bind=127.0.0.1 -admin.ui=false -webdav=false
  -s3.config="$dir/s3.json" -bucket=bench -s3.port="$port")
for name in master.port volume.port filer.port s3.port.grpc master.port.grpc volume.port.grpc \
  filer.port.grpc s3.port.iceberg s3.port.lance admin.port admin.port.grpc metricsPort; do
  args+=("-$name=$(free_port)")
done
"$weed" "${args[@]}" >"$dir/weed.log" 2>&1 &
weed_pid=$!
trap 'kill "$weed_pid" 2>/dev/null || true' EXIT
until curl -s -o /dev/null "http://127.0.0.1:$port/healthz"; do
  kill -0 "$weed_pid" || { echo "weed mini died" >&2; exit 1; }
  sleep 0.2
done
export AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench-secret AWS_REGION=us-east-1
export AWS_ENDPOINT=http://127.0.0.1:$port AWS_ALLOW_HTTP=true AWS_EC2_METADATA_DISABLED=true
export XDG_CACHE_HOME=$dir/cache
url=s3://bench/team
# Readiness of the bucket: a publish that succeeds.
python3 - "$dir/probe" <<'PY'
import json, os, sys
os.makedirs(sys.argv[1], exist_ok=True)
with open(os.path.join(sys.argv[1], "p.jsonl"), "w") as f:
    f.write(json.dumps({"type": "session", "id": "probe", "createdAt": 1}) + "\n")
PY
until "$bin" publish --store "$dir/probe" --to "$url" --as bench probe >/dev/null 2>&1; do sleep 0.2; done

# 1. One 10 MB session: 10,000 messages of about 1 KB of words.
gen_big() {
  python3 - "$dir/big/big.jsonl" "$1" <<'PY'
import json, random, sys
random.seed(7)
words = "the tax rounding cart line order total cent checkout fix test price sum".split()
with open(sys.argv[1], "w") as f:
    f.write(json.dumps({"type": "session", "version": 1, "id": "big", "createdAt": 1764400000000, "cwd": "/w"}) + "\n")
    for seq in range(1, 10_001):
        text = " ".join(random.choice(words) for _ in range(190))
        kind = "user/message" if seq % 2 else "assistant/message"
        data = ({"source": {"kind": "user"}, "content": [{"type": "text", "text": text}]} if seq % 2
                else {"message": {"content": [{"type": "text", "text": text}]}})
        f.write(json.dumps({"seq": seq, "type": kind, "data": data}) + "\n")
    f.write(json.dumps({"seq": 10_001, "type": "session/title", "data": {"title": "run " + sys.argv[2]}}) + "\n")
PY
}
for run in 1 2 3; do
  gen_big "$run"
  start=$(date +%s.%N)
  "$bin" publish --store "$dir/big" --to "$url" --as bench big >"$dir/big.json"
  end=$(date +%s.%N)
  printf 'publish 10 MB (run %s): %.3f s, %s bytes\n' "$run" "$(echo "$end - $start" | bc)" \
    "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["bytes"])' "$dir/big.json")"
done

# 2. SESSIONS small sessions, published in one command, then listed.
python3 - "$dir/many" "$sessions" <<'PY'
import json, os, sys
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    with open(os.path.join(root, f"s{i:05}.jsonl"), "w") as f:
        f.write(json.dumps({"type": "session", "version": 1, "id": f"s{i:05}", "createdAt": 1764400000000 + i}) + "\n")
        f.write(json.dumps({"seq": 1, "type": "user/message", "data": {"source": {"kind": "user"}, "content": [{"type": "text", "text": f"session {i}"}]}}) + "\n")
PY
ids=$(cd "$dir/many" && ls | sed 's/\.jsonl$//')
start=$(date +%s.%N)
# shellcheck disable=SC2086
"$bin" publish --store "$dir/many" --to "$url" --as bench --format mention $ids >/dev/null
end=$(date +%s.%N)
printf 'publish %s sessions in one command: %.1f s\n' "$sessions" "$(echo "$end - $start" | bc)"
for run in 1 2 3; do
  rm -rf "$dir/cache"
  start=$(date +%s.%N)
  "$bin" candidates --store "$url" --limit 1 >/dev/null
  mid=$(date +%s.%N)
  "$bin" candidates --store "$url" --limit 1 >/dev/null
  end=$(date +%s.%N)
  printf 'list %s published sessions (run %s): cold %.3f s, warm %.3f s\n' "$sessions" "$run" \
    "$(echo "$mid - $start" | bc)" "$(echo "$end - $mid" | bc)"
done

# 3. Completion p50/p95 at the language server's client, the same
#    sessions as a local store and as the team store (listed from the
#    warm cache the runs above left; it also holds `probe` and `big`):
#    a team store costs completion nothing once listed (network work is
#    never on a keystroke's path).
printf 'completion, %s sessions as a local store: %s\n' "$sessions" \
  "$(python3 scripts/completion_p95.py "$bin" "$sessions" "$dir/many")"
printf 'completion, %s sessions as the team store: %s\n' "$sessions" \
  "$(python3 scripts/completion_p95.py "$bin" "$((sessions + 2))" "$url")"
