#!/usr/bin/env python3
"""The prompt hook in agents beyond Claude Code and Codex (issue 25 item 5):
`hook gemini` under the real Gemini CLI 0.61.0 and `hook qwen` under the real
Qwen Code 0.24.4, each against the fake model API on 127.0.0.1 that records
every request.

    python3 hooks_more_test.py SERVER STORE INSTALL_OUT [AGENT...]

SERVER is the built hydra-session-lsp, STORE a hydra session store (the demo
store), INSTALL_OUT install.sh's NAME=PATH lines; AGENT names (gemini qwen)
pick groups, default both. Each agent runs with a private HOME in a temporary
directory and under `timeout`; the hook is installed from its own
`--print-config` into that HOME's settings.json.

Prints one "PASS name" / "FAIL name: why" line per check; exits 1 on any
failure.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
from harness import Sandbox, check, failed_checks, holds, tail  # noqa: E402

SERVER, STORE, INSTALL_OUT = (os.path.abspath(a) for a in sys.argv[1:4])
ONLY = sys.argv[4:]
FAKE_KEY = "fake-key-for-tests-0123456789"
MODEL = "gpt-fake"
SESSION_TITLE = "Checkout tax rounding"
GOOD_PROMPT = f"Look at @[{SESSION_TITLE}](hydra-session:ImNoZWNrb3V0LXRheCI) and summarise it."
BAD_PROMPT = "Look at @[Nowhere](hydra-session:Im5vd2hlcmUtMTIzIg) and summarise it."
BAD_ID = "nowhere-123"
SERVER_CACHE = tempfile.mkdtemp(prefix="hydra-hooks-cache.")


def installed():
    out = {}
    with open(INSTALL_OUT) as f:
        for line in f:
            name, _, path = line.strip().partition("=")
            if path:
                out[name] = path
    return out


def server(*args):
    p = subprocess.run(
        ["timeout", "--kill-after=5", "60", SERVER] + list(args),
        capture_output=True,
        text=True,
        env=dict(os.environ, XDG_CACHE_HOME=SERVER_CACHE),
    )
    return p.returncode, p.stdout, p.stderr


def install_hook(sb, agent, event, config_dir, group, extra=None):
    """settings.json from `hook AGENT --print-config`; returns (the one
    command it runs, what that command answers for GOOD_PROMPT), or None."""
    status, printed, err = server("hook", agent, "--store", STORE, "--print-config")
    if not check(f"{group}: hook {agent} --print-config prints the settings", status == 0, err):
        return None
    settings = json.loads(printed)
    commands = [h["command"] for g in settings["hooks"][event] for h in g["hooks"] if h.get("type") == "command"]
    if not check(f"{group}: the settings run one command hook on {event}", len(commands) == 1, printed):
        return None
    os.makedirs(config_dir, exist_ok=True)
    with open(os.path.join(config_dir, "settings.json"), "w") as f:
        json.dump(dict(settings, **(extra or {})), f)
    payload = {"session_id": f"{agent}-test", "cwd": sb.project, "hook_event_name": event, "prompt": GOOD_PROMPT}
    p = subprocess.run(
        ["timeout", "60", "sh", "-c", commands[0]],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=sb.env({}),
        cwd=sb.project,
    )
    answer = json.loads(p.stdout) if p.stdout.strip() else {}
    context = answer.get("hookSpecificOutput", {}).get("additionalContext", "")
    check(
        f"{group}: the hook answers {event} with context for a mention",
        "<referenced-sessions>" in context and answer["hookSpecificOutput"].get("hookEventName") == event,
        tail(p.stdout + p.stderr),
    )
    return answer


def escaped(text):
    """What both agents make of a hook's context: `<` and `>` as entities
    (Gemini CLI's `getAdditionalContext`; Qwen Code's sanitising)."""
    return text.replace("<", "&lt;").replace(">", "&gt;")


# ---- Gemini CLI --------------------------------------------------------------


def test_gemini(gemini):
    group = "gemini hook"
    sb = Sandbox(SERVER, "gemini")
    try:
        config_dir = os.path.join(sb.home, ".gemini")
        # The fake key's auth type, chosen as the settings dialog would.
        auth = {"security": {"auth": {"selectedType": "gemini-api-key"}}}
        answer = install_hook(sb, "gemini", "BeforeAgent", config_dir, group, auth)
        if answer is None:
            return
        context = answer.get("hookSpecificOutput", {}).get("additionalContext", "")
        env = sb.env(
            {
                "GEMINI_API_KEY": FAKE_KEY,
                "GOOGLE_GEMINI_BASE_URL": sb.api.url,
                "GEMINI_CLI_TRUST_WORKSPACE": "true",
            }
        )
        argv = [gemini, "-m", "gemini-2.5-flash", "-p"]
        run = sb.run(argv + [GOOD_PROMPT], env)
        wrapped = f"<hook_context>{escaped(context)}</hook_context>"
        got = [r for r in sb.api.requests(":streamGenerateContent") if holds(r["body"], GOOD_PROMPT)]
        check(
            "gemini hook: gemini -p sends the context (its <> escaped, in <hook_context>) in the model request",
            run.returncode == 0 and bool(context) and any(holds(r["body"], wrapped) for r in got),
            f"status {run.returncode}, {len(got)} requests with the prompt; stderr {tail(run.stderr)}",
        )
        # Headless, Gemini CLI writes a hook's systemMessage to stderr as
        # "Hook system message: …" (processCommonHookOutputFields).
        message = answer.get("systemMessage") or ""
        check(
            "gemini hook: the systemMessage is shown to the person",
            bool(message) and f"Hook system message: {message}" in run.stderr,
            f"hook systemMessage {message!r}; stderr {tail(run.stderr)}",
        )
        before = len(sb.api.requests(":streamGenerateContent"))
        run = sb.run(argv + [BAD_PROMPT], env)
        said = run.stdout + run.stderr
        check(
            "gemini hook: a bad mention blocks the prompt (no model request, the reason shown)",
            len(sb.api.requests(":streamGenerateContent")) == before and BAD_ID in said and "not found" in said,
            f"status {run.returncode}; output {tail(said)}",
        )
    finally:
        sb.close()


# ---- Qwen Code ---------------------------------------------------------------


def test_qwen(qwen):
    group = "qwen hook"
    sb = Sandbox(SERVER, "qwen-hook")
    try:
        config_dir = os.path.join(sb.home, ".qwen")
        answer = install_hook(sb, "qwen", "UserPromptSubmit", config_dir, group)
        if answer is None:
            return
        context = answer.get("hookSpecificOutput", {}).get("additionalContext", "")
        env = sb.env(
            {
                "OPENAI_BASE_URL": sb.api.url + "/v1",
                "OPENAI_API_KEY": FAKE_KEY,
                "OPENAI_MODEL": MODEL,
                "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1",
            }
        )
        argv = [qwen, "--auth-type", "openai", "-m", MODEL, "-p"]
        # As sessions_test.py gives it: after its reply Qwen Code may run a
        # memory-extraction sub-agent before it exits. The request is
        # what is checked, whatever the exit.
        run = sb.run(argv + [GOOD_PROMPT], env, seconds=120)
        wrapped = f"<qwen:user-prompt-submit-context>\n{escaped(context)}\n</qwen:user-prompt-submit-context>"
        got = [r for r in sb.api.requests("/chat/completions") if holds(r["body"], GOOD_PROMPT)]
        check(
            "qwen hook: qwen -p sends the context (its <> escaped, in its tag) in the model request",
            bool(context) and any(holds(r["body"], wrapped) for r in got),
            f"status {run.returncode}, {len(got)} requests with the prompt; stderr {tail(run.stderr)}",
        )
        before = len(sb.api.requests("/chat/completions"))
        run = sb.run(argv + [BAD_PROMPT], env, seconds=120)
        said = run.stdout + run.stderr
        # Headless, Qwen Code ends a blocked turn with an empty result and
        # shows neither the reason nor a systemMessage (0.24.4 `-p`).
        check(
            "qwen hook: a bad mention blocks the prompt (no model request)",
            run.returncode == 0 and not sb.api.requests("/chat/completions")[before:],
            f"status {run.returncode}; output {tail(said)}",
        )
    finally:
        sb.close()


def main():
    agents = installed()
    groups = {"gemini": test_gemini, "qwen": test_qwen}
    for name, test in groups.items():
        if ONLY and name not in ONLY:
            continue
        if not check(f"{name} hook: {name} is installed", name in agents, sorted(agents)):
            continue
        try:
            test(agents[name])
        except Exception as e:  # one broken group is one failure; the rest still run
            check(f"{name} hook: ran to the end", False, f"{type(e).__name__}: {e}")
    shutil.rmtree(SERVER_CACHE, ignore_errors=True)
    sys.exit(1 if failed_checks else 0)


if __name__ == "__main__":
    main()
