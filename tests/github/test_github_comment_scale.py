"""`github comment` at two hundred marks through the Action's code path (issue 36 item 3): the
production client on `responses`, a `pull_request` event, a real repository whose pull request
marks 200 claims in one commit (the hook ran) and five more in another (no hook). The sticky
comment groups the claims by cause, worst first, names each cause's commit, stays under 60,000
characters, and every claim is in it or one click away (the run summary lists them all)."""

from __future__ import annotations

import re

from tests.support import many_marks
from tests.support.github_fake import REPO, outputs, write_event

OTHER = "".join(f"other line {i}\n" for i in range(1, 21))


def test_two_causes_in_two_commits_every_claim_reachable(many_marks_repo, fake, actions_env, capsys) -> None:  # type: ignore[no-untyped-def]
    repo = many_marks_repo
    repo.write("src/other.py", OTHER)
    page = repo.read(".openwiki/api.md")
    repo.write(".openwiki/api.md", page + "".join(f"Other line {i} is there.\n\n" for i in range(1, 6)))
    repo.git("add", "-A")
    for i in range(1, 6):
        assert repo.run("claim", "add", "--page", "api.md", "--statement", f"Other line {i} is there.",
                        "--evidence", f"repo://src/other.py#L{2 * i - 1}-L{2 * i - 1}", "--by", "human:ann") == 0
    base = repo.commit_all("five claims on other.py")
    repo.git("checkout", "-q", "-b", "feature")
    many_marks.annotate(repo)
    repo.git("add", "-A")
    capsys.readouterr()
    assert repo.run("hook") == 1  # the developer's hook marks the 200 claims, in the commit that changes them
    annotations = repo.commit_all("annotations: PEP 604")
    repo.write("src/other.py", "".join(f"other line {i}, reworded\n" if i in (1, 3, 5, 7, 9) else f"other line {i}\n"
                                       for i in range(1, 21)))
    code = repo.commit_all("other.py reworded (no hook)")  # a developer without the hook: check finds them
    write_event(actions_env, base, code)
    capsys.readouterr()
    assert repo.run("github", "comment") == 0
    (sticky,) = fake.sticky()
    body = sticky["body"]
    assert len(body) < 60_000 and len(body.encode("utf-8")) <= 60_000
    assert "### openwiki-git: 205 wiki claims no longer match the code" in body
    heads = re.findall(r"^#### (\d)\. (.+)$", body, re.M)
    assert [n for n, _ in heads] == ["1", "2"]
    assert heads[0][1].startswith("code changed in 5 ranges, in [`" + code[:7] + "`]") and "(other.py reworded (no hook))" in heads[0][1]
    assert heads[1][1].startswith("annotations changed in 20 definitions, in [`" + annotations[:7] + "`]")
    assert heads[1][1].endswith(": 200 claims") and f"https://github.com/{REPO}/commit/{annotations}" in heads[1][1]
    labels = {"c-" + cid.removeprefix("claim_")[:8] for cid in repo.ids}
    in_body = {label for label in labels if f"`{label}`" in body}
    summary = actions_env["summary"].read_text("utf-8")
    in_summary = {label for label in labels if f"`{label}`" in summary}
    assert in_summary == labels  # the run summary lists every claim
    rest = len(labels) - len(in_body)
    if rest:  # whatever the comment leaves out, it counts, and links to where they all are
        assert f"**…and {rest} more claims** of this cause: the complete list is in [the run summary]" in body
    assert len(in_body) >= 150  # one line per claim: most of them fit
    assert body.count("<details>") == body.count("</details>") >= 2  # the diffs folded, at least one per cause
    assert "#### annotations changed in 20 definitions" in summary and "#### code changed in 5 ranges" in summary
    assert outputs(actions_env["output"])["stale-count"] == "205"
