"""Who may verify what: the config's `verify_policy`, a list of `{pages: GLOB, allow: [KIND, ...]}`
rules over page paths inside the wiki. The first rule whose glob matches a page decides which
actor kinds may verify its claims; a page no rule matches may be verified by anyone. Pure.

An actor's kind is the prefix of its `verifiedBy` (`human:`, `agent:`, `model:`, `tool:`);
`openwiki-git/...` (the tool itself, e.g. `check --fix`) is `tool`. Anything else has no known
kind, and a matching rule refuses it: on a guarded page the record must say who verified.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from openwiki_git.errors import PolicyError
from openwiki_git.evidence.kinds import glob_regex

KINDS = ("human", "agent", "model", "tool")
CONFIG_PLACE = ".openwiki/config.yml"


@dataclass(frozen=True, slots=True)
class Rule:
    index: int  # the rule's place in the list, for the message
    pages: str
    allow: tuple[str, ...]
    pattern: re.Pattern[str]

    def describe(self) -> str:
        """`.openwiki/config.yml: $.verify_policy[0]: pages "security/**" allow [human]`."""
        return f'{CONFIG_PLACE}: $.verify_policy[{self.index}]: pages "{self.pages}" allow [{", ".join(self.allow)}]'


def actor_kind(verified_by: str | None) -> str | None:
    """The kind of actor a `verifiedBy` names (None: none recorded, or no known prefix)."""
    if not verified_by:
        return None
    if verified_by.startswith("openwiki-git/") or verified_by == "openwiki-git":
        return "tool"
    prefix, sep, _ = verified_by.partition(":")
    return prefix if sep and prefix in KINDS else None


def glob_pattern(glob: str) -> re.Pattern[str]:
    """A page glob as a regular expression matched from a page path's start to its end: the one
    glob reading of `evidence/kinds.py` (`**` any number of directories, `*` and `?` within one
    path segment, `[...]`: gitignore's reading, not fnmatch's, whose `*` crosses `/`)."""
    return re.compile(glob_regex(glob).pattern + r"\Z")


def rules(raw: Any) -> tuple[Rule, ...]:
    """The rules of a validated `verify_policy` value (None or absent: none)."""
    if not raw:
        return ()
    return tuple(
        Rule(i, str(r["pages"]), tuple(str(a) for a in r["allow"]), glob_pattern(str(r["pages"]).lstrip("/")))
        for i, r in enumerate(raw)
    )


def rule_for(policy: tuple[Rule, ...], page: str) -> Rule | None:
    """The first rule whose glob matches the page (a path inside the wiki), None when none does."""
    return next((r for r in policy if r.pattern.match(page)), None)


def forbidding(policy: tuple[Rule, ...], page: str, verified_by: str | None) -> Rule | None:
    """The rule that forbids `verified_by` to verify the page's claims, None when it may."""
    rule = rule_for(policy, page)
    if rule is None:
        return None
    return None if actor_kind(verified_by) in rule.allow else rule


def refusal(rule: Rule, page: str, verified_by: str | None) -> tuple[str, str]:
    """(message, hint) of a verification the rule forbids."""
    kind = actor_kind(verified_by)
    if verified_by is None:
        who = "an unnamed verifier (name it, e.g. --by human:NAME)"
    elif kind is None:
        who = f"{verified_by!r} (no known kind: prefix it with human:, agent:, model: or tool:)"
    else:
        who = f"{verified_by!r} ({kind})"
    return (
        f"{page}: the verify policy forbids {who} to verify claims here: {rule.describe()}",
        f"have one of [{', '.join(rule.allow)}] verify it, e.g. --by {rule.allow[0]}:NAME, or change the rule in {CONFIG_PLACE}",
    )


def problems(policy: tuple[Rule, ...], page: str, claims: Any) -> list[dict[str, Any]]:
    """The check's `policy_problems` of one page: each claim whose recorded verifier the policy
    forbids (`{claim_id, page, verified_by, rule}`). A claim never verified is not one."""
    if not policy:
        return []
    out = []
    for c in claims:
        if c.verified_by is None:
            continue
        rule = forbidding(policy, page, c.verified_by)
        if rule is not None:
            out.append({"claim_id": c.id, "page": page, "verified_by": c.verified_by, "rule": rule.describe()})
    return out


def enforce(policy: tuple[Rule, ...], page: str, verified_by: str | None) -> None:
    """Raise PolicyError, naming the rule, when the policy forbids `verified_by` to verify the page."""
    rule = forbidding(policy, page, verified_by)
    if rule is not None:
        raise PolicyError(*refusal(rule, page, verified_by))
