#!/usr/bin/env python3
"""The OpenWiki algorithm, as a baseline process for bench_check.py: every claim's every cited
range is re-read from its file and re-hashed, with no cache and no index shared between claims.

    python bench/openwiki_algorithm.py REPO [WIKI_DIR]

Prints `N claims: F fresh, S not fresh`; exit 0 when every claim is fresh, 1 otherwise. It reads
the sidecars with `json` and computes the versions with openwiki_git.evidence.tokens (the same token
algorithm OpenWiki uses), so the comparison is of the algorithm, not of the language.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from openwiki_git.evidence.resource import parse_resource
from openwiki_git.evidence.tokens import file_version, lines_version, split_lines


def main() -> int:
    root = Path(sys.argv[1])
    wiki = root / (sys.argv[2] if len(sys.argv) > 2 else ".openwiki")
    total = fresh = 0
    for folder, _, names in os.walk(wiki / ".claims"):
        for name in sorted(names):
            if not name.endswith(".json"):
                continue
            data = json.loads(Path(folder, name).read_text("utf-8"))
            for claim in data["claims"]:
                total += 1
                ok = True
                for ev in claim["evidence"]:
                    res = parse_resource(ev["resource"], wiki_dir=".openwiki")
                    try:
                        text = (root / res.path).read_text("utf-8")  # re-read for every range
                    except OSError:
                        ok = False
                        continue
                    lines = split_lines(text)
                    if res.start is None or res.end is None:
                        ok = ok and file_version(text) == ev["version"]
                    else:
                        ok = ok and lines_version(lines, res.start - 1, res.end) == ev["version"]
                fresh += ok
    print(f"{total} claims: {fresh} fresh, {total - fresh} not fresh")
    return 0 if fresh == total else 1


if __name__ == "__main__":
    raise SystemExit(main())
