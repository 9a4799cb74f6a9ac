"""Pastes text captures into README.md between their markers.

    python3 scripts/paste-screen.py README.md NAME FILE [NAME FILE ...]

replaces what stands between `<!-- NAME:start -->` and `<!-- NAME:end -->`
by FILE's text in a ```text block. A marker that is not there is skipped.
"""
import re
import sys

doc, pairs = sys.argv[1], sys.argv[2:]
text = open(doc, encoding="utf-8").read()
for name, path in zip(pairs[::2], pairs[1::2]):
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    if start not in text:
        continue
    screen = open(path, encoding="utf-8").read().rstrip("\n")
    block = f"{start}\n```text\n{screen}\n```\n{end}"
    text = re.sub(re.escape(start) + ".*?" + re.escape(end), lambda m: block, text, flags=re.S)
    print(f"paste-screen: {path} into {doc} ({name})")
open(doc, "w", encoding="utf-8").write(text)
