#!/usr/bin/env python3
"""Wall time of whole `hydra-session-lsp hook claude-code` processes.

Claude Code runs the hook on every prompt, so a prompt without mentions
must cost nothing noticeable (target: <= 20 ms for the whole process).
Each case spawns the release binary RUNS times with a recorded hook input
of the documented shape on stdin and reports min / median / p95 / max of
the wall time from spawn to exit, as seen by the caller.

    cargo build --release
    python3 scripts/bench-hook.py [RUNS]      # default 200

The default stores are those of a fresh home: the demo store as the hydra
store, and ~/.claude/projects holding 1,000 copies of a real 17 KB Claude
Code transcript, each under its own sessionId.
"""

import base64
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "hydra-session-lsp")
STORE = os.path.join(ROOT, "examples", "sessions")
RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 200


def uri(session_id):
    raw = json.dumps(session_id).encode()
    return "hydra-session:" + base64.urlsafe_b64encode(raw).decode().rstrip("=")


def hook_input(prompt):
    return json.dumps(
        {
            "session_id": "0b7c4b6e-9f7e-4c1a-8a47-3c9e7d1f2a10",
            "transcript_path": "/home/ana/.claude/projects/-home-ana-shop/0b7c4b6e.jsonl",
            "cwd": "/home/ana/shop",
            "permission_mode": "default",
            "hook_event_name": "UserPromptSubmit",
            "prompt": prompt,
        }
    ).encode()


def measure(name, args, stdin, env, runs):
    times = []
    out = b""
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run([BIN] + args, input=stdin, env=env, capture_output=True)
        times.append((time.perf_counter() - start) * 1000)
        if done.returncode != 0:
            sys.exit(f"{name}: exit {done.returncode}: {done.stderr.decode()}")
        out = done.stdout
    times.sort()
    p95 = times[min(len(times) - 1, int(len(times) * 0.95))]
    print(
        f"| {name} | {len(stdin):,} | {runs} | {times[0]:.1f} | {statistics.median(times):.1f} "
        f"| {p95:.1f} | {times[-1]:.1f} | {len(out):,} |"
    )


CLAUDE_FIXTURE = os.path.join(
    ROOT, "tests", "fixtures", "agents", "claude-code", "-tmp-private",
    "4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl",
)
FIXTURE_ID = "4c2ddfdc-b619-4525-8d03-1950fb1b0257"


def claude_projects(root, sessions, projects=50):
    """A ~/.claude/projects tree of `sessions` transcripts (a real 17 KB
    transcript from the fixtures, each under its own sessionId)."""
    text = open(CLAUDE_FIXTURE, encoding="utf-8").read()
    ids = []
    for i in range(sessions):
        sid = f"00000000-0000-4000-8000-{i:012d}"
        folder = os.path.join(root, f"-home-ana-project-{i % projects}")
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, sid + ".jsonl"), "w", encoding="utf-8") as f:
            f.write(text.replace(FIXTURE_ID, sid))
        ids.append(sid)
    return ids


def main():
    if not os.path.exists(BIN):
        sys.exit("build first: cargo build --release")
    home = tempfile.mkdtemp()
    env = {k: v for k, v in os.environ.items() if k not in ("HYDRA_SESSION_STORE", "HYDRA_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME")}
    # Default stores, as installed: a home with a hydra store (the demo
    # store) and a Claude Code projects folder of 1,000 transcripts (read
    # when this build knows the claude-code format).
    env["HOME"] = home
    env["HYDRA_SESSION_STORE"] = STORE
    claude_ids = claude_projects(os.path.join(home, ".claude", "projects"), 1000)
    hook = ["hook", "claude-code"]
    typical = "Refactor the checkout module so that tax is rounded once per cart, and add tests."
    mention = f"Reuse the cases of @[test-writer]({uri('checkout-tax.test-writer')}) for the 3-item cart."
    big = ("lorem ipsum dolor sit amet, @someone said hydra-session\n" * 190_000)[: 10 * 1024 * 1024]
    many = " ".join(f"@[s{i}]({uri(f's{i}')})" for i in range(10_000))
    print("| case | stdin bytes | runs | min ms | median ms | p95 ms | max ms | stdout bytes |")
    print("|---|---|---|---|---|---|---|---|")
    measure("no mention (typical prompt)", hook, hook_input(typical), env, RUNS)
    measure("no mention, 10 MB prompt", hook, hook_input(big), env, max(5, RUNS // 20))
    measure("one mention (demo store)", hook, hook_input(mention), env, RUNS)
    cc_mention = f"Continue from @[hello files]({uri(claude_ids[500])})."
    measure("one mention of a Claude Code session (1,000 transcripts)", hook, hook_input(cc_mention), env, max(5, RUNS // 4))
    measure("10,000 distinct sessions (TOO_MANY)", hook, hook_input(many), env, max(5, RUNS // 10))
    measure("baseline: `true`-like (`--version`)", ["--version"], b"", env, RUNS)


if __name__ == "__main__":
    main()
