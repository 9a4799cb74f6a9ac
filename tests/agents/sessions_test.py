#!/usr/bin/env python3
"""Real agents' sessions, read back (issue 24): Pi, Qwen Code, Kilo,
Continue, Cline and Aider, each run non-interactively against the fake
model API (its OpenAI Chat Completions side) in a fresh HOME, write a real
session — a prompt, one tool call where the agent has tools, and a resumed
turn where it can resume — and the server finds it with zero configuration
(HOME set to that home, no --store):

  - `candidates` lists the session (by the agent's own id);
  - `prepare` of its mention holds the prompts and the model's reply;
  - `status` names the store the session came from;
  - `search` finds it by a word of the prompt.

    python3 sessions_test.py SERVER INSTALL_OUT [AGENT...]

INSTALL_OUT is what tests/agents/install.sh printed (NAME=PATH lines);
AGENT names (pi qwen kilo continue cline aider) pick groups, default all.
HYDRA_AGENTS_SAMPLES=DIR copies each fresh home (and the project's files an
agent wrote there) to DIR/<agent>/ for the people writing the readers.
Groups run as processes of their own, HYDRA_AGENTS_JOBS (default 3) at once.

Prints one "PASS name" / "FAIL name: why" line per check; exits 1 on any
failure.
"""

import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
from harness import FakeApi, Sandbox, Tmux, check, failed_checks, tail, wait_for  # noqa: E402

SERVER = os.path.abspath(sys.argv[1])
INSTALLED = dict(
    line.strip().split("=", 1) for line in open(sys.argv[2]) if "=" in line and not line.startswith("install:")
)
GROUPS = sys.argv[3:]
FAKE_KEY = "fake-key"
MODEL = "gpt-fake"
# A word of each prompt that no agent's own text holds, for `search`.
FIRST_WORD = "Quillfeather"
FIRST_PROMPT = f"Explain the {FIRST_WORD} checkout tax rounding in notes.txt"
RESUMED_PROMPT = "Now check the Marrowgate refund wording too"
REPLY = "Fake model reply."
NOTES = "The checkout tax rounds each line once.\n"
# What a turn hands to a sub-agent (the agent's own task tool).
SUB_TASK = {"description": "Read the notes", "prompt": "Read notes.txt and report the rounding rule"}


class Run:
    """One agent's sandbox: the fake API scripted to call one tool, a
    project folder holding notes.txt (what the tool reads)."""

    def __init__(self, agent, *tools):
        """tools: (name, arguments from the notes' path) per turn, as the
        fake API's FAKE_API_TOOLS takes them."""
        self.agent = agent
        self.sb = Sandbox(SERVER, agent)
        self.notes = os.path.join(self.sb.project, "notes.txt")
        with open(self.notes, "w") as f:
            f.write(NOTES)
        if tools:
            # The arguments name the notes' absolute path, known only now
            # the sandbox exists: the API starts again, scripted.
            self.sb.api.stop()
            script = json.dumps([[name, arguments(self.notes)] for name, arguments in tools])
            self.sb.api = FakeApi(self.sb.root, api_env={"FAKE_API_TOOLS": script})
        self.url = self.sb.api.url + "/v1"

    def run(self, argv, extra_env, seconds=120):
        return self.sb.run(argv, self.sb.env(extra_env), seconds=seconds)

    def chat_requests(self):
        return self.sb.api.requests("/chat/completions")

    def tool_results_sent(self):
        """Chat requests that carried a tool result back to the model."""
        return [
            r
            for r in self.chat_requests()
            if any(isinstance(m, dict) and m.get("role") == "tool" for m in r["body"].get("messages") or [])
        ]

    def server(self, *args, stdin=None, cwd=None, extra_env=None):
        """The server with zero configuration: the fresh HOME, no --store,
        no XDG_* variable (the agents ran with them at their defaults
        under that HOME); extra_env adds an agent's override variable."""
        env = {k: v for k, v in self.sb.env({}).items() if not k.startswith("XDG_")}
        env.update(extra_env or {})
        p = subprocess.run(
            ["timeout", "--kill-after=5", "60", SERVER] + list(args),
            input=stdin,
            capture_output=True,
            text=True,
            cwd=cwd or self.sb.project,
            env=env,
        )
        return p.returncode, p.stdout, p.stderr

    def save_sample(self, project_files=()):
        """Copies the fresh home (and named project files) where
        HYDRA_AGENTS_SAMPLES says, replacing an earlier copy."""
        root = os.environ.get("HYDRA_AGENTS_SAMPLES")
        if not root:
            return
        dest = os.path.join(root, self.agent)
        for sub in ("home", "project"):
            shutil.rmtree(os.path.join(dest, sub), ignore_errors=True)
        shutil.copytree(self.sb.home, os.path.join(dest, "home"), symlinks=True)
        for name in project_files:
            os.makedirs(os.path.join(dest, "project"), exist_ok=True)
            shutil.copy2(os.path.join(self.sb.project, name), os.path.join(dest, "project", name))

    def close(self):
        self.sb.close()


def ran(group, step, p):
    return check(
        f"{group}: {step} exits 0",
        p.returncode == 0,
        f"status {p.returncode}; stdout {tail(p.stdout)}; stderr {tail(p.stderr)}",
    )


def listed_sessions(r, cwd=None):
    """The server's candidates (zero configuration), as a list."""
    status, out, _ = r.server("candidates", "--limit", "200", cwd=cwd)
    try:
        return json.loads(out) if status == 0 else []
    except ValueError:
        return []


def prepared(r, mention, cwd=None):
    """The context `prepare` renders for a message citing mention."""
    status, out, _ = r.server("prepare", "-", stdin=f"Look at {mention} and summarise it.\n", cwd=cwd)
    try:
        return "".join(c["text"] for c in json.loads(out)["additionalContext"]["content"])
    except (ValueError, KeyError, TypeError):
        return ""


def check_reader(group, r, sessions, store, store_format, cwd=None):
    """The four zero-configuration checks. sessions maps each session id
    the agent wrote to the prompts it must hold; store is the path status
    must list (a store whose path is it, or holds it); store_format the
    format it must be read as (None: not checked)."""
    status, out, err = r.server("candidates", "--limit", "200", cwd=cwd)
    try:
        listed = {c["sessionId"]: c for c in json.loads(out)} if status == 0 else {}
    except (ValueError, KeyError, TypeError):
        listed = {}
    check(
        f"{group}: candidates lists the session{'s' if len(sessions) > 1 else ''} (fresh HOME, no --store)",
        all(sid in listed for sid in sessions),
        f"wanted {sorted(sessions)}; listed {sorted(listed)}; status {status}; stderr {tail(err)}",
    )

    for sid, prompts in sessions.items():
        mention = (listed.get(sid) or {}).get("mention")
        if not mention:
            check(f"{group}: prepare of {sid}'s mention holds the prompt and the reply", False, "no candidate to mention")
            continue
        status, out, err = r.server("prepare", "-", stdin=f"Look at {mention} and summarise it.\n", cwd=cwd)
        try:
            context = "".join(c["text"] for c in json.loads(out)["additionalContext"]["content"])
        except (ValueError, KeyError, TypeError):
            context = ""
        check(
            f"{group}: prepare of {sid}'s mention holds the prompt{'s' if len(prompts) > 1 else ''} and the reply",
            all(p in context for p in prompts) and REPLY in context,
            f"status {status}; context {tail(context)}; stderr {tail(err)}",
        )

    status, out, err = r.server("status", cwd=cwd)
    try:
        stores = json.loads(out).get("stores", []) if status == 0 else []
    except ValueError:
        stores = []
    named = [
        s
        for s in stores
        if isinstance(s, dict)
        and isinstance(s.get("path"), str)
        and (s["path"] == store or s["path"].startswith(store.rstrip("/") + "/") or store.startswith(s["path"].rstrip("/") + "/"))
        and (store_format is None or s.get("format") == store_format)
        and (s.get("sessions") or 0) >= len(sessions)
    ]
    check(
        f"{group}: status names the store {os.path.relpath(store, r.sb.root)}"
        + (f" ({store_format})" if store_format else ""),
        bool(named),
        f"stores {tail(json.dumps(stores), 2500)}; stderr {tail(err)}",
    )

    status, out, err = r.server("search", FIRST_WORD, cwd=cwd)
    try:
        found = [h.get("sessionId") for h in json.loads(out)] if status == 0 else []
    except (ValueError, AttributeError, TypeError):
        found = []
    check(
        f"{group}: search finds the session by a word of the prompt",
        any(sid in found for sid in sessions),
        f"found {found}; status {status}; stdout {tail(out)}; stderr {tail(err)}",
    )


def check_override(group, r, env, session_id, store):
    """An agent run with its folder moved by an environment variable: the
    server, given the same variable, lists that session and names the
    store."""
    (var,) = env
    status, out, err = r.server("candidates", "--limit", "200", extra_env=env)
    try:
        listed = [c["sessionId"] for c in json.loads(out)] if status == 0 else []
    except (ValueError, KeyError, TypeError):
        listed = []
    check(
        f"{group}: with {var} set, candidates lists the session written there",
        session_id in listed,
        f"wanted {session_id}; listed {listed}; status {status}; stderr {tail(err)}",
    )
    status, out, err = r.server("status", extra_env=env)
    try:
        paths = [s.get("path") for s in json.loads(out).get("stores", [])] if status == 0 else []
    except (ValueError, AttributeError):
        paths = []
    check(f"{group}: with {var} set, status names {os.path.relpath(store, r.sb.root)}", store in paths, f"stores {paths}")


def one_file(pattern):
    files = sorted(glob.glob(pattern))
    return files[0] if len(files) == 1 else None


# ---- Pi ----------------------------------------------------------------------


def test_pi():
    group = "pi"
    r = Run("pi", *[("read", lambda notes: {"path": notes})] * 2)
    try:
        agent_dir = os.path.join(r.sb.home, ".pi", "agent")
        os.makedirs(agent_dir)
        provider = {
            "baseUrl": r.url,
            "api": "openai-completions",
            "apiKey": FAKE_KEY,
            "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
            "models": [{"id": MODEL, "reasoning": False}],
        }
        with open(os.path.join(agent_dir, "models.json"), "w") as f:
            json.dump({"providers": {"fake": provider}}, f)
        pi = [INSTALLED["pi"], "--offline", "-p", "--provider", "fake", "--model", MODEL]
        if not ran(group, "pi -p", r.run(pi + [FIRST_PROMPT], {})):
            return
        ran(group, "pi -p -c (resume)", r.run(pi[:3] + ["-c"] + pi[3:] + [RESUMED_PROMPT], {}))
        check(f"{group}: the read tool's result went back to the model", len(r.tool_results_sent()) >= 1, tail(json.dumps(r.chat_requests())))
        r.save_sample()
        store = os.path.join(agent_dir, "sessions")
        path = one_file(os.path.join(store, "*", "*.jsonl"))
        if not check(f"{group}: one session file under ~/.pi/agent/sessions", path, sorted(glob.glob(store + "/**", recursive=True))):
            return
        with open(path) as f:
            header = json.loads(f.readline())
        check_reader(group, r, {header.get("id"): [FIRST_PROMPT, RESUMED_PROMPT]}, store, "pi")

        moved = os.path.join(r.sb.root, "pi-agent")
        os.makedirs(moved)
        shutil.copy2(os.path.join(agent_dir, "models.json"), moved)
        env = {"PI_CODING_AGENT_DIR": moved}
        if ran(group, "pi -p with PI_CODING_AGENT_DIR", r.run(pi + [FIRST_PROMPT], env)):
            path = one_file(os.path.join(moved, "sessions", "*", "*.jsonl"))
            with open(path or os.devnull) as f:
                moved_id = (json.loads(f.readline() or "{}")).get("id")
            check_override(group, r, env, moved_id, os.path.join(moved, "sessions"))
    finally:
        r.close()


# ---- Qwen Code -----------------------------------------------------------------


def test_qwen():
    group = "qwen"
    # The first turn reads notes.txt; the resumed one hands a task to a
    # sub-agent (the `agent` tool), whose own first turn reads it too.
    r = Run(
        "qwen",
        ("read_file", lambda notes: {"absolute_path": notes}),
        ("agent", lambda notes: dict(SUB_TASK, subagent_type="general-purpose")),
    )
    try:
        env = {
            "OPENAI_BASE_URL": r.url,
            "OPENAI_API_KEY": FAKE_KEY,
            "OPENAI_MODEL": MODEL,
            "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1",
        }
        qwen = [INSTALLED["qwen"], "--auth-type", "openai", "-m", MODEL, "--approval-mode", "yolo"]
        if not ran(group, "qwen (one-shot)", r.run(qwen + [FIRST_PROMPT], env)):
            return
        store = os.path.join(r.sb.home, ".qwen", "projects")
        path = one_file(os.path.join(store, "*", "chats", "*.jsonl"))
        if not check(f"{group}: one session file under ~/.qwen/projects", path, sorted(glob.glob(store + "/**", recursive=True))):
            return
        session_id = os.path.basename(path)[: -len(".jsonl")]
        ran(group, "qwen --resume ID (a turn that starts a sub-agent)", r.run(qwen + ["--resume", session_id, RESUMED_PROMPT], env))
        check(f"{group}: the read_file tool's result went back to the model", len(r.tool_results_sent()) >= 1, tail(json.dumps(r.chat_requests())))
        r.save_sample()
        check_reader(group, r, {session_id: [FIRST_PROMPT, RESUMED_PROMPT]}, store, "qwen-code")
        # Qwen writes the sub-agent's transcript to a file of its own
        # (projects/<cwd>/subagents/<parent id>/agent-<id>.jsonl) whose
        # records carry the parent's sessionId and isSidechain: no session.
        sub = glob.glob(os.path.join(store, "*", "subagents", "*", "*.jsonl"))
        ids = [c.get("sessionId") for c in listed_sessions(r)]
        check(
            f"{group}: the sub-agent's transcript file is no second session",
            bool(sub) and ids == [session_id],
            f"sub-agent files {sub}; listed {ids}",
        )

        moved = os.path.join(r.sb.root, "qwen-runtime")
        over = {"QWEN_RUNTIME_DIR": moved}
        if ran(group, "qwen with QWEN_RUNTIME_DIR", r.run(qwen + [FIRST_PROMPT], dict(env, **over))):
            path = one_file(os.path.join(moved, "projects", "*", "chats", "*.jsonl"))
            moved_id = os.path.basename(path)[: -len(".jsonl")] if path else None
            check_override(group, r, over, moved_id, os.path.join(moved, "projects"))
    finally:
        r.close()


# ---- Kilo ----------------------------------------------------------------------


def kilo_session_id(stdout):
    """The session id of `kilo run --format json`'s events."""
    for line in stdout.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and isinstance(event.get("sessionID"), str):
            return event["sessionID"]
    found = re.search(r'"sessionID"\s*:\s*"(ses_[A-Za-z0-9]+)"', stdout)
    return found.group(1) if found else None


def test_kilo():
    group = "kilo"
    # The first turn reads notes.txt; the resumed one hands a task to a
    # sub-agent (the `task` tool): a child session, its own row.
    r = Run(
        "kilo",
        ("read", lambda notes: {"filePath": notes}),
        ("task", lambda notes: dict(SUB_TASK, subagent_type="general")),
    )
    try:
        config = {
            "autoupdate": False,
            "share": "disabled",
            "model": f"fake/{MODEL}",
            "permission": {"*": "allow"},
            "provider": {
                "fake": {
                    "npm": "@ai-sdk/openai-compatible",
                    "name": "Fake",
                    "options": {"baseURL": r.url, "apiKey": FAKE_KEY},
                    "models": {MODEL: {"name": "GPT Fake", "tool_call": True}},
                }
            },
        }
        env = {"KILO_CONFIG_CONTENT": json.dumps(config), "KILO_DISABLE_MODELS_FETCH": "1", "KILO_DISABLE_SHARE": "1"}
        kilo = [INSTALLED["kilo"], "run", "-m", f"fake/{MODEL}", "--auto", "--format", "json"]
        first = r.run(kilo + [FIRST_PROMPT], env)
        if not ran(group, "kilo run", first):
            return
        session_id = kilo_session_id(first.stdout)
        if not check(f"{group}: kilo run --format json names its session", session_id, tail(first.stdout)):
            return
        ran(group, "kilo run -s ID (resume: a turn that starts a sub-agent)", r.run(kilo + ["-s", session_id, RESUMED_PROMPT], env))
        check(f"{group}: the read tool's result went back to the model", len(r.tool_results_sent()) >= 1, tail(json.dumps(r.chat_requests())))
        r.save_sample()
        store = os.path.join(r.sb.home, ".local", "share", "kilo")
        check_reader(group, r, {session_id: [FIRST_PROMPT, RESUMED_PROMPT]}, store, "kilo")
        listed = listed_sessions(r)
        children = [c for c in listed if c.get("sessionId") != session_id]
        check(
            f"{group}: candidates lists the task sub-agent's own session too",
            len(children) == 1,
            f"parent {session_id}; listed {[c.get('sessionId') for c in listed]}",
        )
        child = prepared(r, children[0]["mention"]) if len(children) == 1 else ""
        check(f"{group}: prepare of the sub-agent's session holds the task it was given", SUB_TASK["prompt"] in child, tail(child))
    finally:
        r.close()


# ---- Continue ------------------------------------------------------------------


def test_continue():
    group = "continue"
    r = Run("continue", *[("Read", lambda notes: {"filepath": notes})] * 2)
    try:
        config = os.path.join(r.sb.root, "continue-config.yaml")
        with open(config, "w") as f:
            f.write(
                "name: Fake\nversion: 1.0.0\nschema: v1\nmodels:\n"
                f"  - name: {MODEL}\n    provider: openai\n    model: {MODEL}\n"
                f"    apiBase: {r.url}\n    apiKey: {FAKE_KEY}\n    roles: [chat, edit, apply]\n"
            )
        env = {"CONTINUE_CLI_DISABLE_TELEMETRY": "1"}
        cn = [INSTALLED["continue"], "--config", config, "--auto"]
        if not ran(group, "cn -p", r.run(cn + ["-p", FIRST_PROMPT], env)):
            return
        ran(group, "cn --resume -p", r.run(cn + ["--resume", "-p", RESUMED_PROMPT], env))
        check(f"{group}: the Read tool's result went back to the model", len(r.tool_results_sent()) >= 1, tail(json.dumps(r.chat_requests())))
        r.save_sample()
        store = os.path.join(r.sb.home, ".continue", "sessions")
        files = [p for p in glob.glob(os.path.join(store, "*.json")) if os.path.basename(p) != "sessions.json"]
        if not check(f"{group}: one session file under ~/.continue/sessions", len(files) == 1, files):
            return
        with open(files[0]) as f:
            session_id = json.load(f).get("sessionId")
        check_reader(group, r, {session_id: [FIRST_PROMPT, RESUMED_PROMPT]}, store, "continue")

        moved = os.path.join(r.sb.root, "continue-global")
        over = {"CONTINUE_GLOBAL_DIR": moved}
        if ran(group, "cn -p with CONTINUE_GLOBAL_DIR", r.run(cn + ["-p", FIRST_PROMPT], dict(env, **over))):
            files = [p for p in glob.glob(os.path.join(moved, "sessions", "*.json")) if os.path.basename(p) != "sessions.json"]
            moved_id = None
            if len(files) == 1:
                with open(files[0]) as f:
                    moved_id = json.load(f).get("sessionId")
            check_override(group, r, over, moved_id, os.path.join(moved, "sessions"))
    finally:
        r.close()


# ---- Cline ---------------------------------------------------------------------


def cline_daemons(home):
    """Pids of Cline hub daemons whose HOME is this sandbox's: the TUI
    starts one that outlives it (and listens on a fixed port)."""
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
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.kill(pid, sig)
            except OSError:
                break
            if wait_for(lambda: not os.path.exists(f"/proc/{pid}/cmdline") or not cline_daemons(home), 10):
                break


def test_cline():
    group = "cline"
    r = Run("cline", *[("read_files", lambda notes: {"files": [{"path": notes}]})] * 2)
    tui = None
    try:
        # The in-process backend: a headless run starts no hub daemon.
        env = {"CLINE_SESSION_BACKEND_MODE": "local"}
        cline = INSTALLED["cline"]
        auth = r.run([cline, "auth", "-p", "openai", "-k", FAKE_KEY, "-m", MODEL, "-b", r.url], env)
        if not ran(group, "cline auth (the fake API as an OpenAI-compatible provider)", auth):
            return
        if not ran(group, "cline --json PROMPT", r.run([cline, "--json", FIRST_PROMPT], env)):
            return
        store = os.path.join(r.sb.home, ".cline", "data")
        folders = glob.glob(os.path.join(store, "sessions", "*", ""))
        if not check(f"{group}: one session folder under ~/.cline/data/sessions", len(folders) == 1, folders):
            return
        session_id = os.path.basename(os.path.dirname(folders[0]))
        # `cline --id ID` resumes only in its TUI (it drops a prompt given
        # with it): type the resumed turn there.
        tui = Tmux(r.sb, "cline", [cline, "--id", session_id], r.sb.env(env))
        ready = tui.shows("Ask anything", seconds=60)
        if check(f"{group}: cline --id ID (resume) opens the session", ready, tail(tui.screen())):
            # The input box can show before it takes keys (a loaded
            # machine): type again until the prompt is on the screen.
            for _ in range(3):
                tui.type(RESUMED_PROMPT)
                if tui.shows(RESUMED_PROMPT[:30], seconds=10):
                    break
                tui.keys("C-u")
            tui.keys("Enter")
            # The reply below the resumed prompt (the TUI may not redraw
            # the earlier turns).
            replied = wait_for(lambda: REPLY in tui.screen().split(RESUMED_PROMPT, 1)[-1], 60)
            check(f"{group}: the resumed turn is answered in the TUI", replied, tail(tui.screen()))
        tui.keys("C-c")
        tui.keys("C-c")
        tui.close()
        tui = None
        stop_cline_daemons(r.sb.home)
        check(f"{group}: the read_files tool's result went back to the model", len(r.tool_results_sent()) >= 1, tail(json.dumps(r.chat_requests())))
        r.save_sample()
        # The CLI's store is ~/.cline/data (not the extension's globalStorage).
        check_reader(group, r, {session_id: [FIRST_PROMPT, RESUMED_PROMPT]}, store, None)
    finally:
        if tui:
            tui.close()
        stop_cline_daemons(r.sb.home)
        r.close()


# ---- Aider ---------------------------------------------------------------------


def test_aider():
    group = "aider"
    if "aider" not in INSTALLED:
        check(f"{group}: installed", False, "install.sh printed no aider= line")
        return
    # Aider has no tool calls (it edits through text): only a reply.
    r = Run("aider")
    try:
        git = subprocess.run(["git", "init", "-q", r.sb.project], capture_output=True, text=True)
        if not check(f"{group}: git init of the project", git.returncode == 0, git.stderr):
            return
        env = {
            "OPENAI_API_BASE": r.url,
            "OPENAI_API_KEY": FAKE_KEY,
            # litellm's price list stays the one it ships (no fetch).
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        }
        aider = [
            INSTALLED["aider"], "--model", f"openai/{MODEL}", "--yes-always", "--no-check-update",
            "--no-show-model-warnings", "--analytics-disable", "--no-auto-commits", "--no-gitignore", "notes.txt",
        ]
        if not ran(group, "aider --message", r.run(aider + ["--message", FIRST_PROMPT], env)):
            return
        # A run header has a one-second stamp: two runs in the same second
        # are told apart by `~2`, which the check below need not know.
        ran(group, "aider --restore-chat-history --message (resume)", r.run(aider + ["--restore-chat-history", "--message", RESUMED_PROMPT], env))
        history = os.path.join(r.sb.project, ".aider.chat.history.md")
        r.save_sample([".aider.chat.history.md", ".aider.input.history"])
        try:
            with open(history) as f:
                stamps = re.findall(r"^# aider chat started at (\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})$", f.read(), re.M)
        except OSError:
            stamps = []
        if not check(f"{group}: two runs in .aider.chat.history.md", len(stamps) == 2, stamps):
            return
        ids = [f"aider:.aider.chat.history.md#{d}T{t}" for d, t in stamps]
        if ids[0] == ids[1]:
            ids[1] += "~2"
        resumed = r.chat_requests()[-1:]
        check(
            f"{group}: the resumed run sends the first run's messages",
            bool(resumed) and FIRST_PROMPT in json.dumps(resumed[0]["body"]),
            tail(json.dumps(resumed)),
        )
        check_reader(group, r, {ids[0]: [FIRST_PROMPT], ids[1]: [RESUMED_PROMPT]}, history, "aider", cwd=r.sb.project)
    finally:
        r.close()


TESTS = {
    "pi": test_pi,
    "qwen": test_qwen,
    "kilo": test_kilo,
    "continue": test_continue,
    "cline": test_cline,
    "aider": test_aider,
}


def run_groups_in_parallel(groups, jobs):
    """Runs each group as its own process of this script, up to jobs at
    once (an agent's run is mostly waiting: startup, the network it does
    not reach, its shutdown), and prints their lines in group order.
    Returns whether every group passed."""
    pending = list(groups)
    running = []
    done = {}
    # Each group's lines go to a file of its own (a pipe left unread while
    # an earlier group runs could fill and stall it).
    outputs = tempfile.mkdtemp(prefix="hydra-agents-groups.")
    while pending or running:
        while pending and len(running) < jobs:
            name = pending.pop(0)
            out = open(os.path.join(outputs, name), "w+")
            proc = subprocess.Popen(
                [sys.executable, os.path.abspath(__file__), SERVER, sys.argv[2], name],
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
        lines = [line for line in out.splitlines() if not line.startswith("SKIP ")]
        print("\n".join(lines), flush=True)
        if status != 0 and not any(line.startswith("FAIL ") for line in lines):
            print(f"FAIL {name}: its process exited with status {status}", flush=True)
        ok = ok and status == 0
    return ok


def main():
    unknown = [g for g in GROUPS if g not in TESTS]
    if unknown:
        print(f"FAIL sessions_test: unknown agents {unknown} (known: {' '.join(TESTS)})", flush=True)
        sys.exit(2)
    for name in TESTS:
        if GROUPS and name not in GROUPS:
            print(f"SKIP {name} (not asked for)", flush=True)
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
