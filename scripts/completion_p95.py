#!/usr/bin/env python3
"""Completion p50/p95 at the client, over stdio, for a given store list.

    scripts/completion_p95.py SERVER SESSIONS STORE...

Starts SERVER (the language server binary) with `store` set to the STOREs,
waits until `sessionReference/status` lists SESSIONS sessions and is done
indexing, then types each of a few queries 40 times and prints one line:
`p50 X ms / p95 Y ms over N requests`. scripts/bench-team.sh runs it with
the same sessions as a local store and as a team store, so the two lines
tell whether a team store costs completion anything (issue 26: completion
p95 unchanged). Full-text search is off in both runs: it is the listing
that is compared, not the body-match index.
"""

import json
import subprocess
import sys
import time

QUERIES = ["", "s", "s0", "s01", "s012", "session", "zzz"]


def main():
    server, want, stores = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    child = subprocess.Popen([server], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    next_id = [0]

    def send(message):
        body = json.dumps(message).encode()
        child.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        child.stdin.flush()

    def read():
        length = 0
        while True:
            line = child.stdout.readline()
            if not line:
                sys.exit("the server closed its output")
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        return json.loads(child.stdout.read(length))

    def call(method, params):
        next_id[0] += 1
        send({"jsonrpc": "2.0", "id": next_id[0], "method": method, "params": params})
        while True:
            message = read()
            if message.get("id") == next_id[0] and "method" not in message:
                return message.get("result")
            if "method" in message and "id" in message:
                # A request of the server's (configuration, progress): answer it.
                send({"jsonrpc": "2.0", "id": message["id"], "result": None})

    call("initialize", {
        "processId": None,
        "rootUri": None,
        "capabilities": {},
        "initializationOptions": {"store": stores, "searchIndex": False},
    })
    send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    uri = "file:///tmp/completion-p95/prompt.md"
    text = "\n".join("@" + q for q in QUERIES)
    send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": text}}})
    deadline = time.monotonic() + 120
    while True:
        status = call("sessionReference/status", {})
        if status.get("sessions") == want and not status.get("indexing"):
            break
        if time.monotonic() > deadline:
            sys.exit(f"never listed {want} sessions: {json.dumps(status)}")
        time.sleep(0.05)
    samples = []
    for _ in range(40):
        for line, query in enumerate(QUERIES):
            start = time.perf_counter()
            call("textDocument/completion", {
                "textDocument": {"uri": uri},
                "position": {"line": line, "character": len(query) + 1}})
            samples.append(time.perf_counter() - start)
    call("shutdown", None)
    send({"jsonrpc": "2.0", "method": "exit"})
    child.wait(timeout=10)
    samples.sort()

    def at(q):
        return samples[min(len(samples) - 1, int(q * len(samples)))] * 1000

    print(f"p50 {at(0.5):.2f} ms / p95 {at(0.95):.2f} ms over {len(samples)} requests")


if __name__ == "__main__":
    main()
