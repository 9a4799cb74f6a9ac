#!/usr/bin/env python3
"""The prompt hook in agents beyond Claude Code and Codex (issue 25 item 5):
`hook gemini` under the real Gemini CLI 0.61.0, `hook qwen` under the real
Qwen Code 0.24.4 and `hook copilot` under the real Copilot CLI 1.0.102, each
against the fake model API on 127.0.0.1 that records every request; and the
two agents whose packages name a prompt hook that cannot add context,
checked so that the README's word on them holds: Cline 3.0.65 (hook files
in ~/.cline/hooks/, their `contextModification` never reaches the model)
and Continue CLI 1.5.47 (Claude Code's settings.json hooks, never run).

    python3 hooks_more_test.py SERVER STORE INSTALL_OUT [AGENT...]

SERVER is the built hydra-session-lsp, STORE a hydra session store (the demo
store), INSTALL_OUT install.sh's NAME=PATH lines; AGENT names (gemini qwen
cline continue copilot) pick groups, default all. Each agent runs with a
private HOME in a temporary directory and under `timeout`; the hook is
installed from its own `--print-config` into that HOME (settings.json, or
Copilot CLI's ~/.copilot/hooks/).

Prints one "PASS name" / "FAIL name: why" line per check; exits 1 on any
failure.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
from harness import Sandbox, Tmux, check, failed_checks, holds, tail, wait_for  # noqa: E402

SERVER, STORE, INSTALL_OUT = (os.path.abspath(a) for a in sys.argv[1:4])
ONLY = sys.argv[4:]
FAKE_KEY = "fake-key-for-tests-0123456789"
MODEL = "gpt-fake"
SESSION_TITLE = "Checkout tax rounding"
GOOD_PROMPT = f"Look at @[{SESSION_TITLE}](hydra-session:ImNoZWNrb3V0LXRheCI) and summarise it."
BAD_PROMPT = "Look at @[Nowhere](hydra-session:Im5vd2hlcmUtMTIzIg) and summarise it."
BAD_ID = "nowhere-123"
# Typed into a TUI: no `@`, which would open a picker there.
TYPED_PROMPT = "Summarise the checkout tax rounding once more"
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


def install_hook(sb, agent, event, config_dir, group, extra=None, wrap=None):
    """settings.json from `hook AGENT --print-config`; returns what its one
    command answers for GOOD_PROMPT, or None. wrap(command) is the command
    written to settings.json instead (the printed one is what is run here)."""
    status, printed, err = server("hook", agent, "--store", STORE, "--print-config")
    if not check(f"{group}: hook {agent} --print-config prints the settings", status == 0, err):
        return None
    settings = json.loads(printed)
    commands = [h["command"] for g in settings["hooks"][event] for h in g["hooks"] if h.get("type") == "command"]
    if not check(f"{group}: the settings run one command hook on {event}", len(commands) == 1, printed):
        return None
    os.makedirs(config_dir, exist_ok=True)
    written = settings
    if wrap:
        written = json.loads(printed)
        for g in written["hooks"][event]:
            for h in g["hooks"]:
                h["command"] = wrap(h["command"])
    with open(os.path.join(config_dir, "settings.json"), "w") as f:
        json.dump(dict(written, **(extra or {})), f)
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


# ---- Cline: hook files whose prompt hook cannot add context ----------------


def cline_daemons(home):
    """Pids of Cline hub daemons whose HOME is this sandbox's (the TUI may
    start one that outlives it)."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
            with open(f"/proc/{entry}/environ", "rb") as f:
                environ = f.read().split(b"\0")
        except OSError:
            continue
        if b"--cline-hub-daemon" in argv and b"HOME=" + home.encode() in environ:
            pids.append(int(entry))
    return pids


def stop_cline_daemons(home):
    for pid in cline_daemons(home):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
        wait_for(lambda: not os.path.exists(f"/proc/{pid}/cmdline"), 10)


def cline_hook_file(path, log, marker):
    """A hook file as Cline runs it (by its shebang, its JSON payload on
    stdin): it keeps the payload and answers a contextModification."""
    with open(path, "w") as f:
        f.write(f"#!/bin/sh\ncat > '{log}'\nprintf '%s\\n' '{json.dumps({'contextModification': marker})}'\n")
    os.chmod(path, 0o755)


def test_cline(cline):
    group = "cline hook"
    sb = Sandbox(SERVER, "cline-hook")
    tui = None
    try:
        # Hook files by event name in ~/.cline/hooks/ (@cline/shared
        # `resolveHooksConfigSearchPaths`): UserPromptSubmit, the prompt
        # hook, and TaskStart, which shows hook files run at all.
        hooks = os.path.join(sb.home, ".cline", "hooks")
        os.makedirs(hooks)
        logs = {name: os.path.join(sb.root, f"{name}.json") for name in ("UserPromptSubmit", "TaskStart")}
        markers = {name: f"MARKER-{name}-context" for name in logs}
        for name, log in logs.items():
            cline_hook_file(os.path.join(hooks, name), log, markers[name])
        env = sb.env({"CLINE_SESSION_BACKEND_MODE": "local"})
        auth = sb.run([cline, "auth", "-p", "openai", "-k", FAKE_KEY, "-m", MODEL, "-b", sb.api.url + "/v1"], env)
        if not check(f"{group}: cline auth (the fake API)", auth.returncode == 0, tail(auth.stdout + auth.stderr)):
            return
        run = sb.run([cline, "--json", GOOD_PROMPT], env, seconds=120)
        # Cline runs these hooks detached: their files may come after it exits.
        started = wait_for(lambda: os.path.exists(logs["TaskStart"]), 15)
        check(
            f"{group}: cline --json runs the TaskStart hook file (hook files are on)",
            run.returncode == 0 and started,
            f"status {run.returncode}; stderr {tail(run.stderr)}",
        )
        # In the TUI, where a person types prompts.
        tui = Tmux(sb, "cline-hook", [cline], env)
        tui.shows("Ask anything", seconds=60)
        typed = False
        for _ in range(3):
            tui.type(TYPED_PROMPT)
            typed = tui.shows(TYPED_PROMPT[:30], seconds=10)
            if typed:
                break
            tui.keys("C-u")
        tui.keys("Enter")
        answered = wait_for(lambda: any(holds(r["body"], TYPED_PROMPT) for r in sb.api.requests("/chat/completions")), 60)
        check(f"{group}: the TUI sends a typed prompt", typed and bool(answered), tail(tui.screen()))
        tui.close()
        tui = None
        stop_cline_daemons(sb.home)
        requests = sb.api.requests("/chat/completions")
        leaked = [m for m in markers.values() if any(holds(r["body"], m) for r in requests)]
        ran = sorted(name for name, log in logs.items() if os.path.exists(log))
        # 3.0.65 runs UserPromptSubmit and TaskStart detached, their stdout
        # unread (`createHookConfigFileHooks` in @cline/core, no
        # `detachAsyncHooks`/`blockingRunStartHooks` from the CLI): if this
        # fails, Cline now reads them, and `hook cline` can be written.
        check(
            f"{group}: no hook file's contextModification reaches a model request (no prompt hook can add context)",
            bool(requests) and not leaked,
            f"{len(requests)} requests; markers sent: {leaked}; hook files that ran: {ran}",
        )
        print(f"NOTE {group}: hook files that ran: {', '.join(ran) or 'none'}", flush=True)
    finally:
        if tui:
            tui.close()
        stop_cline_daemons(sb.home)
        sb.close()


# ---- Continue: Claude Code's hooks read, never run --------------------------


def test_continue(cn):
    group = "continue hook"
    sb = Sandbox(SERVER, "continue-hook")
    try:
        # cn reads Claude Code's settings.json shape from ~/.continue/ (and
        # ~/.claude/), src/hooks/hookConfig.ts; the command is the printed
        # one behind a `tee` that shows whether cn ran it.
        log = os.path.join(sb.root, "UserPromptSubmit.json")
        config_dir = os.path.join(sb.home, ".continue")
        answer = install_hook(
            sb, "claude-code", "UserPromptSubmit", config_dir, group, wrap=lambda command: f"tee '{log}' | {command}"
        )
        if answer is None:
            return
        context = answer.get("hookSpecificOutput", {}).get("additionalContext", "")
        config = os.path.join(sb.root, "continue-config.yaml")
        with open(config, "w") as f:
            f.write(
                "name: Fake\nversion: 1.0.0\nschema: v1\nmodels:\n"
                f"  - name: {MODEL}\n    provider: openai\n    model: {MODEL}\n"
                f"    apiBase: {sb.api.url}/v1\n    apiKey: {FAKE_KEY}\n    roles: [chat, edit, apply]\n"
            )
        env = sb.env({"CONTINUE_CLI_DISABLE_TELEMETRY": "1"})
        run = sb.run([cn, "--config", config, "--auto", "-p", GOOD_PROMPT], env, seconds=120)
        got = [r for r in sb.api.requests("/chat/completions") if holds(r["body"], GOOD_PROMPT)]
        # 1.5.47 bundles the hook runner but fires no event from its agent
        # loop (dist/index.js calls no `fireUserPromptSubmit`): if this
        # fails, cn now runs the hook, and `hook claude-code` serves it.
        check(
            f"{group}: cn -p sends the prompt without running the UserPromptSubmit hook (no context)",
            run.returncode == 0 and bool(got) and not os.path.exists(log) and not any(holds(r["body"], context) for r in got),
            f"status {run.returncode}, {len(got)} requests; hook ran: {os.path.exists(log)}; stderr {tail(run.stderr)}",
        )
    finally:
        sb.close()


# ---- Copilot CLI ---------------------------------------------------------------


def test_copilot(copilot):
    group = "copilot hook"
    sb = Sandbox(SERVER, "copilot-hook")
    try:
        status, printed, err = server("hook", "copilot", "--store", STORE, "--print-config")
        if not check(f"{group}: hook copilot --print-config prints the hook file", status == 0, err):
            return
        hook_file = json.loads(printed)
        handlers = hook_file["hooks"]["userPromptSubmitted"]
        if not check(f"{group}: the file runs one command on userPromptSubmitted", len(handlers) == 1 and handlers[0]["type"] == "command", printed):
            return
        # The user-level hooks folder: every *.json there is a hook file.
        hooks = os.path.join(sb.home, ".copilot", "hooks")
        os.makedirs(hooks)
        with open(os.path.join(hooks, "hydra-session.json"), "w") as f:
            f.write(printed)
        payload = {"sessionId": "copilot-test", "timestamp": 1796240170176, "cwd": sb.project, "prompt": GOOD_PROMPT}
        p = subprocess.run(
            ["timeout", "60", "sh", "-c", handlers[0]["bash"]],
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            env=sb.env({}),
            cwd=sb.project,
        )
        answer = json.loads(p.stdout) if p.stdout.strip() else {}
        context = answer.get("additionalContext", "")
        if not check(f"{group}: the hook answers a top-level additionalContext for a mention", "<referenced-sessions>" in context, tail(p.stdout + p.stderr)):
            return
        # Copilot CLI unpacks itself into its package cache on a first run:
        # the clone's one cache, as more_agents_test.py shares it.
        pkg_cache = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(copilot))), "copilot-pkg")
        os.makedirs(pkg_cache, exist_ok=True)
        env = sb.env(
            {
                "COPILOT_PKG_CACHE_HOME": pkg_cache,
                "COPILOT_OFFLINE": "true",
                "COPILOT_AUTO_UPDATE": "false",
                "COPILOT_PROVIDER_BASE_URL": sb.api.url + "/v1",
                "COPILOT_PROVIDER_API_KEY": FAKE_KEY,
                "COPILOT_MODEL": MODEL,
            }
        )
        run = sb.run([copilot, "-p", GOOD_PROMPT], env, seconds=240)
        # Copilot CLI 1.0.102 appends the context to the user's message in
        # a <system_reminder>, verbatim.
        wrapped = f"<system_reminder>\n{context}\n</system_reminder>"
        got = [r for r in sb.api.requests("/chat/completions") if holds(r["body"], GOOD_PROMPT)]
        check(
            f"{group}: copilot -p sends the context (in <system_reminder>, verbatim) in the model request",
            run.returncode == 0 and any(holds(r["body"], wrapped) for r in got),
            f"status {run.returncode}, {len(got)} requests with the prompt; stderr {tail(run.stderr)}",
        )
        before = len(sb.api.requests("/chat/completions"))
        run = sb.run([copilot, "-p", BAD_PROMPT], env, seconds=240)
        said = run.stdout + run.stderr
        # Headless, Copilot CLI prints the block's reason as a warning
        # ("! …") and exits 1.
        check(
            f"{group}: a bad mention blocks the prompt (no model request, the reason shown)",
            len(sb.api.requests("/chat/completions")) == before and BAD_ID in said and "not found" in said,
            f"status {run.returncode}; output {tail(said)}",
        )
    finally:
        sb.close()


def main():
    agents = installed()
    groups = {"gemini": test_gemini, "qwen": test_qwen, "cline": test_cline, "continue": test_continue, "copilot": test_copilot}
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
