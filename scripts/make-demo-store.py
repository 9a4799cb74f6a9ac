#!/usr/bin/env python3
"""Writes the demo session store under examples/sessions/.

The store is committed; this script documents how it was made and can make it
again (it is deterministic). Run from the repository root.
"""
import json
import os

ROOT = os.path.join("examples", "sessions")
T0 = 1764400000000  # 2025-11-29T07:06:40Z


def text(t):
    return [{"type": "text", "text": t}]


def user(seq, mid, t):
    return {"seq": seq, "type": "user/message",
            "data": {"id": mid, "source": {"kind": "user"}, "content": text(t)}}


def assistant(seq, mid, t, reasoning=None, tool=None):
    content = []
    if reasoning:
        content.append({"type": "reasoning", "text": reasoning})
    content += text(t)
    if tool:
        content.append({"type": "tool_call", "id": "call-" + mid, "name": tool[0], "input": tool[1]})
    return {"seq": seq, "type": "assistant/message",
            "data": {"message": {"id": mid, "content": content}}}


def write(rel, header, events):
    path = os.path.join(ROOT, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for obj in [header] + events:
            f.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")


# 1. A compacted debugging session.
write("2026/11/checkout-tax.jsonl",
      {"type": "session", "version": 1, "id": "checkout-tax", "createdAt": T0 + 1000,
       "cwd": "/home/ana/shop"},
      [user(1, "m1", "Checkout fails for carts with more than 3 items. Why?"),
       {"seq": 2, "type": "assistant/delta", "data": {"messageId": "m2", "text": "Let me look"}},
       assistant(3, "m2", "The tax is rounded per line instead of per cart, so totals drift by a cent.",
                 reasoning="Compare cart.rs and tax.rs", tool=("read", {"path": "src/cart.rs"})),
       {"seq": 4, "type": "tool/result", "data": {"callId": "call-m2", "content": [{"type": "text", "text": "fn total() {..}"}]}},
       {"seq": 5, "type": "session/title", "data": {"title": "Checkout tax rounding"}},
       {"seq": 6, "type": "user/message", "data": {"id": "m3", "source": {
           "kind": "compaction", "marker": "@hydraharness/harness-compaction", "throughSeq": 4},
           "content": text("Summary: checkout totals drift because tax is rounded per line in src/cart.rs; "
                           "the fix is to round once per cart in src/tax.rs.")}},
       user(7, "m4", "Fix it and keep the public API."),
       assistant(8, "m5", "Done: `Cart::total` now sums exact amounts and rounds once. All 41 tests pass.")])

# 2. A subagent session with a durable creation label.
write("2026/11/test-writer.jsonl",
      {"type": "session", "version": 1, "id": "checkout-tax.test-writer", "createdAt": T0 + 2000,
       "cwd": "/home/ana/shop", "label": "test-writer", "parentId": "checkout-tax"},
      [user(1, "s1", "Write regression tests for per-cart tax rounding."),
       assistant(2, "s2", "Added tests/tax_rounding.rs with 6 cases, including a 3-item cart at 7.25% tax."),
       {"seq": 3, "type": "session/title", "data": {"title": "Tax rounding tests"}}])

# 3. A long refactoring session: larger than the default 64 KiB budget.
events = [user(1, "r0", "Refactor the inventory module into smaller files, one concern each.")]
seq = 1
for step in range(1, 61):
    seq += 1
    events.append(user(seq, "u%d" % step, "Step %d: what is next for the inventory refactor?" % step))
    seq += 1
    body = ("Step %d. Moved `stock_level` helpers into inventory/stock.rs and updated callers. " % step) * 18
    events.append(assistant(seq, "a%d" % step, body.strip()))
seq += 1
events.append({"seq": seq, "type": "session/title", "data": {"title": "Inventory refactor"}})
write("inventory-refactor.jsonl",
      {"type": "session", "version": 1, "id": "inventory-refactor", "createdAt": T0 + 500,
       "cwd": "/home/ana/shop"}, events)

# 4. A session in another workspace, without a title.
write("ops/deploy.jsonl",
      {"type": "session", "version": 1, "id": "deploy-2026-11-28", "createdAt": T0 + 3000,
       "cwd": "/home/ana/ops"},
      [user(1, "d1", "Deploy the shop to staging."),
       assistant(2, "d2", "Staging is on build 512; smoke tests are green.")])
