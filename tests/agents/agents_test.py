#!/usr/bin/env python3
"""Real-agent tests of hydra-session-lsp (issue 14): the real Claude Code and
Codex CLIs against a fake model API on 127.0.0.1 that records every request.

    python3 agents_test.py CLAUDE CODEX SERVER STORE

CLAUDE and CODEX are the installed agents (tests/agents/install.sh), SERVER
the built hydra-session-lsp, STORE a hydra session store (the demo store).
Every agent runs with a private HOME (and CLAUDE_CONFIG_DIR / CODEX_HOME in
it) in a temporary directory, so nothing on the machine is read or touched,
and under `timeout`. Synchronisation is on events: a run's exit, a recorded
request appearing, text on the tmux screen, each polled against a deadline.

Prints one "PASS name" / "FAIL name: why" line per check; exits 1 on any
failure.
"""

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
from harness import (  # noqa: E402
    Sandbox as _Sandbox,
    Tmux,
    check,
    failed_checks,
    holds,
    tail,
    wait_for,
)

HERE = os.path.dirname(os.path.abspath(__file__))
CLAUDE, CODEX, SERVER, STORE = (os.path.abspath(a) for a in sys.argv[1:5])
FAKE_KEY = "sk-ant-fake-key-for-tests-0123456789"
SESSION_ID = "checkout-tax"
SESSION_TITLE = "Checkout tax rounding"
GOOD_PROMPT = f"Look at @[{SESSION_TITLE}](hydra-session:ImNoZWNrb3V0LXRheCI) and summarise it."
BAD_PROMPT = "Look at @[Nowhere](hydra-session:Im5vd2hlcmUtMTIzIg) and summarise it."
BAD_ID = "nowhere-123"


def Sandbox(name, read_session=None):
    """A sandbox whose PATH runs the server under test."""
    return _Sandbox(SERVER, name, read_session)


# The server's own runs (print-config, prepare, candidates) spill, if ever,
# into a private cache, never the machine's.
SERVER_CACHE = tempfile.mkdtemp(prefix="hydra-agents-cache.")


def server(*args, stdin=None):
    """Runs the server under test; returns (status, stdout, stderr)."""
    p = subprocess.run(
        ["timeout", "--kill-after=5", "60", SERVER] + list(args),
        input=stdin,
        capture_output=True,
        text=True,
        env=dict(os.environ, XDG_CACHE_HOME=SERVER_CACHE),
    )
    return p.returncode, p.stdout, p.stderr


def prepared_context():
    """What `prepare` renders for a message citing the session by its
    canonical mention: the bytes the MCP resource and read_session carry."""
    status, out, err = server("prepare", "--store", STORE, "-", stdin=GOOD_PROMPT + "\n")
    if status != 0:
        raise RuntimeError(f"prepare failed: {err}")
    return "".join(c["text"] for c in json.loads(out)["additionalContext"]["content"])


def hook_command(config, event="UserPromptSubmit"):
    """The one command a printed hooks config runs on UserPromptSubmit."""
    commands = [
        h["command"]
        for group in config["hooks"][event]
        for h in group["hooks"]
        if h.get("type") == "command"
    ]
    if len(commands) != 1:
        raise ValueError(f"expected one command hook, got {commands}")
    return commands[0]


def hook_output(sandbox, command, prompt, agent_input):
    """Runs a hook command as the agent would, on the sandbox's PATH."""
    payload = dict(agent_input, hook_event_name="UserPromptSubmit", prompt=prompt, cwd=sandbox.project)
    p = subprocess.run(
        ["timeout", "60", "sh", "-c", command],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=sandbox.env({}),
        cwd=sandbox.project,
    )
    return json.loads(p.stdout) if p.stdout.strip() else {}


# ---- Claude Code -------------------------------------------------------------


def claude_config(sandbox):
    """The private config dir: onboarding done, the theme chosen, the fake
    key approved, the project folder trusted (no prompt at startup)."""
    config_dir = os.path.join(sandbox.home, ".claude")
    os.makedirs(config_dir, exist_ok=True)
    state = {
        "hasCompletedOnboarding": True,
        "theme": "dark",
        "autoUpdates": False,
        # Claude Code remembers an approved key by its last 20 characters.
        "customApiKeyResponses": {"approved": [FAKE_KEY[-20:]], "rejected": []},
        "projects": {
            sandbox.project: {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True}
        },
    }
    with open(os.path.join(config_dir, ".claude.json"), "w") as f:
        json.dump(state, f)
    return config_dir


def claude_env(sandbox, config_dir):
    return sandbox.env(
        {
            "CLAUDE_CONFIG_DIR": config_dir,
            "ANTHROPIC_BASE_URL": sandbox.api.url,
            "ANTHROPIC_API_KEY": FAKE_KEY,
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        }
    )


def messages_holding(api, needle):
    return [r for r in api.requests("/v1/messages") if holds(r["body"], needle)]


def install_claude_hook(sandbox, config_dir, group):
    """settings.json from `hook claude-code --print-config`; returns what
    the hook itself answers for GOOD_PROMPT (None when it cannot print)."""
    status, printed, err = server("hook", "claude-code", "--store", STORE, "--print-config")
    if not check(f"{group}: hook claude-code --print-config prints the settings", status == 0, err):
        return None
    settings = json.loads(printed)
    with open(os.path.join(config_dir, "settings.json"), "w") as f:
        json.dump(settings, f)
    return hook_output(sandbox, hook_command(settings), GOOD_PROMPT, {"session_id": "claude-test"})


def test_claude_hook():
    sb = Sandbox("claude-hook")
    try:
        config_dir = claude_config(sb)
        expected = install_claude_hook(sb, config_dir, "claude-code hook")
        if expected is None:
            return
        context = expected.get("hookSpecificOutput", {}).get("additionalContext", "")
        check("claude-code hook: the hook gives context for a mention", "<referenced-sessions>" in context, expected)

        env = claude_env(sb, config_dir)
        run = sb.run(
            [CLAUDE, "-p", "--output-format", "stream-json", "--verbose", "--include-hook-events", GOOD_PROMPT],
            env,
        )
        got = messages_holding(sb.api, GOOD_PROMPT)
        check(
            "claude-code hook: claude -p sends the context verbatim in the model request",
            run.returncode == 0 and context and any(holds(r["body"], context) for r in got),
            f"status {run.returncode}, {len(got)} requests with the prompt; stderr {tail(run.stderr)}",
        )
        # What Claude Code shows the person: an informational event with
        # each line of the systemMessage after "UserPromptSubmit says: ".
        shown = [
            e.get("content", "")
            for e in map(json.loads, filter(str.strip, run.stdout.splitlines()))
            if e.get("type") == "system" and e.get("subtype") == "informational"
        ]
        message = expected.get("systemMessage") or ""
        said = "\n".join(shown).splitlines()
        check(
            "claude-code hook: the systemMessage is shown to the person",
            bool(message) and all("UserPromptSubmit says: " + line in said for line in message.splitlines()),
            f"hook systemMessage {message!r}; shown {shown!r}",
        )

        before = len(sb.api.requests("/v1/messages"))
        run = sb.run([CLAUDE, "-p", BAD_PROMPT], env)
        said = run.stdout + run.stderr
        check(
            "claude-code hook: a bad mention blocks the prompt (no model request, the reason shown)",
            not messages_holding(sb.api, BAD_PROMPT)
            and len(sb.api.requests("/v1/messages")) == before
            and "blocked" in said
            and BAD_ID in said
            and "not found" in said,
            f"status {run.returncode}; output {tail(said)}",
        )
    finally:
        sb.close()


def mcp_add_command(agent, agent_bin, group, store=STORE):
    """The `<agent> mcp add …` line `mcp --print-config` prints, run with
    the installed agent; when there is none, the README's own command (and
    one failure, so the other checks still run)."""
    client = {"claude": "claude-code", "codex": "codex"}[agent]
    status, out, err = server("mcp", "--store", store, "--print-config", client)
    lines = [l for l in out.splitlines() if l.startswith(f"{agent} mcp add ")]
    if check(f"{group}: mcp --print-config {client} prints `{agent} mcp add …`", status == 0 and len(lines) == 1, tail(err or out)):
        return [agent_bin] + shlex.split(lines[0])[1:]
    scope = ["--scope", "user"] if agent == "claude" else []
    return [agent_bin, "mcp", "add", *scope, "hydra", "--", "hydra-session-lsp", "mcp", "--store", store]


def claude_menu_lists(tui, word, title, seconds):
    """Types ` @` and a word of a title into Claude Code's prompt until its
    menu lists that session (as hydra:<uri>, then its description)."""
    # The MCP server connects, and re-lists after a change, in the
    # background; a menu opened before that keeps what it had: clear the
    # line and type again until the session shows (or the deadline passes).
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        tui.keys("C-u")
        tui.keys(" @")
        # One word: after a space in the query Claude Code still lists the
        # match but replaces only the last word on Enter.
        tui.type(word)
        if tui.shows("hydra:session:", title + " — ", seconds=3):
            return True
    return False


def test_claude_mcp_interactive():
    sb = Sandbox("claude-mcp")
    tui = None
    try:
        config_dir = claude_config(sb)
        env = claude_env(sb, config_dir)
        expected = prepared_context()
        hooked = install_claude_hook(sb, config_dir, "claude-code tui") or {}
        # A copy of the demo store, which the test adds a session to.
        store = os.path.join(sb.root, "store")
        shutil.copytree(STORE, store)
        # Added the way `mcp --print-config claude-code` says, into the
        # private user config.
        add = sb.run(mcp_add_command("claude", CLAUDE, "claude-code mcp", store), env, seconds=60)
        if not check("claude-code mcp: claude mcp add hydra", add.returncode == 0, tail(add.stdout + add.stderr)):
            return
        tui = Tmux(sb, "claude", [CLAUDE], env)
        ready = tui.shows("Claude Code", "❯", seconds=60)
        if not check("claude-code mcp: the interactive prompt appears", ready, tail(tui.screen())):
            return
        listed = claude_menu_lists(tui, "Checkout", SESSION_TITLE, 60)
        if not check("claude-code mcp: ' @' + part of the title lists the session", listed, tail(tui.screen())):
            return
        # ↓ until the highlighted item (❯) is this session: other sessions
        # may match the word too (their ids or titles).
        def highlighted():
            return [l for l in tui.lines() if l.lstrip().startswith("❯ ◇")]

        chosen = False
        for _ in range(6):
            tui.keys("Down")
            chosen = wait_for(lambda: any(SESSION_TITLE + " — " in l for l in highlighted()), 3)
            if chosen:
                break
        tui.keys("Enter")
        inserted = wait_for(
            lambda: any(l.lstrip().startswith("❯") and "@hydra:session:" in l for l in tui.lines()), 10
        )
        if not check("claude-code mcp: ↓ and Enter put the session's resource in the prompt", chosen and inserted, tail(tui.screen())):
            return
        tui.keys("Enter")
        got = wait_for(lambda: [r for r in sb.api.requests("/v1/messages") if holds(r["body"], expected)], 60)
        check(
            "claude-code mcp: the session's context (prepare's bytes) reaches the model request",
            bool(got),
            f"{len(sb.api.requests('/v1/messages'))} requests, none holding the context; screen {tail(tui.screen())}",
        )
        # The hook in the same TUI: the person sees what was attached, and
        # why a prompt was blocked.
        if not tui.shows("Fake model reply.", " · done", seconds=30):
            check("claude-code tui: the first turn ends", False, tail(tui.screen()))
            return
        tui.paste(GOOD_PROMPT)
        tui.keys("Enter")
        message = (hooked.get("systemMessage") or "").splitlines()
        shown = bool(message) and tui.shows_message("UserPromptSubmit says: ", message)
        check(
            "claude-code tui: the hook's systemMessage is shown",
            shown,
            f"hook systemMessage {hooked.get('systemMessage')!r}; screen {tail(tui.screen())}",
        )
        # The second turn ends before the next prompt is typed.
        wait_for(lambda: tui.screen().count(" · done") >= 2, 30)
        tui.paste(BAD_PROMPT)
        tui.keys("Enter")
        blocked = tui.shows("blocked by hook", f'session "{BAD_ID}" not found')
        check(
            "claude-code tui: a bad mention is blocked with its reason shown, and nothing sent",
            blocked and not messages_holding(sb.api, BAD_PROMPT),
            f"screen {tail(tui.screen())}",
        )
        # A session that appears while Claude Code runs: the server's
        # list_changed makes Claude Code list it without a restart.
        write_session(store, "refund-policy", "Refund policy draft")
        check(
            "claude-code mcp: a session added to the store is listed without a restart",
            claude_menu_lists(tui, "Refund", "Refund policy draft", 45),
            tail(tui.screen()),
        )
    finally:
        if tui:
            tui.close()
        sb.close()


def tool_results(api, since=0):
    """The tool_result blocks of the Messages requests recorded from the
    since-th on."""
    return [
        block
        for r in api.requests("/v1/messages")[since:]
        for m in r["body"].get("messages") or []
        if isinstance(m, dict) and isinstance(m.get("content"), list)
        for block in m["content"]
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]


def test_claude_mcp_print():
    """claude -p attaches no resources: there the model reads a session
    through the read_session tool, allowed by the printed permission rule."""
    sb = Sandbox("claude-mcp-print", read_session=SESSION_ID)
    try:
        config_dir = claude_config(sb)
        env = claude_env(sb, config_dir)
        expected = prepared_context()
        add = sb.run(mcp_add_command("claude", CLAUDE, "claude-code -p mcp"), env, seconds=60)
        if not check("claude-code -p mcp: claude mcp add hydra", add.returncode == 0, tail(add.stdout + add.stderr)):
            return
        # Without a permission rule, -p (which cannot ask) refuses the call.
        run = sb.run([CLAUDE, "-p", "Summarise the checkout tax session."], env)
        denied = [b for b in tool_results(sb.api) if b.get("is_error") and holds(b, "mcp__hydra__read_session")]
        check("claude-code -p mcp: without a permission rule, read_session is refused", bool(denied), tail(run.stdout + run.stderr))

        _, printed, _ = server("mcp", "--store", STORE, "--print-config", "claude-code")
        rule = "mcp__hydra__read_session"
        try:
            settings = json.loads(printed[printed.index("\n{") :])
        except ValueError:
            settings = {}
        allowed = rule in settings.get("permissions", {}).get("allow", [])
        check(f"claude-code -p mcp: the printed settings allow {rule}", allowed, tail(printed))
        with open(os.path.join(config_dir, "settings.json"), "w") as f:
            json.dump(settings if allowed else {"permissions": {"allow": [rule]}}, f)
        # The fake model first loads the deferred tool with ToolSearch, as
        # a model does, then calls it. Claude Code probes with
        # server/discover: by default the server answers it and they speak
        # MCP 2026-07-28 (every request carries its `_meta`, no
        # initialize); with an older revision forced, the probe is −32601
        # and Claude Code falls back on initialize.
        sb.trace_mcp()
        sb.mcp_messages()
        forced = {"HYDRA_SESSION_MCP_PROTOCOL": "2025-11-25"}
        for revision, extra in (("2026-07-28", {}), ("2025-11-25 forced", forced)):
            before = len(sb.api.requests("/v1/messages"))
            run = sb.run([CLAUDE, "-p", "Summarise the checkout tax session."], dict(env, **extra))
            results = tool_results(sb.api, since=before)
            check(
                f"claude-code -p mcp ({revision}): the read_session result (prepare's context) reaches the next request",
                any(holds(b, expected) and not b.get("is_error") for b in results),
                f"status {run.returncode}; results {tail(json.dumps(results))}; output {tail(run.stdout + run.stderr)}",
            )
            methods = [m.get("method") for m in sb.mcp_messages() if m.get("method")]
            calls = [m for m in methods if m not in ("server/discover", "notifications/initialized")]
            if extra:
                path = methods[:1] == ["server/discover"] and calls[:1] == ["initialize"]
            else:
                path = methods[:1] == ["server/discover"] and "initialize" not in methods and "tools/call" in methods
            check(f"claude-code -p mcp ({revision}): the lifecycle Claude Code took", path, f"methods {methods}")
    finally:
        sb.close()


# ---- Codex -------------------------------------------------------------------


def codex_home(sandbox):
    """A private CODEX_HOME: the fake API as the model provider, no update
    check, no analytics or feedback."""
    home = os.path.join(sandbox.home, ".codex")
    os.makedirs(home, exist_ok=True)
    lines = [
        'model = "gpt-fake"',
        'model_provider = "fake"',
        "check_for_update_on_startup = false",
        "",
        "[model_providers.fake]",
        'name = "fake"',
        f'base_url = "{sandbox.api.url}/v1"',
        'env_key = "FAKE_API_KEY"',
        'wire_api = "responses"',
        "request_max_retries = 0",
        "stream_max_retries = 0",
        "",
        "[analytics]",
        "enabled = false",
        "",
        "[feedback]",
        "enabled = false",
    ]
    with open(os.path.join(home, "config.toml"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return home


def write_session(store, session_id, title):
    """A short hydra session, written whole under a temporary name and
    renamed into the store, as a writer that appends a finished log would."""
    lines = [
        {"type": "session", "version": 1, "id": session_id, "createdAt": 1764500000000, "cwd": "/home/ana/shop"},
        {"seq": 1, "type": "user/message", "data": {"id": "u1", "source": {"kind": "user"}, "content": [{"type": "text", "text": "Draft the refund policy."}]}},
        {"seq": 2, "type": "assistant/message", "data": {"message": {"id": "a1", "content": [{"type": "text", "text": "Refunds within 30 days."}]}}},
        {"seq": 3, "type": "session/title", "data": {"title": title}},
    ]
    path = os.path.join(store, f"{session_id}.jsonl")
    with open(path + ".part", "w") as f:
        f.write("".join(json.dumps(line) + "\n" for line in lines))
    os.replace(path + ".part", path)


def write_long_session(root):
    """A hydra store in root holding one long session (120 messages, about
    45 kB): more than any hook may pass whole."""
    store = os.path.join(root, "long-store")
    os.makedirs(store)
    lines = [{"type": "session", "version": 1, "id": "ledger-review", "createdAt": 1764400001000, "cwd": "/home/ana/books"}]
    for i in range(60):
        question = f"Question {i}: why does ledger entry {i} not balance? " + "The debit and credit columns disagree. " * 6
        answer = f"Answer {i}: entry {i} rounds each line. " + "Rounding once per entry fixes the drift. " * 6
        lines.append({"seq": 2 * i + 1, "type": "user/message", "data": {"id": f"u{i}", "source": {"kind": "user"}, "content": [{"type": "text", "text": question}]}})
        lines.append({"seq": 2 * i + 2, "type": "assistant/message", "data": {"message": {"id": f"a{i}", "content": [{"type": "text", "text": answer}]}}})
    lines.append({"seq": 121, "type": "session/title", "data": {"title": "Ledger review"}})
    with open(os.path.join(store, "ledger-review.jsonl"), "w") as f:
        f.write("".join(json.dumps(line) + "\n" for line in lines))
    return store


def codex_env(sandbox, home):
    return sandbox.env({"CODEX_HOME": home, "FAKE_API_KEY": "fake"})


def codex_exec(sandbox, env, prompt, *flags):
    return sandbox.run(
        [CODEX, "exec", "--skip-git-repo-check", "--ephemeral", "--strict-config", *flags, prompt], env
    )


def test_codex_hook():
    sb = Sandbox("codex-hook")
    try:
        home = codex_home(sb)
        env = codex_env(sb, home)
        big_store = write_long_session(sb.root)
        stores = ["--store", STORE, "--store", big_store]
        status, printed, err = server("hook", "codex", *stores, "--print-config")
        config = None
        try:
            config = json.loads(printed) if status == 0 else None
            command = hook_command(config) if config else ""
        except (ValueError, KeyError) as e:
            err, command = str(e), ""
        check(
            "codex hook: hook codex --print-config prints hooks.json running `hook codex`",
            " hook codex" in command,
            f"status {status}: {tail(err or printed)}",
        )
        if not command:
            # The same hook speaks Codex's protocol too: keep testing Codex
            # with the Claude Code command so the other checks still mean
            # something.
            status, printed, err = server("hook", "claude-code", *stores, "--print-config")
            config = json.loads(printed)
            command = hook_command(config)
        with open(os.path.join(home, "hooks.json"), "w") as f:
            json.dump(config, f)
        expected = hook_output(sb, command, GOOD_PROMPT, {"session_id": "codex-test", "turn_id": "t1", "model": "gpt-fake"})
        context = expected.get("hookSpecificOutput", {}).get("additionalContext", "")

        # An untrusted hook is skipped without a word: the automation switch.
        run = codex_exec(sb, env, GOOD_PROMPT, "--dangerously-bypass-hook-trust")
        got = [r for r in sb.api.requests("/v1/responses") if holds(r["body"], GOOD_PROMPT)]
        check(
            "codex hook: codex exec sends the context verbatim in the model request",
            run.returncode == 0 and context and any(holds(r["body"], context) for r in got),
            f"status {run.returncode}, {len(got)} requests with the prompt; stderr {tail(run.stderr)}",
        )

        # A long session: Codex cuts hook output above 2,500 tokens (by its
        # own estimate) to a preview and saves the rest to a file, so the
        # hook must cut first, within that room, and say what it left out.
        _, mention, _ = server("candidates", "--store", big_store, "--format", "mention")
        long_prompt = f"Look at {mention.strip()} and summarise it."
        big = hook_output(sb, command, long_prompt, {"session_id": "codex-test", "turn_id": "t2", "model": "gpt-fake"})
        big_context = big.get("hookSpecificOutput", {}).get("additionalContext", "")
        run = codex_exec(sb, env, long_prompt, "--dangerously-bypass-hook-trust")
        got = [r for r in sb.api.requests("/v1/responses") if holds(r["body"], long_prompt)]
        check(
            "codex hook: a long session's context fits Codex's hook limit and arrives whole",
            run.returncode == 0
            and "omitted" in (big.get("systemMessage") or "")
            and any(holds(r["body"], big_context) for r in got)
            and not any(holds(r["body"], "Warning: truncated output") for r in got),
            f"status {run.returncode}; context {len(big_context)} chars; systemMessage {big.get('systemMessage')!r}; "
            f"{len(got)} requests; stderr {tail(run.stderr)}",
        )

        before = len(sb.api.requests("/v1/responses"))
        run = codex_exec(sb, env, BAD_PROMPT, "--dangerously-bypass-hook-trust")
        check(
            "codex hook: a bad mention blocks the prompt (no model request)",
            len(sb.api.requests("/v1/responses")) == before and "UserPromptSubmit Blocked" in run.stderr,
            f"status {run.returncode}; stderr {tail(run.stderr)}",
        )

        # Without persisted trust (and without the switch) Codex skips the
        # hook and says nothing: what the README's one-time trust step is for.
        before = len(sb.api.requests("/v1/responses"))
        run = codex_exec(sb, env, GOOD_PROMPT)
        new = sb.api.requests("/v1/responses")[before:]
        check(
            "codex hook: an untrusted hook is skipped without a word",
            run.returncode == 0 and new and not any(holds(r["body"], "<referenced-sessions>") for r in new)
            and "UserPromptSubmit" not in run.stderr,
            f"status {run.returncode}; {len(new)} requests; stderr {tail(run.stderr)}",
        )

        # The TUI: what the person sees for an attached and a blocked prompt.
        tui = Tmux(sb, "codex", [CODEX, "--dangerously-bypass-hook-trust", "--no-alt-screen"], env)
        try:
            ready = tui.shows("OpenAI Codex", "›", seconds=60)
            if not check("codex hook: the TUI starts", ready, tail(tui.screen())):
                return
            tui.paste(GOOD_PROMPT)
            tui.keys("Enter")
            replied = tui.shows("Fake model reply.", "Worked for")
            message = (expected.get("systemMessage") or "").splitlines()
            shown = bool(message) and tui.shows_message("↳ Hook · ", message, seconds=5)
            check(
                "codex hook: the TUI shows the systemMessage",
                replied and shown,
                f"hook systemMessage {expected.get('systemMessage')!r}; screen {tail(tui.screen())}",
            )
            tui.paste(BAD_PROMPT)
            tui.keys("Enter")
            blocked = tui.shows("Blocked by hook", f'session "{BAD_ID}" not found')
            check(
                "codex hook: the TUI shows why a bad mention blocked the prompt, and sends nothing",
                blocked and not [r for r in sb.api.requests("/v1/responses") if holds(r["body"], BAD_PROMPT)],
                f"screen {tail(tui.screen())}",
            )
        finally:
            tui.close()
    finally:
        sb.close()


def test_codex_mcp():
    sb = Sandbox("codex-mcp", read_session=SESSION_ID)
    try:
        expected = prepared_context()
        home = codex_home(sb)
        env = codex_env(sb, home)
        # Added the way `mcp --print-config codex` says, into CODEX_HOME.
        add = sb.run(mcp_add_command("codex", CODEX, "codex mcp"), env, seconds=60)
        if not check("codex mcp: codex mcp add hydra", add.returncode == 0, tail(add.stdout + add.stderr)):
            return
        run = codex_exec(sb, env, "Summarise the checkout tax session.", "--json")
        reqs = sb.api.requests("/v1/responses")
        offered = any(holds(r["body"].get("tools"), "read_session") for r in reqs[:1])
        check("codex mcp: the first request offers the read_session tool", offered, f"status {run.returncode}; stderr {tail(run.stderr)}")
        outputs = [
            item
            for r in reqs[1:]
            for item in r["body"].get("input", [])
            if isinstance(item, dict) and item.get("type") == "function_call_output"
        ]
        check(
            "codex mcp: the read_session result (prepare's context) reaches the next request",
            any(holds(o, expected) for o in outputs),
            f"status {run.returncode}; {len(reqs)} requests; outputs {tail(json.dumps(outputs))}; stdout {tail(run.stdout)}",
        )
    finally:
        sb.close()


def main():
    tests = (test_claude_hook, test_codex_hook, test_claude_mcp_interactive, test_claude_mcp_print, test_codex_mcp)
    # HYDRA_AGENTS_ONLY=codex runs the groups whose name holds "codex" (and
    # says which it left out, so nothing is skipped silently).
    only = os.environ.get("HYDRA_AGENTS_ONLY", "")
    for test in tests:
        if only not in test.__name__:
            print(f"SKIP {test.__name__} (HYDRA_AGENTS_ONLY={only})", flush=True)
            continue
        try:
            test()
        except Exception as e:  # one broken group is one failure; the rest still run
            check(f"{test.__name__}: ran to the end", False, f"{type(e).__name__}: {e}")
    shutil.rmtree(SERVER_CACHE, ignore_errors=True)
    sys.exit(1 if failed_checks else 0)


if __name__ == "__main__":
    main()
