"""Why doc_recall missed a truth item, in words the grounding work can act on.

- "no claim on it": nothing guards the item's paragraph, example or section. The detail says what
  the item names, by the strongest thing it names: an example (its fence language); a CLI option
  (`--reload`); an environment variable or constant (`UVICORN_PORT`); an API name, dotted or called
  (`uvicorn.run()`, `Config.load`); a plain identifier (`total`); a literal or other code span
  (`5000`, `"<module>:<attribute>"`); or plain prose with no code span at all.
- "a claim not flagged": its paragraph carries a claim, and the commit did not flag it. The detail
  says what the claims cite (a head, a whole definition, lines, a file, a set) and whether the
  commit changed any cited file (then it changed something else in that file).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bench.doc_recall import Claim
    from bench.doc_recall_truth import Item

SPAN = re.compile(r"`([^`\n]+)`")
OPTION = re.compile(r"^-{1,2}[A-Za-z][\w-]*")
CONSTANT = re.compile(r"^\$?[A-Z][A-Z0-9]*_[A-Z0-9_]*\*?$|^\$?[A-Z]{3,}[A-Z0-9]*$")
DOTTED = re.compile(r"^[A-Za-z_][\w]*(\.[A-Za-z_]\w*)+(\(.*\))?$|^[A-Za-z_]\w*\(.*\)$|^\.\w+(\(.*\))?$")
IDENT = re.compile(r"^[A-Za-z_]\w*$")
ORDER = ("a CLI option", "an environment variable or constant", "an API name (dotted or called)", "a plain identifier",
         "a literal or other code span")


def named(sentence: str) -> str:
    """The strongest kind of thing a sentence names in code spans."""
    kinds = set()
    for span in SPAN.findall(sentence):
        span = span.strip()
        if OPTION.match(span):
            kinds.add(ORDER[0])
        elif CONSTANT.match(span):
            kinds.add(ORDER[1])
        elif DOTTED.match(span):
            kinds.add(ORDER[2])
        elif IDENT.match(span):
            kinds.add(ORDER[3])
        else:
            kinds.add(ORDER[4])
    for kind in ORDER:
        if kind in kinds:
            return f"names {kind}"
    return "plain prose, no code span"


def evidence_kind(resource: str) -> str:
    fragment = resource.partition("#")[2]
    if "?" in resource.partition("#")[0] or "*" in resource:
        return "a set"
    if not fragment:
        return "a file"
    if fragment[:1] == "L" and fragment[1:2].isdigit():
        return "lines"
    return "a head" if fragment.endswith(":head") else "a whole definition"


def cited_path(resource: str) -> str:
    return resource.removeprefix("repo://").partition("#")[0].partition("?")[0]


def missed_reason(item: Item, claims: list[Claim], changed: set[str]) -> tuple[str, str]:
    """(reason, detail) for a truth item the commit did not flag."""
    if not claims:
        what = f"an example ({item.lang or 'no language'})" if item.kind == "example" else named(item.text)
        return "no claim on it", what
    kinds = sorted({evidence_kind(r) for c in claims for r in c.resources})
    touched = any(cited_path(r) in changed for c in claims for r in c.resources)
    where = "the commit changed a cited file elsewhere" if touched else "the commit changed no cited file"
    return "a claim not flagged", f"cites {' and '.join(kinds) or 'nothing'}; {where}"


def top_reasons(missed: list[dict[str, Any]]) -> list[tuple[str, int]]:
    """The reasons of the items not caught, most common first ("held" and "not in the wiki" too)."""
    counts: Counter[str] = Counter()
    for m in missed:
        if m["status"] == "missed":
            counts[f"{m['why']}: {m['kind']} {m['detail']}" if m["kind"] == "sentence" else f"{m['why']}: {m['detail']}"] += 1
        elif m["status"] == "held":
            counts[f"held: {m['kind']} in a paragraph flagged earlier"] += 1
    return counts.most_common()
