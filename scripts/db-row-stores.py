#!/usr/bin/env python3
"""One session whose first prompt is SIZE MiB of text, in every database
format and as a hydra log (issue 27 item 14), built as
tests/stores/big_rows.rs builds them:
    scripts/db-row-stores.py OUT_DIR [SIZE_MB]
Writes OUT_DIR/{kilo,opencode,goose,crush,zed,hydra}/; needs `zstd`."""
import json, os, sqlite3, subprocess, sys

out = sys.argv[1]
mb = int(sys.argv[2]) if len(sys.argv) > 2 else 100
fixtures = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures")
filler = "lorem ipsum dolor sit amet "
big = "Plan the billing migration now\n" + filler * ((mb << 20) // len(filler))


def ddl(name):
    with open(os.path.join(fixtures, name)) as f:
        return "\n".join(l for l in f if not l.startswith("INSERT"))


def fresh(path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.exists(path):
        os.remove(path)
    return sqlite3.connect(path)


for name in ("kilo/kilo.db", "opencode/opencode.db"):
    c = fresh(f"{out}/{name}")
    c.executescript(ddl("opencode/opencode.sql"))
    c.execute("INSERT INTO project VALUES ('prj','/w',1)")
    c.execute("INSERT INTO session VALUES ('ses_big','prj',NULL,'s','/w','New session - 2026-09-01T08:00:00.000Z','1',NULL,1788249600000,1788249600000)")
    c.execute("""INSERT INTO message VALUES ('msg_1','ses_big',1,1,'{"role":"user"}')""")
    c.execute("INSERT INTO part VALUES ('prt_1','msg_1','ses_big',1,1,?)", (json.dumps({"type": "text", "text": big}),))
    c.execute("""INSERT INTO message VALUES ('msg_2','ses_big',2,2,'{"role":"assistant","parentID":"msg_1","finish":"stop"}')""")
    c.execute("""INSERT INTO part VALUES ('prt_2','msg_2','ses_big',2,2,'{"type":"text","text":"Planned."}')""")
    c.commit()
    c.close()

c = fresh(f"{out}/goose/sessions.db")
c.executescript(ddl("goose/schema.sql"))
c.execute("INSERT INTO sessions (id, name, working_dir, created_at) VALUES ('g_big','CLI Session','/w','2026-09-01 08:00:00')")
c.execute("INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES ('g_big','user',?,1788249600)", (json.dumps([{"type": "text", "text": big}]),))
c.execute("INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES ('g_big','assistant',?,1788249601)", (json.dumps([{"type": "text", "text": "Planned."}]),))
c.commit()
c.close()

c = fresh(f"{out}/crush/crush.db")
c.executescript(ddl("crush/schema.sql"))
c.execute("INSERT INTO sessions (id, title, updated_at, created_at) VALUES ('c_big','New Session',1,1788249600)")
c.execute("INSERT INTO messages (id, session_id, role, parts, created_at, updated_at) VALUES ('m1','c_big','user',?,1788249600,1)", (json.dumps([{"type": "text", "data": {"text": big}}]),))
c.execute("INSERT INTO messages (id, session_id, role, parts, created_at, updated_at) VALUES ('m2','c_big','assistant',?,1788249601,1)", (json.dumps([{"type": "text", "data": {"text": "Planned."}}]),))
c.commit()
c.close()

c = fresh(f"{out}/zed/threads.db")
c.executescript(ddl("zed/schema.sql"))
thread = json.dumps({"version": "0.3.0", "title": "New Thread", "messages": [
    {"User": {"id": "u1", "content": [{"Text": big}]}},
    {"Agent": {"content": [{"Text": "Planned."}], "tool_results": {}}}]}).encode()
data = subprocess.run(["zstd", "-3", "-c"], input=thread, capture_output=True, check=True).stdout
c.execute("INSERT INTO threads (id, summary, updated_at, data_type, data, folder_paths, folder_paths_order, created_at) VALUES ('z_big','New Thread','2026-09-01T08:05:00Z','zstd',?,'/w','0','2026-09-01T08:00:00Z')", (data,))
c.commit()
c.close()

os.makedirs(f"{out}/hydra", exist_ok=True)
with open(f"{out}/hydra/big.jsonl", "w") as f:
    f.write(json.dumps({"type": "session", "version": 1, "id": "h_big", "createdAt": 1788249600000, "cwd": "/w"}) + "\n")
    f.write(json.dumps({"seq": 1, "type": "user/message", "data": {"id": "m1", "source": {"kind": "user"}, "content": [{"type": "text", "text": big}]}}) + "\n")
