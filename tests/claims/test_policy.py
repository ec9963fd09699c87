"""`verify_policy`: who may verify which pages (claims/policy.py), enforced by `claim` and
reported by `check` (issue 22, item 3)."""

from __future__ import annotations

import json

from openwiki_git.claims import policy
from openwiki_git.pages import citations

POLICY = 'verify_policy:\n  - pages: "security/**"\n    allow: [human]\n  - pages: "*.md"\n    allow: [human, agent]\n'
RULE0 = '.openwiki/config.yml: $.verify_policy[0]: pages "security/**" allow [human]'


def test_globs_and_actor_kinds_first_rule_wins() -> None:
    rules = policy.rules([{"pages": "security/**", "allow": ["human"]}, {"pages": "*.md", "allow": ["agent"]}])
    assert policy.rule_for(rules, "security/keys/rotation.md") is rules[0]
    assert policy.rule_for(rules, "guide.md") is rules[1]
    assert policy.rule_for(rules, "ops/guide.md") is None  # `*` stays inside one directory
    assert [policy.actor_kind(v) for v in ("human:ada", "agent:claude", "model:gpt", "tool:x", "openwiki-git/1.0", "ada", None)] == [
        "human", "agent", "model", "tool", "tool", None, None
    ]
    assert policy.forbidding(rules, "security/a.md", "human:ada") is None
    assert policy.forbidding(rules, "security/a.md", "agent:claude") is rules[0]
    assert rules[0].describe() == RULE0


def _guarded(repo, capsys):  # type: ignore[no-untyped-def]
    repo.write(".openwiki/security/keys.md", "# Keys\n\nLine ten says ten.\n")
    capsys.readouterr()
    assert repo.run("claim", "add", "--page", "security/keys.md", "--statement", "Line ten says ten.",
                    "--evidence", "repo://src/app.py#L10-L12", "--by", "human:ada") == 0
    cid = capsys.readouterr().out.split()[0]
    repo.write(".openwiki/config.yml", repo.read(".openwiki/config.yml") + POLICY)
    repo.commit_all("guarded page")
    return cid


def test_claim_confirm_and_edit_refuse_a_forbidden_verifier_naming_the_rule(wiki_repo, capsys) -> None:  # type: ignore[no-untyped-def]
    cid = _guarded(wiki_repo, capsys)
    before = wiki_repo.read(".openwiki/.claims/security/keys.json")
    assert wiki_repo.run("claim", "confirm", cid, "--by", "agent:claude") == 2
    err = capsys.readouterr().err
    assert "error: security/keys.md: the verify policy forbids 'agent:claude' (agent)" in err and RULE0 in err
    assert wiki_repo.run("claim", "edit", cid, "--evidence", "repo://src/app.py#L10-L11", "--by", "model:gpt") == 2
    assert RULE0 in capsys.readouterr().err
    assert wiki_repo.run("claim", "confirm", cid) == 2  # a guarded page needs a named verifier
    assert "an unnamed verifier" in capsys.readouterr().err
    assert wiki_repo.read(".openwiki/.claims/security/keys.json") == before
    assert wiki_repo.run("claim", "confirm", cid, "--by", "human:bob") == 0
    assert json.loads(wiki_repo.read(".openwiki/.claims/security/keys.json"))["claims"][0]["verifiedBy"] == "human:bob"


def test_claim_retract_obeys_the_policy_as_confirm_does(wiki_repo, capsys) -> None:  # type: ignore[no-untyped-def]
    cid = _guarded(wiki_repo, capsys)
    sidecar, page = ".openwiki/.claims/security/keys.json", ".openwiki/security/keys.md"
    before = wiki_repo.read(sidecar), wiki_repo.read(page)
    assert wiki_repo.run("claim", "retract", cid, "--by", "agent:claude") == 2
    err = capsys.readouterr().err
    assert "error: security/keys.md: the verify policy forbids 'agent:claude' (agent)" in err and RULE0 in err
    assert wiki_repo.run("claim", "retract", cid) == 2  # a guarded page needs a named decider
    assert "an unnamed verifier" in capsys.readouterr().err
    assert (wiki_repo.read(sidecar), wiki_repo.read(page)) == before  # nothing written
    assert wiki_repo.run("claim", "retract", cid, "--by", "human:bob") == 0
    assert json.loads(wiki_repo.read(sidecar))["claims"] == []
    assert citations.marker(cid) not in wiki_repo.read(page)


def test_check_reports_a_verifier_set_by_hand_that_the_policy_forbids(wiki_repo, capsys) -> None:  # type: ignore[no-untyped-def]
    cid = _guarded(wiki_repo, capsys)
    assert wiki_repo.run("check") == 0
    path = ".openwiki/.claims/security/keys.json"
    wiki_repo.write(path, wiki_repo.read(path).replace('"human:ada"', '"model:gpt-4o"'))
    capsys.readouterr()
    for _ in range(2):  # cold, then answered from the check cache
        assert wiki_repo.run("check", "--format", "json") == 1
        data = json.loads(capsys.readouterr().out)
        assert data["policy_problems"] == [{"claim_id": cid, "page": "security/keys.md", "verified_by": "model:gpt-4o", "rule": RULE0}]
        assert data["summary"]["policy_problems"] == 1
    assert wiki_repo.run("check", "--no-cache") == 1
    assert f"security/keys.md: {cid}: verified by model:gpt-4o, which the verify policy forbids: {RULE0}" in capsys.readouterr().out
    # The policy is a key of the cache: lifting the rule clears the problem on the warm path too.
    wiki_repo.write(".openwiki/config.yml", wiki_repo.read(".openwiki/config.yml").replace("allow: [human]", "allow: [human, model]"))
    assert wiki_repo.run("check", "--format", "json") == 0
    data = json.loads(capsys.readouterr().out)
    assert "policy_problems" not in data and "policy_problems" not in data["summary"]  # present only when there are some


def test_a_malformed_policy_is_a_config_error(wiki_repo, capsys) -> None:  # type: ignore[no-untyped-def]
    wiki_repo.write(".openwiki/config.yml", 'verify_policy:\n  - pages: "a/**"\n    allow: [robots]\n')
    assert wiki_repo.run("check") == 2
    err = capsys.readouterr().err
    assert "config.yml" in err and "verify_policy" in err and "Traceback" not in err


def _hand_set(repo, cid: str) -> None:  # type: ignore[no-untyped-def]
    path = ".openwiki/.claims/security/keys.json"
    repo.write(path, repo.read(path).replace('"human:ada"', '"model:gpt-4o"'))


def test_the_hook_and_lint_stop_a_verifier_set_by_hand(wiki_repo, capsys) -> None:  # type: ignore[no-untyped-def]
    cid = _guarded(wiki_repo, capsys)
    _hand_set(wiki_repo, cid)
    wiki_repo.git("add", "-A")
    capsys.readouterr()
    assert wiki_repo.run("hook") == 1
    err = capsys.readouterr().err
    assert f".openwiki/security/keys.md: {cid}: verified by model:gpt-4o, which the verify policy forbids: {RULE0}" in err
    assert wiki_repo.run("hook") == 1  # not a stop-once: it stays until a permitted verifier confirms
    assert wiki_repo.run("hook", "--check") == 1
    assert wiki_repo.run("lint", "--format", "json") == 1
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert [f["kind"] for f in findings if f["kind"] == "verify-policy"] == ["verify-policy"]
    assert wiki_repo.run("claim", "confirm", cid, "--by", "human:ada") == 0
    wiki_repo.git("add", "-A")
    assert wiki_repo.run("hook") == 0


def test_check_base_and_the_pr_comment_name_the_rule(wiki_repo, capsys) -> None:  # type: ignore[no-untyped-def]
    from openwiki_git.github import comment, render

    cid = _guarded(wiki_repo, capsys)
    wiki_repo.git("checkout", "-q", "-b", "pr")
    _hand_set(wiki_repo, cid)
    wiki_repo.commit_all("verified by a model, by hand")
    capsys.readouterr()
    assert wiki_repo.run("check", "--base", "main", "--format", "json") == 1
    data = json.loads(capsys.readouterr().out)
    assert data["policy_problems"][0]["rule"] == RULE0 and data["summary"]["policy_problems"] == 1
    body = comment.render_comment(data, render.Links("https://github.com", "o/r", data["head"], None))
    assert "verified by whom the verify policy forbids" in body and "`model:gpt-4o`" in body and "security/keys.md" in body
