"""The comment marker, `<!-- c-1a2b3c4d -->` (pages/markers.py), through the real CLI: `check` on
each of its routes (the lean path of a plainly fresh wiki, the cache, `--no-cache`), the hook
that marks the claim, the citations block that gives it no footnote, and `claim retract`."""

from __future__ import annotations

import json

from tests.support.repo import add_claim


def _report(repo, capsys, *argv: str) -> dict:  # type: ignore[no-untyped-def, type-arg]
    capsys.readouterr()
    repo.run("check", "--format", "json", *argv)
    return json.loads(capsys.readouterr().out)


def test_a_comment_marker_is_a_marker_for_check_the_hook_and_the_block(wiki_repo, capsys) -> None:  # type: ignore[no-untyped-def]
    page = ".openwiki/guide.md"
    wiki_repo.write(page, wiki_repo.read(page) + "\nThirty follows.\n")
    cid = add_claim(wiki_repo, "guide.md", "Line ten says ten.", "repo://src/app.py#L10-L12")
    other = add_claim(wiki_repo, "guide.md", "Thirty follows.", "repo://src/app.py#L30-L31")
    label, other_label = f"c-{cid[6:14]}", f"c-{other[6:14]}"
    text = wiki_repo.read(page)
    assert f"[^{label}]: " in text  # claim add wrote the footnote form and its definition
    wiki_repo.write(page, text.replace(f"Line ten says ten.[^{label}]", f"Line ten says ten. <!-- {label} -->"))
    for argv in ((), (), ("--no-cache",)):  # the lean path, then the cache (written, then read), then without it
        data = _report(wiki_repo, capsys, *argv)
        assert data["summary"]["missing_markers"] == 0 and data["summary"]["fresh"] == 2, argv
        assert [c["marker_present"] for c in data["claims"]] == [True, True], argv
    # The citations block, re-rendered by `check --fix`, keeps the footnote's definition only.
    assert wiki_repo.run("check", "--fix") == 0
    text = wiki_repo.read(page)
    assert f"[^{label}]:" not in text and f"[^{other_label}]: " in text
    assert f"Line ten says ten. <!-- {label} -->\n" in text
    wiki_repo.commit_all("a comment marker")

    # The hook marks the claim whose lines changed; its marker stays where it is and gets no footnote.
    lines = wiki_repo.read("src/app.py").splitlines(keepends=True)
    lines[10] = "line eleven, rewritten\n"
    lines[29] = "line thirty, rewritten\n"
    wiki_repo.write("src/app.py", "".join(lines))
    wiki_repo.git("add", "src/app.py")
    capsys.readouterr()
    assert wiki_repo.run("hook") == 1
    out = capsys.readouterr().out
    assert f"{cid}: Line ten says ten." in out and f"{other}: Thirty follows." in out
    text = wiki_repo.read(page)
    assert f"[^{label}]:" not in text and f"<!-- {label} -->" in text
    assert text.count("(⚠ stale") == 1  # the footnote's definition says so; the comment has nothing to render
    data = _report(wiki_repo, capsys)
    marked = next(c for c in data["claims"] if c["id"] == cid)
    assert (marked["status"], marked["marker_present"]) == ("stale", True)
    assert text.splitlines()[marked["line"] - 1] == f"Line ten says ten. <!-- {label} -->"  # PAGE:LINE of its sentence
    # `claim retract` takes the comment away with the claim.
    assert wiki_repo.run("claim", "retract", f"<!-- {label} -->") == 0
    assert label not in wiki_repo.read(page) and "Line ten says ten.\n" in wiki_repo.read(page)
