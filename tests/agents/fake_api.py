#!/usr/bin/env python3
"""A fake model API on 127.0.0.1 for the real-agent tests (tests/agents).

    python3 fake_api.py RECORD_FILE PORT_FILE

Listens on an ephemeral port of 127.0.0.1, writes the port to PORT_FILE once
it is listening, and appends every request it receives to RECORD_FILE as one
JSON line: {"method","path","body"} (body parsed as JSON when it is JSON,
else as text). It answers:

- the Anthropic Messages API (Claude Code, through ANTHROPIC_BASE_URL):
  POST /v1/messages with a streamed (SSE) or plain reply of one text block,
  or, when the request offers the MCP tool mcp__<server>__read_session and
  holds no result of it yet, a streamed call of it with {"session": SESSION}
  (first the ToolSearch call that loads it, when Claude Code defers it);
  POST /v1/messages/count_tokens with a count; anything else Claude Code asks
  at startup (model lists, settings, metrics) with an empty JSON object.
- the OpenAI Responses API (Codex, through a custom model_provider):
  POST /v1/responses streamed as SSE. When the request offers a tool whose
  name ends in "read_session" and holds no tool result yet, the reply is a
  call of that tool with {"session": SESSION}; otherwise a final message.

- the OpenAI Chat Completions API (Pi, Qwen Code, Kilo, Continue, Cline,
  Aider, through their OpenAI-compatible base URL): POST /chat/completions,
  streamed (SSE chunks, then [DONE]) or plain. FAKE_API_TOOLS scripts the
  tool calls: a JSON list of [tool name, arguments object], one per turn
  (the n-th entry for a request holding n user messages; none past the
  list, so an agent that adds user messages of its own, such as Qwen Code's
  note that a sub-agent finished, is not made to loop). When the request's last message is the person's (not a tool
  result) and offers its turn's tool, the reply is one call of that tool;
  otherwise a final message. So every turn of a tool-using agent makes one
  tool call, then answers; a sub-agent (a request of one user message) makes
  the first turn's call.

- the Gemini API (Gemini CLI, through GOOGLE_GEMINI_BASE_URL):
  POST …/models/<model>:streamGenerateContent (SSE) and :generateContent,
  one candidate of a text part or of one functionCall part; :countTokens
  with a count.

FAKE_API_TOOL_CHAIN scripts a chain of tool calls on the Chat Completions,
Responses and Gemini APIs (it takes the place of FAKE_API_TOOLS and
FAKE_API_READ_SESSION there): a JSON list of [tool name, arguments object];
a request holding k tool results so far, whose last turn is the person's or
a tool result, gets a call of the k-th entry while the request offers a tool
of that name (exactly, or as the end of an agent's prefixed name such as
Gemini CLI's mcp_hydra_list_sessions or OpenCode's hydra_list_sessions);
past the chain, or when the tool is not offered, a final message. So one
prompt runs every tool of the chain in turn, each result in the request
that follows it.

SESSION comes from the environment variable FAKE_API_READ_SESSION; without
it no tool is ever called on the Anthropic and Responses APIs.

Stdlib only, one thread per connection; stops on SIGTERM.
"""

import json
import os
import re
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

REPLY_TEXT = "Fake model reply."
record_lock = threading.Lock()


def record(path, entry):
    with record_lock, open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(entry) + "\n")
        f.flush()


def sse(events):
    """(event name, data object) pairs as the bytes of an SSE stream."""
    out = []
    for name, data in events:
        out.append(f"event: {name}\ndata: {json.dumps(data)}\n\n")
    return "".join(out).encode()


def anthropic_message(model):
    return {
        "id": "msg_fake_1",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": REPLY_TEXT}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 4},
    }


def anthropic_stream(model):
    start = anthropic_message(model)
    start = dict(start, content=[], stop_reason=None, usage={"input_tokens": 10, "output_tokens": 1})
    return sse(
        [
            ("message_start", {"type": "message_start", "message": start}),
            ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": REPLY_TEXT}}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}, "usage": {"output_tokens": 4}}),
            ("message_stop", {"type": "message_stop"}),
        ]
    )


def texts(value):
    """Every string inside a JSON value, and inside the JSON text a string
    holds (a tool's structured result reaches the model as the JSON text of
    an object, so the context is in it escaped; Codex puts a line of its
    own before it)."""
    if isinstance(value, str):
        yield value
        starts = [i for i in (value.find("{"), value.find("[")) if i >= 0]
        if starts:
            try:
                inner, _ = json.JSONDecoder().raw_decode(value, min(starts))
            except ValueError:
                return
            yield from texts(inner)
    elif isinstance(value, dict):
        for v in value.values():
            yield from texts(v)
    elif isinstance(value, list):
        for v in value:
            yield from texts(v)


def anthropic_tool_call(body, session):
    """The next scripted tool_use for Claude Code, if any: the MCP tool
    read_session (named mcp__<server>__read_session) once offered; before
    that, when Claude Code defers MCP tools behind ToolSearch (it lists
    their names only), the ToolSearch call that loads it, as a model does."""
    if not session:
        return None
    answered = {
        block.get("tool_use_id")
        for message in body.get("messages") or []
        if isinstance(message, dict) and isinstance(message.get("content"), list)
        for block in message["content"]
        if isinstance(block, dict) and block.get("type") == "tool_result"
    }
    if "toolu_fake_read" in answered:
        return None
    offered = [t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)]
    for name in offered:
        if isinstance(name, str) and name.startswith("mcp__") and name.endswith("__read_session"):
            return {"type": "tool_use", "id": "toolu_fake_read", "name": name, "input": {"session": session}}
    listed = "\n".join(texts([body.get("system"), body.get("messages")]))
    deferred = re.search(r"(?<![A-Za-z0-9_])mcp__[A-Za-z0-9_-]+?__read_session\b", listed)
    if deferred and "ToolSearch" in offered and "toolu_fake_search" not in answered:
        query = "select:" + deferred.group(0)
        return {"type": "tool_use", "id": "toolu_fake_search", "name": "ToolSearch", "input": {"query": query}}
    return None


def anthropic_tool_stream(model, call):
    start = dict(anthropic_message(model), content=[], stop_reason=None, usage={"input_tokens": 10, "output_tokens": 1})
    arguments = json.dumps(call["input"])
    return sse(
        [
            ("message_start", {"type": "message_start", "message": start}),
            ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": dict(call, input={})}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": arguments}}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None}, "usage": {"output_tokens": 8}}),
            ("message_stop", {"type": "message_stop"}),
        ]
    )


def tool_names(tools):
    """Every function name a Responses request offers, namespaces included."""
    for tool in tools or []:
        if not isinstance(tool, dict):
            continue
        if isinstance(tool.get("name"), str):
            yield tool["name"], tool
        for inner in tool.get("tools") or []:
            if isinstance(inner, dict) and isinstance(inner.get("name"), str):
                yield inner["name"], dict(inner, namespace=tool.get("name"))


def has_tool_result(items):
    return any(isinstance(i, dict) and i.get("type", "").endswith("_call_output") for i in items or [])


def responses_stream(body):
    items = body.get("input") if isinstance(body.get("input"), list) else []
    call = None
    session = os.environ.get("FAKE_API_READ_SESSION")
    if tool_chain() is not None:
        session = None
        done = sum(1 for i in items if isinstance(i, dict) and i.get("type", "").endswith("_call_output"))
        offered = dict(tool_names(body.get("tools")))
        last = items[-1] if items else {}
        last_is_turn = isinstance(last, dict) and (last.get("role") == "user" or last.get("type", "").endswith("_call_output"))
        chained = chained_call(done, last_is_turn, list(offered))
        if chained:
            call = {
                "type": "function_call",
                "id": f"fc_fake_{done + 1}",
                "call_id": f"call_fake_{done + 1}",
                "name": chained[0],
                "arguments": json.dumps(chained[1]),
            }
            if offered[chained[0]].get("namespace"):
                call["namespace"] = offered[chained[0]]["namespace"]
    if session and not has_tool_result(items):
        for name, tool in tool_names(body.get("tools")):
            if name.endswith("read_session"):
                call = {
                    "type": "function_call",
                    "id": "fc_fake_1",
                    "call_id": "call_fake_1",
                    "name": name,
                    "arguments": json.dumps({"session": session}),
                }
                if tool.get("namespace"):
                    call["namespace"] = tool["namespace"]
                break
    if call is None:
        item = {
            "type": "message",
            "role": "assistant",
            "id": "msg_fake_1",
            "content": [{"type": "output_text", "text": REPLY_TEXT, "annotations": []}],
        }
    else:
        item = call
    response = {"id": "resp_fake_1", "object": "response", "status": "in_progress", "output": []}
    usage = {
        "input_tokens": 10,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 4,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 14,
    }
    events = [
        ("response.created", {"type": "response.created", "response": response}),
        ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0, "item": item}),
    ]
    if call is None:
        events.append(
            ("response.output_text.delta", {"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "item_id": item["id"], "delta": REPLY_TEXT})
        )
    events += [
        ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}),
        ("response.completed", {"type": "response.completed", "response": dict(response, status="completed", output=[item], usage=usage)}),
    ]
    return sse(events)


def tool_chain():
    """FAKE_API_TOOL_CHAIN's [name, arguments] pairs, or None when unset."""
    raw = os.environ.get("FAKE_API_TOOL_CHAIN")
    if not raw:
        return None
    try:
        turns = json.loads(raw)
    except ValueError:
        return []
    return turns if isinstance(turns, list) else []


def offered_as(names, want):
    """The offered name that is `want`, or ends with it after a separator
    (agents prefix an MCP tool with its server's name)."""
    for name in names:
        if not isinstance(name, str):
            continue
        if name == want or (name.endswith(want) and not name[-len(want) - 1].isalnum()):
            return name
    return None


def chained_call(done, last_is_turn, names):
    """The chain's next (name as offered, arguments), if any."""
    turns = tool_chain() or []
    if not last_is_turn or done >= len(turns):
        return None
    want, arguments = turns[done]
    name = offered_as(names, want)
    return (name, arguments) if name else None


def gemini_reply(body):
    """One Gemini candidate: the chain's next functionCall, or the text."""
    contents = [c for c in body.get("contents") or [] if isinstance(c, dict)]
    parts = [p for c in contents for p in c.get("parts") or [] if isinstance(p, dict)]
    done = sum(1 for p in parts if "functionResponse" in p)
    names = [
        d.get("name")
        for t in body.get("tools") or []
        if isinstance(t, dict)
        for d in t.get("functionDeclarations") or []
        if isinstance(d, dict)
    ]
    last_is_turn = bool(contents) and contents[-1].get("role") == "user"
    call = chained_call(done, last_is_turn, names)
    part = {"functionCall": {"name": call[0], "args": call[1]}} if call else {"text": REPLY_TEXT}
    return {
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 4, "totalTokenCount": 14},
        "modelVersion": body.get("model", "gemini-fake"),
    }


def chat_tool_call(body):
    """The scripted tool call for a Chat Completions request, if any (see
    FAKE_API_TOOLS above): the model acts first, then answers what the tool
    gave."""
    if tool_chain() is not None:
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        done = sum(1 for m in messages if m.get("role") == "tool")
        offered = [(t.get("function") or {}).get("name") for t in body.get("tools") or [] if isinstance(t, dict)]
        last_is_turn = bool(messages) and messages[-1].get("role") in ("user", "tool")
        call = chained_call(done, last_is_turn, offered)
        if call is None:
            return None
        return {
            "index": 0,
            "id": f"call_fake_{done + 1}",
            "type": "function",
            "function": {"name": call[0], "arguments": json.dumps(call[1])},
        }
    try:
        turns = json.loads(os.environ.get("FAKE_API_TOOLS") or "[]")
    except ValueError:
        turns = []
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    users = sum(1 for m in messages if m.get("role") == "user")
    if not 0 < users <= len(turns) or messages[-1].get("role") != "user":
        return None
    name, arguments = turns[users - 1]
    offered = {(t.get("function") or {}).get("name") for t in body.get("tools") or [] if isinstance(t, dict)}
    if name not in offered:
        return None
    calls = sum(len(m.get("tool_calls") or []) for m in messages)
    return {
        "index": 0,
        "id": f"call_fake_{calls + 1}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


def chat_usage():
    return {"prompt_tokens": 10, "completion_tokens": 4, "total_tokens": 14}


def chat_completion(body):
    """A plain (not streamed) Chat Completions reply."""
    call = chat_tool_call(body)
    message = {"role": "assistant", "content": None if call else REPLY_TEXT}
    if call:
        message["tool_calls"] = [{k: v for k, v in call.items() if k != "index"}]
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1764500000,
        "model": body.get("model", "gpt-fake"),
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if call else "stop"}],
        "usage": chat_usage(),
    }


def chat_stream(body):
    """A streamed Chat Completions reply: a role chunk, the content (or the
    tool call: its name first, then its arguments), a finish chunk, a usage
    chunk, then [DONE]."""
    call = chat_tool_call(body)
    head = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1764500000, "model": body.get("model", "gpt-fake")}

    def chunk(delta, finish=None, **extra):
        return dict(head, choices=[{"index": 0, "delta": delta, "finish_reason": finish}], **extra)

    chunks = [chunk({"role": "assistant", "content": ""})]
    if call:
        function = call["function"]
        chunks.append(chunk({"tool_calls": [dict(call, function={"name": function["name"], "arguments": ""})]}))
        chunks.append(chunk({"tool_calls": [{"index": 0, "function": {"arguments": function["arguments"]}}]}))
        chunks.append(chunk({}, "tool_calls"))
    else:
        chunks.append(chunk({"content": REPLY_TEXT}))
        chunks.append(chunk({}, "stop"))
    chunks.append(dict(head, choices=[], usage=chat_usage()))
    return ("".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n").encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    record_file = ""

    def log_message(self, fmt, *args):  # quiet: the record file is the log
        pass

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if self.headers.get("Content-Encoding") == "zstd" or raw[:4] == b"\x28\xb5\x2f\xfd":
            return {"undecoded": "zstd", "bytes": len(raw)}
        text = raw.decode("utf-8", "replace")
        try:
            return json.loads(text) if text else None
        except ValueError:
            return text

    def send(self, status, payload, content_type="application/json"):
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        if content_type == "text/event-stream":
            self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        self.wfile.write(data)

    def handle_any(self):
        body = self.read_body() if self.command in ("POST", "PUT", "PATCH") else None
        path = self.path.split("?", 1)[0]
        record(self.record_file, {"method": self.command, "path": self.path, "body": body})
        body = body if isinstance(body, dict) else {}
        if self.command == "POST" and path.endswith("/messages/count_tokens"):
            self.send(200, {"input_tokens": 10})
        elif self.command == "POST" and path.endswith("/messages"):
            model = body.get("model", "claude-fake")
            call = anthropic_tool_call(body, os.environ.get("FAKE_API_READ_SESSION"))
            if call and body.get("stream"):
                self.send(200, anthropic_tool_stream(model, call), "text/event-stream")
            elif body.get("stream"):
                self.send(200, anthropic_stream(model), "text/event-stream")
            else:
                self.send(200, anthropic_message(model))
        elif self.command == "POST" and path.endswith("/chat/completions"):
            if body.get("stream"):
                self.send(200, chat_stream(body), "text/event-stream")
            else:
                self.send(200, chat_completion(body))
        elif self.command == "POST" and path.endswith(":countTokens"):
            self.send(200, {"totalTokens": 10})
        elif self.command == "POST" and path.endswith(":streamGenerateContent"):
            self.send(200, f"data: {json.dumps(gemini_reply(body))}\n\n".encode(), "text/event-stream")
        elif self.command == "POST" and path.endswith(":generateContent"):
            self.send(200, gemini_reply(body))
        elif self.command == "POST" and path.endswith("/responses"):
            self.send(200, responses_stream(body), "text/event-stream")
        elif path.endswith("/models"):
            self.send(200, {"data": [], "models": [], "has_more": False, "object": "list"})
        else:
            self.send(200, {})

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = handle_any

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()


def main():
    record_file, port_file = sys.argv[1], sys.argv[2]
    Handler.record_file = record_file
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
    tmp = port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(tmp, port_file)  # the port appears whole or not at all
    server.serve_forever()


if __name__ == "__main__":
    main()
