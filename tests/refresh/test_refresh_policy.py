"""`refresh` under a verify policy: a claim on a page the model may not verify is not sent (no
tokens spent), its decision says why, and nothing is written for it."""

from __future__ import annotations

import json
from typing import Any

from openwiki_git.refresh.run import run_refresh
from openwiki_git.refresh.settings import RefreshOptions
from openwiki_git.store.workspace import Workspace
from tests.support.refresh_wiki import confirm, stale_wiki
from tests.support.scripted_refresher import ScriptedRefresher


def test_a_page_kept_for_people_is_not_sent_to_the_model(repo: Any) -> None:
    gs = stale_wiki(repo, pages=2, per_page=1)
    repo.write(".openwiki/config.yml", repo.read(".openwiki/config.yml") + 'verify_policy:\n  - pages: "topic0.md"\n    allow: [human]\n')
    repo.commit_all("policy")
    before = repo.read(".openwiki/.claims/topic0.json")
    fake = ScriptedRefresher([confirm(gs[1])])
    result = run_refresh(Workspace.open(repo.root), RefreshOptions(), fake)
    held, done = sorted(result.decisions, key=lambda d: d.page)
    assert held.verdict is None and held.skipped is not None
    assert "forbids 'model:" in held.skipped and '$.verify_policy[0]: pages "topic0.md" allow [human]' in held.skipped
    assert done.verdict == "confirm" and len(fake.history) == 1 and fake.history[0].claim_id == gs[1].claim_id
    assert repo.read(".openwiki/.claims/topic0.json") == before
    assert json.loads(repo.read(".openwiki/.claims/topic1.json"))["claims"][0]["verifiedBy"].startswith("model:")
