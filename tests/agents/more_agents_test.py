#!/usr/bin/env python3
"""Gemini CLI, Qwen Code, OpenCode and Copilot CLI as people run them (issue 25), each
headless against the fake model API in a fresh HOME, with the MCP server
configured exactly as `mcp --print-config <agent>` prints it:

  - one prompt makes the model call every tool of the server in turn
    (FAKE_API_TOOL_CHAIN: list_sessions, search_sessions, read_session,
    prepare), and each tool's result is in the model request that follows
    its call;
  - the agent's own session (that prompt and a resumed turn) is found with
    zero configuration by `candidates`, `prepare`, `status` and `search`;
  - Gemini CLI and Qwen Code, which attach MCP resources with
    `@server:uri`, attach a session with `@hydra:session:<slug>/<id>` in
    their headless mode: the session's context is in the first request
    (Qwen's too for a URI never listed, the template's form);
  - OpenCode's interactive TUI (in tmux), whose `@` menu lists the
    server's resources: `@`, part of a session's title, Enter, a prompt,
    Enter, and the session's context is in the model request with the
    prompt (group opencode-tui).

    python3 more_agents_test.py SERVER INSTALL_OUT STORE [AGENT...]

INSTALL_OUT is what tests/agents/install.sh printed (NAME=PATH lines);
STORE the hydra store the MCP server reads (examples/sessions); AGENT
names (gemini qwen opencode opencode-tui copilot configs) pick groups, default all. Groups run as
processes of their own, HYDRA_AGENTS_JOBS (default 3) at once.

Prints one "PASS name" / "FAIL name: why" line per check; exits 1 on any
failure.
"""

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
SERVER, INSTALL_OUT, STORE = (os.path.abspath(a) for a in sys.argv[1:4])
GROUPS = sys.argv[4:]
# sessions_test.py's helpers read their server and install list from argv.
sys.argv = [sys.argv[0], SERVER, INSTALL_OUT]
import sessions_test as st  # noqa: E402
from harness import FakeApi, Tmux, check, failed_checks, holds, tail, wait_for  # noqa: E402

FIRST_PROMPT = st.FIRST_PROMPT
RESUMED_PROMPT = st.RESUMED_PROMPT
GOOD_MENTION = "@[Checkout tax rounding](hydra-session:ImNoZWNrb3V0LXRheCI)"

# Each tool of the server, its arguments, and a string that only its result
# brings into the conversation (examples/sessions).
CHAIN = [
    ("list_sessions", {"query": "Checkout tax"}, "Checkout tax rounding"),
    ("search_sessions", {"query": "regression"}, "checkout-tax.test-writer"),
    ("read_session", {"session": "deploy-2026-11-28"}, "Staging is on build 512"),
    ("prepare", {"text": f"Look at {GOOD_MENTION} and summarise it."}, "Cart::total"),
]
# What the session checkout-tax's context holds (an `@` attachment of it).
ATTACHED = "round once per cart"
# The same session as the TUIs' `@` menus offer it (examples/sessions).
SESSION_TITLE = "Checkout tax rounding"
SESSION_URI = "session:checkout-tax-rounding/checkout-tax"


def chain_env():
    return {"FAKE_API_TOOL_CHAIN": json.dumps([[name, args] for name, args, _ in CHAIN])}


def printed_config(r, client):
    status, out, err = r.server("mcp", "--store", STORE, "--print-config", client)
    check(f"{client}: mcp --print-config {client} exits 0", status == 0, tail(err or out))
    return out


def new_run(agent):
    """sessions_test's Run, its fake API scripted with the tool chain."""
    r = st.Run(agent)
    r.sb.api.stop()
    r.sb.api = FakeApi(r.sb.root, api_env=chain_env())
    r.url = r.sb.api.url + "/v1"
    return r


def check_chain(group, requests, results_of):
    """Every tool of the chain was called, and its result is in the request
    that follows (the one holding that many tool results)."""
    for k, (name, _, marker) in enumerate(CHAIN):
        after = [q for q in requests if results_of(q["body"]) == k + 1]
        check(
            f"{group}: the model called {name}, and its result is in the next request",
            any(holds(q["body"], marker) for q in after),
            f"{len(after)} requests with {k + 1} results; last: {tail(json.dumps(after[-1:]), 2500)}"
            if after
            else f"no request with {k + 1} tool results; results per request {[results_of(q['body']) for q in requests]}",
        )


def chat_results(body):
    return sum(1 for m in body.get("messages") or [] if isinstance(m, dict) and m.get("role") == "tool")


def gemini_results(body):
    return sum(
        1
        for c in body.get("contents") or []
        if isinstance(c, dict)
        for p in c.get("parts") or []
        if isinstance(p, dict) and "functionResponse" in p
    )


# ---- Gemini CLI ----------------------------------------------------------------


def test_gemini():
    group = "gemini"
    r = new_run("gemini")
    try:
        gemini_dir = os.path.join(r.sb.home, ".gemini")
        os.makedirs(gemini_dir)
        # The printed snippet is the whole user settings file, comments and
        # all (Gemini CLI strips them); the auth type, which a person picks
        # once in the TUI, comes from the project's settings (the system
        # defaults file is refused under a world-writable /tmp).
        printed = printed_config(r, "gemini")
        with open(os.path.join(gemini_dir, "settings.json"), "w") as f:
            f.write(printed)
        os.makedirs(os.path.join(r.sb.project, ".gemini"))
        with open(os.path.join(r.sb.project, ".gemini", "settings.json"), "w") as f:
            json.dump({"security": {"auth": {"selectedType": "gemini-api-key"}}}, f)
        env = {
            "GEMINI_API_KEY": "fake-key",
            "GOOGLE_GEMINI_BASE_URL": r.sb.api.url,
            "GEMINI_CLI_TRUST_WORKSPACE": "true",
        }
        gemini = [st.INSTALLED["gemini"], "-m", "gemini-2.5-flash", "-o", "text"]
        if not st.ran(group, "gemini -p (the tool chain)", r.run(gemini + ["-p", FIRST_PROMPT], env, seconds=240)):
            return
        requests = r.sb.api.requests(":streamGenerateContent") + r.sb.api.requests(":generateContent")
        check_chain(group, requests, gemini_results)
        st.ran(group, "gemini --resume latest -p", r.run(gemini + ["--resume", "latest", "-p", RESUMED_PROMPT], env, seconds=240))
        store = os.path.join(gemini_dir, "tmp")
        # A resumed session is written anew to a file named by the minute it
        # was resumed in, the same sessionId inside: one id over the files.
        paths = sorted(glob.glob(os.path.join(store, "*", "chats", "session-*.jsonl")))
        ids = set()
        for path in paths:
            with open(path) as f:
                ids.add(json.loads(f.readline()).get("sessionId"))
        if check(f"{group}: one session under ~/.gemini/tmp/*/chats ({len(paths)} file(s))", len(ids) == 1, paths):
            (session_id,) = ids
            r.save_sample()
            st.check_reader(group, r, {session_id: [FIRST_PROMPT, RESUMED_PROMPT]}, store, "gemini")

        # `@hydra:<uri>` attaches the resource in headless mode too.
        uri = "session:" + "checkout-tax-rounding/checkout-tax"
        before = len(r.sb.api.requests())
        p = r.run(gemini + ["-p", f"Summarise @hydra:{uri} for me"], env, seconds=240)
        if st.ran(group, f"gemini -p with @hydra:{uri}", p):
            fresh = [q for q in r.sb.api.requests()[before:] if q["path"].split("?")[0].endswith("GenerateContent")]
            first = [q for q in fresh if gemini_results(q["body"]) == 0 and holds(q["body"], "Summarise")]
            check(
                f"{group}: @hydra:{uri} puts the session's context in the request",
                any(holds(q["body"], ATTACHED) for q in first),
                tail(json.dumps(first[:1]), 2500),
            )

        # What the printed `trust` grants: without it, `gemini -p` offers
        # none of the server's tools.
        untrusted = json.loads("\n".join(line for line in printed.splitlines() if not line.lstrip().startswith("//")))
        del untrusted["mcpServers"]["hydra"]["trust"]
        with open(os.path.join(gemini_dir, "settings.json"), "w") as f:
            json.dump(untrusted, f)
        before = len(r.sb.api.requests())
        if st.ran(group, "gemini -p, the server not trusted", r.run(gemini + ["-p", "List the sessions"], env, seconds=240)):
            offered = [
                d.get("name")
                for q in r.sb.api.requests()[before:]
                for t in (q["body"] or {}).get("tools") or []
                if isinstance(t, dict)
                for d in t.get("functionDeclarations") or []
                if isinstance(d, dict)
            ]
            check(
                f"{group}: without trust, gemini -p offers none of the server's tools",
                offered and not any("hydra" in (n or "") for n in offered),
                f"offered {sorted(set(map(str, offered)))}",
            )
    finally:
        r.close()


# ---- Qwen Code -----------------------------------------------------------------


def test_qwen():
    """Qwen Code 0.24.4 with the server as `--print-config qwen-code` prints
    it (the whole ~/.qwen/settings.json, comments and `trust` included; no
    approval flag): the tool chain, and `@hydra:<uri>` attachments — a
    listed URI, and one it was never given (the template's form, a slug
    of a person's own), which Qwen reads all the same."""
    group = "qwen mcp"
    r = new_run("qwen")
    try:
        qwen_dir = os.path.join(r.sb.home, ".qwen")
        os.makedirs(qwen_dir)
        with open(os.path.join(qwen_dir, "settings.json"), "w") as f:
            f.write(printed_config(r, "qwen-code"))
        env = {
            "OPENAI_BASE_URL": r.url,
            "OPENAI_API_KEY": st.FAKE_KEY,
            "OPENAI_MODEL": st.MODEL,
        }
        qwen = [st.INSTALLED["qwen"], "--auth-type", "openai", "-m", st.MODEL]
        r.sb.trace_mcp()
        if not st.ran(group, "qwen -p (the tool chain)", r.run(qwen + ["-p", FIRST_PROMPT], env, seconds=240)):
            return
        check_chain(group, r.chat_requests(), chat_results)
        # As printed (`"versionNegotiation": "auto"`), Qwen Code probes with
        # server/discover and speaks MCP 2026-07-28: no initialize.
        methods = [m.get("method") for m in r.sb.mcp_messages() if m.get("method")]
        check(
            f"{group}: Qwen Code speaks MCP 2026-07-28 (server/discover, no initialize)",
            methods[:1] == ["server/discover"] and "initialize" not in methods,
            f"methods {methods}",
        )
        for uri in ("session:checkout-tax-rounding/checkout-tax", "session:my-own-words/checkout-tax"):
            before = len(r.chat_requests())
            p = r.run(qwen + ["-p", f"Summarise @hydra:{uri} for me"], env, seconds=240)
            if st.ran(group, f"qwen -p with @hydra:{uri}", p):
                first = [q for q in r.chat_requests()[before:] if chat_results(q["body"]) == 0 and holds(q["body"], "Summarise")]
                check(
                    f"{group}: @hydra:{uri} puts the session's context in the request",
                    any(holds(q["body"], ATTACHED) for q in first),
                    tail(json.dumps(first[:1]), 2500),
                )
    finally:
        r.close()


# ---- OpenCode ------------------------------------------------------------------


def opencode_session_id(stdout):
    for line in stdout.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and isinstance(event.get("sessionID"), str):
            return event["sessionID"]
    return None


def opencode_config(r, group):
    """The server as `--print-config opencode` prints it (the whole global
    config file); the model provider in OPENCODE_CONFIG_CONTENT, merged
    over it. Returns the environment OpenCode runs in."""
    status, printed, err = r.server("mcp", "--store", STORE, "--print-config", "opencode")
    check(f"{group}: mcp --print-config opencode exits 0", status == 0, tail(err or printed))
    config_dir = os.path.join(r.sb.home, ".config", "opencode")
    os.makedirs(config_dir)
    with open(os.path.join(config_dir, "opencode.json"), "w") as f:
        f.write(printed)
    provider = {
        "autoupdate": False,
        "share": "disabled",
        "model": f"fake/{st.MODEL}",
        "provider": {
            "fake": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Fake",
                "options": {"baseURL": r.url, "apiKey": st.FAKE_KEY},
                "models": {st.MODEL: {"name": "GPT Fake", "tool_call": True}},
            }
        },
    }
    return {
        "OPENCODE_CONFIG_CONTENT": json.dumps(provider),
        "OPENCODE_DISABLE_MODELS_FETCH": "1",
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
    }


def test_opencode():
    group = "opencode"
    r = new_run("opencode")
    try:
        env = opencode_config(r, group)
        opencode = [st.INSTALLED["opencode"], "run", "-m", f"fake/{st.MODEL}", "--format", "json"]
        # OpenCode's first run in a fresh HOME installs its config folder's
        # plugin package from npm and takes minutes on a loaded machine.
        first = r.run(opencode + [FIRST_PROMPT], env, seconds=480)
        if not st.ran(group, "opencode run (the tool chain)", first):
            return
        check_chain(group, r.chat_requests(), chat_results)
        session_id = opencode_session_id(first.stdout)
        if not check(f"{group}: opencode run --format json names its session", session_id, tail(first.stdout)):
            return
        st.ran(group, "opencode run -s ID (resume)", r.run(opencode + ["-s", session_id, RESUMED_PROMPT], env, seconds=480))
        r.save_sample()
        store = os.path.join(r.sb.home, ".local", "share", "opencode")
        st.check_reader(group, r, {session_id: [FIRST_PROMPT, RESUMED_PROMPT]}, store, "opencode")
    finally:
        r.close()


def prepared_context(r):
    """What `prepare` renders for a message citing checkout-tax: the text
    the server's resource for that session carries."""
    status, out, _ = r.server("prepare", "--store", STORE, "-", stdin=f"Look at {GOOD_MENTION} and summarise it.\n")
    try:
        return "".join(c["text"] for c in json.loads(out)["additionalContext"]["content"]) if status == 0 else ""
    except (ValueError, KeyError, TypeError):
        return ""


# The other sessions of examples/sessions, as the `@` menu names them.
OTHER_TITLES = ("Inventory refactor", "deploy-2026-11-28", "test-writer")


def opencode_menu_lists(tui, word, seconds):
    """Types `@` and a word of the title into OpenCode's prompt until its
    menu lists the session's resource — its name, then its description
    (the server's `title — agent · folder · date`) — and no other session:
    the menu filtered by the word, so Enter picks this one."""

    def filtered():
        lines = tui.lines()
        shown = any(SESSION_TITLE in l and "hydra" in l and "shop" in l for l in lines)
        return shown and not any(t in l for t in OTHER_TITLES for l in lines)

    # The menu opens on `@` with every item and filters as the word comes
    # in, a frame or more behind the keys; and the TUI fetches the resource
    # list as it starts, beside the prompt appearing. So the word is erased
    # and typed again until the menu shows the session alone.
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        tui.type("@" + word)
        if wait_for(filtered, 5):
            return True
        tui.keys(*["BSpace"] * (len(word) + 1))
        wait_for(lambda: not any(("@" + word) in l for l in tui.lines()), 3)
    return False


def test_opencode_tui():
    """OpenCode's interactive TUI, the server as printed: its `@` menu lists
    the server's resources (read by `resources/list` as the TUI starts);
    choosing one makes OpenCode read it (`resources/read`) when the prompt
    is sent, and put its text in the model request beside the prompt."""
    group = "opencode tui"
    r = new_run("opencode-tui")
    tui = None
    try:
        env = opencode_config(r, group)
        expected = prepared_context(r)
        if not check(f"{group}: prepare renders the session's context", ATTACHED in expected, tail(expected)):
            return
        # The terminal tmux presents (this test's own TERM may be none, as
        # under CI).
        env["TERM"] = "xterm-256color"
        r.sb.trace_mcp()
        # A first start in a fresh HOME installs the config folder's plugin
        # package from npm in the background: the agent gets time for it.
        tui = Tmux(r.sb, "opencode", [st.INSTALLED["opencode"]], r.sb.env(env), seconds=600)
        ready = tui.shows("Ask anything", "GPT Fake", seconds=180)
        if not check(f"{group}: the interactive prompt appears", ready, tail(tui.screen())):
            return
        listed = opencode_menu_lists(tui, "Checkout", 90)
        if not check(f"{group}: `@` + part of the title lists the session's resource, and only it", listed, tail(tui.screen())):
            return
        tui.keys("Enter")
        inserted = tui.shows("@" + SESSION_TITLE, seconds=10)
        if not check(f"{group}: Enter puts the resource in the prompt", inserted, tail(tui.screen())):
            return
        prompt = "summarise the Zephyrine session"
        tui.type(prompt)
        if not check(f"{group}: the prompt is typed after it", tui.shows(f"@{SESSION_TITLE} {prompt}", seconds=10), tail(tui.screen())):
            return
        tui.keys("Enter")

        def sent():
            return [
                q
                for q in r.chat_requests()
                for m in q["body"].get("messages") or []
                if isinstance(m, dict) and m.get("role") == "user" and holds(m, prompt) and holds(m, expected)
            ]

        got = wait_for(sent, 120)
        check(
            f"{group}: the session's context (prepare's bytes) is in the request, in the prompt's own message",
            bool(got),
            f"{len(r.chat_requests())} requests, none holding the context with the prompt; screen {tail(tui.screen())}",
        )
        traced = r.sb.mcp_messages()
        reads = [(m.get("params") or {}).get("uri") for m in traced if m.get("method") == "resources/read"]
        check(f"{group}: OpenCode read the resource ({SESSION_URI}) from the server", reads == [SESSION_URI], f"reads {reads}")
        # What docs/mcp.md records of OpenCode's lifecycle: no probe, the
        # older revision's handshake.
        methods = [m.get("method") for m in traced if m.get("method")]
        first = (traced[0].get("params") or {}) if traced else {}
        check(
            f"{group}: OpenCode speaks MCP 2025-11-25 (initialize, no server/discover)",
            methods[:1] == ["initialize"] and first.get("protocolVersion") == "2025-11-25" and "server/discover" not in methods,
            f"methods {methods}; initialize params {json.dumps(first)[:300]}",
        )
        # The reply alone is no proof: the session's title (the model's
        # answer to OpenCode's title request) is the same words. A finished
        # turn's footer names the model and the time it took.
        ended = wait_for(lambda: st.REPLY in tui.screen() and re.search(r"GPT Fake · [0-9.]+m?s", tui.screen()), 60)
        check(f"{group}: the turn ends with the model's reply shown", ended, tail(tui.screen()))
    finally:
        if tui:
            tui.close()
        r.close()


# ---- Copilot CLI ---------------------------------------------------------------


def test_copilot():
    group = "copilot"
    r = new_run("copilot")
    try:
        # Copilot CLI unpacks itself into its package cache on a first run
        # (about 235 MB): one cache in the clone's, shared by every run.
        pkg_cache = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(st.INSTALLED["copilot"]))), "copilot-pkg")
        os.makedirs(pkg_cache, exist_ok=True)
        os.symlink(st.INSTALLED["copilot"], os.path.join(r.sb.bin, "copilot"))
        env = {
            "COPILOT_PKG_CACHE_HOME": pkg_cache,
            "COPILOT_OFFLINE": "true",
            "COPILOT_AUTO_UPDATE": "false",
            "COPILOT_PROVIDER_BASE_URL": r.url,
            "COPILOT_PROVIDER_API_KEY": st.FAKE_KEY,
            "COPILOT_MODEL": st.MODEL,
        }
        printed = printed_config(r, "copilot-cli")
        # As printed: its `copilot mcp add …` line, run in a shell; no
        # permission flag (Copilot CLI approves read-only tools itself).
        add = [line for line in printed.splitlines() if line.startswith("copilot mcp add ")]
        if not check(f"{group}: the printed config has one `copilot mcp add` line", len(add) == 1, printed):
            return
        if not st.ran(group, "the printed `copilot mcp add` line", r.run(["bash", "-c", add[0]], env)):
            return
        with open(os.path.join(r.sb.home, ".copilot", "mcp-config.json")) as f:
            added = json.load(f)["mcpServers"]["hydra"]
        check(f"{group}: the added server is the printed one", json.dumps(added, sort_keys=True) == printed_json(printed), json.dumps(added))
        copilot = [st.INSTALLED["copilot"]]
        first = r.run(copilot + ["-p", FIRST_PROMPT], env, seconds=240)
        if not st.ran(group, "copilot -p (the tool chain)", first):
            return
        check_chain(group, r.chat_requests(), chat_results)
        found = re.search(r"--resume=([0-9a-f-]{36})", first.stdout + first.stderr)
        if not check(f"{group}: copilot -p names its session", found, tail(first.stdout)):
            return
        session_id = found.group(1)
        st.ran(group, "copilot --resume=ID -p", r.run(copilot + [f"--resume={session_id}", "-p", RESUMED_PROMPT], env, seconds=240))
        r.save_sample()
        store = os.path.join(r.sb.home, ".copilot", "session-state")
        st.check_reader(group, r, {session_id: [FIRST_PROMPT, RESUMED_PROMPT]}, store, "copilot-cli")
    finally:
        r.close()


def printed_json(printed):
    """The JSON object of a printed snippet (its lines that are no comment),
    its hydra entry as sorted JSON."""
    text = "\n".join(line for line in printed.splitlines() if not line.startswith(("#", "//")))
    start = text.find("{")
    try:
        value = json.loads(text[start:]) if start >= 0 else {}
        return json.dumps(value["mcpServers"]["hydra"], sort_keys=True)
    except (ValueError, KeyError, TypeError):
        return ""


# ---- Every printed config, parsed -----------------------------------------------


def test_configs():
    """Every client's snippet parses in its file's own language (JSON with
    the comments the file allows, YAML, TOML), with the server's command and
    arguments in it: the check for the agents not installed here."""
    import tomllib

    import yaml

    r = st.Run("configs")
    try:
        status, out, err = r.server("mcp", "--help")
        clients = re.search(r"--print-config <CLIENT>.*?\[possible values: ([^\]]+)\]", out, re.S)
        names = [n.strip() for n in clients.group(1).replace("\n", " ").split(",")] if clients else []
        check("configs: mcp --help lists the clients", len(names) >= 14, tail(out))
        for client in names:
            printed = printed_config(r, client)
            body = [line for line in printed.splitlines() if not line.lstrip().startswith(("//", "#"))]
            try:
                if client in ("goose", "continue"):
                    value = yaml.safe_load("\n".join(body))
                    entry = value["extensions"]["hydra"] if client == "goose" else value["mcpServers"][0]
                    command, args = entry.get("cmd") or entry.get("command"), entry["args"]
                elif client in ("codex", "claude-code"):
                    if client == "codex":
                        table = tomllib.loads("\n".join(line for line in body if not line.startswith("codex ")))
                        command, args = table["mcp_servers"]["hydra"]["command"], table["mcp_servers"]["hydra"]["args"]
                    else:
                        json.loads("\n".join(line for line in body if not line.startswith("claude ")))
                        command, args = "hydra-session-lsp", [a for a in printed.split("-- hydra-session-lsp ", 1)[1].split()[:1]]
                else:
                    value = json.loads("\n".join(line for line in body if not line.startswith("copilot ")))
                    entry = next(iter(v for v in value.values() if isinstance(v, dict)))["hydra"]
                    command = entry["command"]
                    args = entry.get("args")
                    if isinstance(command, list):  # OpenCode's and Kilo's one array
                        command, args = command[0], command[1:]
                ok = command == "hydra-session-lsp" and args[:1] == ["mcp"]
                why = f"command {command!r}, args {args!r}"
            except Exception as e:  # a snippet that does not parse is the failure reported
                ok, why = False, f"{type(e).__name__}: {e}; {tail(printed)}"
            check(f"configs: {client}'s snippet parses, the server's command in it", ok, why)
    finally:
        r.close()


TESTS = {
    "gemini": test_gemini,
    "qwen": test_qwen,
    "opencode": test_opencode,
    "opencode-tui": test_opencode_tui,
    "copilot": test_copilot,
    "configs": test_configs,
}


def run_groups_in_parallel(groups, jobs):
    """Each group as a process of this script, up to jobs at once; their
    lines printed in group order. Returns whether every group passed."""
    pending = list(groups)
    running = []
    done = {}
    outputs = tempfile.mkdtemp(prefix="hydra-more-agents.")
    while pending or running:
        while pending and len(running) < jobs:
            name = pending.pop(0)
            out = open(os.path.join(outputs, name), "w+")
            proc = subprocess.Popen(
                [sys.executable, os.path.abspath(__file__), SERVER, INSTALL_OUT, STORE, name],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=dict(os.environ, HYDRA_AGENTS_JOBS="1"),
            )
            running.append((name, proc, out))
        name, proc, out = running.pop(0)
        proc.wait()
        out.seek(0)
        done[name] = (proc.returncode, out.read())
        out.close()
    shutil.rmtree(outputs, ignore_errors=True)
    ok = True
    for name in groups:
        status, out = done[name]
        print(out, end="" if out.endswith("\n") or not out else "\n", flush=True)
        if status != 0 and "FAIL " not in out:
            print(f"FAIL {name}: its process exited with status {status}", flush=True)
        ok = ok and status == 0
    return ok


def main():
    unknown = [g for g in GROUPS if g not in TESTS]
    if unknown:
        print(f"FAIL more_agents_test: unknown agents {unknown} (known: {' '.join(TESTS)})", flush=True)
        sys.exit(2)
    groups = [name for name in TESTS if not GROUPS or name in GROUPS]
    jobs = int(os.environ.get("HYDRA_AGENTS_JOBS") or "3")
    if jobs > 1 and len(groups) > 1:
        sys.exit(0 if run_groups_in_parallel(groups, jobs) else 1)
    for name in groups:
        start = time.monotonic()
        try:
            TESTS[name]()
        except Exception as e:  # one broken group is one failure; the rest still run
            check(f"{name}: ran to the end", False, f"{type(e).__name__}: {e}")
        print(f"{name}: the group took {time.monotonic() - start:.0f} s", flush=True)
    sys.exit(1 if failed_checks else 0)


if __name__ == "__main__":
    main()
