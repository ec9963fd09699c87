"""A header-like word written in prose (`X-Forwarded-Port`, each part capitalised, no code span) is
a literal grounded where the package's code spells it (any case), as one in backticks is: uvicorn's
proxy middleware stopped reading `x-forwarded-port` and its settings page still named it. Through
the real CLI and the hook on a real repository."""

from __future__ import annotations

import pytest

from openwiki_git.ground.refs import page_refs
from tests.support.ground_docs import ground_all
from tests.support.kinds_repo import staged_hook
from tests.support.repo import GitRepo

MIDDLEWARE = '''def client(headers: dict[bytes, bytes]) -> tuple[bytes, bytes]:
    host = headers.get(b"x-forwarded-for", b"")
    port = headers.get(b"x-forwarded-port", b"")
    return host, port
'''

SENTENCE = "The middleware reads X-Forwarded-For and X-Forwarded-Port to populate remote address info."
PAGE = f"# Proxies\n\n{SENTENCE}\n\nSee [Keep-Alive](https://example.org/Keep-Alive) and `X-Real-Ip`; Cython-based wheels.\n"


def test_header_words_in_prose_are_literals_not_in_links_or_code_spans() -> None:
    got = [(r.kind, r.name) for r in page_refs(PAGE).refs]
    assert got == [
        ("literal", "X-Forwarded-For"), ("literal", "X-Forwarded-Port"),
        ("literal", "X-Real-Ip"),  # the code span's own reading, first
        ("literal", "Keep-Alive"),  # the link's text is prose; its target is not read
    ]  # not "Cython-based": a part is not capitalised


def test_a_header_word_the_code_stops_reading_flags_its_sentence(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    pages = ground_all(repo, capsys, {"proxy/__init__.py": "", "proxy/middleware.py": MIDDLEWARE, "docs/proxies.md": PAGE})["pages"]
    claims = {c["statement"]: [i["evidence"] for i in c["items"]] for p in pages for c in p["claims"]}
    assert len(claims[SENTENCE]) == 2 and all("?grep=" in e for e in claims[SENTENCE])
    repo.commit_all("grounded")
    assert repo.run("check") == 0

    repo.write("proxy/middleware.py", MIDDLEWARE.replace('    port = headers.get(b"x-forwarded-port", b"")\n', "    port = b\"\"\n"))
    rc, out = staged_hook(repo, capsys)
    assert rc == 1 and "X-Forwarded-Port" in out, out
