#!/usr/bin/env python3
"""What the real-agent tests (tests/agents) share: PASS/FAIL lines, polling
against a deadline, the fake model API as a process, a sandbox per check
group (a private HOME, a project folder, a PATH with the server first) and an
agent's TUI in a private tmux server.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
from fake_api import texts  # noqa: E402  (every string inside a JSON value)

HERE = os.path.dirname(os.path.abspath(__file__))
RUN_SECONDS = 90


failed_checks = []


def check(name, ok, why=""):
    """Prints one PASS/FAIL line; the failures are counted in failed_checks."""
    if ok:
        print(f"PASS {name}", flush=True)
    else:
        failed_checks.append(name)
        print(f"FAIL {name}: {why}", flush=True)
    return ok


def wait_for(predicate, seconds, interval=0.2):
    """Polls until predicate() is truthy or the deadline passes."""
    deadline = time.monotonic() + seconds
    while True:
        value = predicate()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(interval)


def holds(value, needle):
    return any(needle in s for s in texts(value))


def tail(text, n=1500):
    text = text if isinstance(text, str) else text.decode("utf-8", "replace")
    return text[-n:].replace("\n", "\\n")


class FakeApi:
    """tests/agents/fake_api.py on an ephemeral port, with its record file."""

    def __init__(self, work, read_session=None, api_env=None):
        self.record = os.path.join(work, "requests.jsonl")
        port_file = os.path.join(work, "api.port")
        open(self.record, "w").close()
        if os.path.exists(port_file):  # a restart waits for the new port
            os.remove(port_file)
        env = dict(os.environ, **(api_env or {}))
        if read_session:
            env["FAKE_API_READ_SESSION"] = read_session
        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "fake_api.py"), self.record, port_file], env=env
        )
        if not wait_for(lambda: os.path.exists(port_file), 10):
            raise RuntimeError("the fake API did not start")
        self.port = int(open(port_file).read())
        self.url = f"http://127.0.0.1:{self.port}"

    def requests(self, path_end=None):
        out = []
        with open(self.record) as f:
            for line in f:
                entry = json.loads(line)
                if path_end is None or entry["path"].split("?")[0].endswith(path_end):
                    out.append(entry)
        return out

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()


class Sandbox:
    """A private HOME, a project directory, a PATH with the server first,
    and a fake API: one per check group, removed afterwards."""

    def __init__(self, server, name, read_session=None, api_env=None):
        self.root = tempfile.mkdtemp(prefix=f"hydra-agents-{name}.")
        self.home = os.path.join(self.root, "home")
        self.project = os.path.join(self.root, "project")
        self.bin = os.path.join(self.root, "bin")
        self.tmp = os.path.join(self.root, "tmp")
        for d in (self.home, self.project, self.bin, self.tmp):
            os.makedirs(d)
        # The printed configs name the bare command, as a person's PATH has it.
        os.symlink(server, os.path.join(self.bin, "hydra-session-lsp"))
        self.api = FakeApi(self.root, read_session, api_env)

    def trace_mcp(self):
        """From now on, what the agent writes to each `hydra-session-lsp mcp`
        it starts is kept too (mcp_messages reads it): the server behind a
        wrapper that copies its stdin, every other command run as it is."""
        server = os.path.realpath(os.path.join(self.bin, "hydra-session-lsp"))
        self.mcp_trace = os.path.join(self.root, "mcp-stdin.jsonl")
        wrapper = os.path.join(self.bin, "hydra-session-lsp")
        os.remove(wrapper)
        with open(wrapper, "w") as f:
            f.write(
                "#!/bin/sh\n"
                f'if [ "$1" = mcp ]; then tee -a "{self.mcp_trace}" | "{server}" "$@"; exit $?; fi\n'
                f'exec "{server}" "$@"\n'
            )
        os.chmod(wrapper, 0o755)

    def mcp_messages(self):
        """The messages traced since the last call (see trace_mcp)."""
        try:
            with open(self.mcp_trace) as f:
                lines = f.readlines()
            os.truncate(self.mcp_trace, 0)
        except OSError:
            return []
        messages = []
        for line in lines:
            try:
                messages.append(json.loads(line))
            except ValueError:
                pass
        return messages

    def env(self, extra):
        keep = ("PATH", "LANG", "LC_ALL", "TERM", "TMPDIR", "USER", "LOGNAME", "SHELL")
        env = {k: v for k, v in os.environ.items() if k in keep}
        env["PATH"] = self.bin + os.pathsep + env.get("PATH", "/usr/bin:/bin")
        env["HOME"] = self.home
        env["XDG_CONFIG_HOME"] = os.path.join(self.home, ".config")
        env["XDG_CACHE_HOME"] = os.path.join(self.home, ".cache")
        env["XDG_DATA_HOME"] = os.path.join(self.home, ".local", "share")
        env["XDG_STATE_HOME"] = os.path.join(self.home, ".local", "state")
        # Codex saves cut hook output under the temporary directory.
        env["TMPDIR"] = self.tmp
        env.update(extra)
        return env

    def run(self, argv, env, seconds=RUN_SECONDS, stdin=None):
        return subprocess.run(
            ["timeout", "--kill-after=5", str(seconds)] + argv,
            cwd=self.project,
            env=env,
            input=stdin,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            text=True,
        )

    def close(self):
        self.api.stop()
        shutil.rmtree(self.root, ignore_errors=True)


class Tmux:
    """An agent's TUI in a private tmux server, 160x45, read by capture-pane."""

    def __init__(self, sandbox, name, argv, env, seconds=RUN_SECONDS * 2):
        """seconds: how long the agent may run before `timeout` ends it."""
        # The server's socket lives in the sandbox, and goes with it.
        self.sock = os.path.join(sandbox.root, f"{name}.tmux")
        self.pid_file = os.path.join(sandbox.root, f"{name}.pid")
        script = os.path.join(sandbox.root, f"{name}.sh")
        with open(script, "w") as f:
            f.write("cd " + sh_quote(sandbox.project) + "\n")
            for k, v in env.items():
                f.write(f"export {k}={sh_quote(v)}\n")
            f.write(f"echo $$ > {sh_quote(self.pid_file)}\n")
            f.write(f"exec timeout --kill-after=5 {seconds} " + " ".join(map(sh_quote, argv)) + "\n")
        self.tmux("-f", "/dev/null", "new-session", "-d", "-s", "agent", "-x", "160", "-y", "45", "bash " + sh_quote(script))

    def tmux(self, *args):
        return subprocess.run(["tmux", "-S", self.sock] + list(args), capture_output=True, text=True)

    def screen(self):
        return self.tmux("capture-pane", "-p", "-t", "agent").stdout

    def lines(self):
        return self.screen().splitlines()

    def keys(self, *keys):
        self.tmux("send-keys", "-t", "agent", *keys)

    def type(self, text):
        self.tmux("send-keys", "-t", "agent", "-l", text)

    def paste(self, text):
        """Pastes text as a terminal paste (bracketed), then waits for its
        start on the screen: Codex takes keys typed in a burst for a paste
        and a following Enter for a newline, so a prompt is pasted whole."""
        self.tmux("set-buffer", "-b", "prompt", text)
        self.tmux("paste-buffer", "-p", "-d", "-b", "prompt", "-t", "agent")
        return self.shows(text[:40], seconds=10)

    def shows(self, *texts, seconds=30):
        """Waits until every text is on the screen at once."""
        return wait_for(lambda: all(t in self.screen() for t in texts), seconds)

    def shows_message(self, prefix, lines, seconds=30):
        """A hook's message as both TUIs show one: the first line after
        the prefix, the others below it (each cut to what surely fits)."""
        return self.shows(prefix + lines[0][:60], *(line[:60] for line in lines[1:]), seconds=seconds)

    def close(self):
        """Ends the agent and waits for it (the `timeout` that runs it): an
        agent still writing its state would race the sandbox's removal."""
        self.tmux("kill-server")
        try:
            pid = int(open(self.pid_file).read())
        except (OSError, ValueError):
            return
        # `timeout` passes the hangup (and a TERM) on to the agent.
        for sig in (signal.SIGTERM, signal.SIGKILL):
            if wait_for(lambda: not alive(pid), 10):
                return
            try:
                os.kill(pid, sig)
            except OSError:
                return


def alive(pid):
    """Whether pid runs (a zombie counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def sh_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"
