"""What an edit did to a docstring's prose, its code the same: a docstring added, extended (words
added, none taken out) or rewritten (the words it took out named), for claims/relevance.py to
weigh against the sentence. The code the same, a rewrite cannot make a sentence about what the
code does false; it can take back what a sentence repeated from it. Measured on attrs' history
(python bench/doc_recall.py --project attrs): the commit moving attr.s's and attr.ib's docstrings to
attrs.define and attrs.field marked 45 claims when any rewritten summary marked a sentence, 2 when
only a sentence that has the words a rewrite took out is marked. Pure.
"""

from __future__ import annotations

import re

from openwiki_git.claims.signature_edits import DOCSTRING_ADDED, DOCSTRING_EXTENDED, DOCSTRING_REWRITTEN
from openwiki_git.evidence.kinds import Symbol

__all__ = ["WORD", "docstrings_added", "summary_edit", "words"]


def docstrings_added(then: list[str], now: list[str]) -> frozenset[int] | None:
    """Which of `now`'s docstrings an edit added (indexes), when every one of `then` is still
    there, in order and word for word; None when one was rewritten or removed."""
    added, i = set(), 0
    for j, prose in enumerate(now):
        if i < len(then) and prose == then[i]:
            i += 1
        else:
            added.add(j)
    return frozenset(added) if i == len(then) else None


def summary_edit(then: str, now: str, sym: Symbol | None = None) -> str:
    """What an edit did to a docstring's prose: "" (nothing), "docstring added" (there was none),
    "docstring extended" (words added, none taken out: like a docstring added, it marks nothing),
    "docstring rewritten (w1, w2, ...)": the words the old prose had and the new has not (at most
    MAX_REWORDED), which claims/relevance.py looks for in the sentence: a sentence that took none
    of them from the old prose says nothing the rewrite took back, and the code is the same. The
    project's own names are left out, being in every sentence about it: the definition's and its
    module path's parts, a plural too (attrs' "Define an attrs class." for `src/attr/_next_gen.py`)."""
    if then == now:
        return ""
    if not then:
        return DOCSTRING_ADDED
    own = {p.lower() for p in re.split(r"[._/]", f"{sym.name}/{sym.path.rsplit('.', 1)[0]}" if sym else "") if p}
    kept = set(words(now))
    gone = [w for w in dict.fromkeys(words(then)) if w not in kept and w not in own and w.removesuffix("s") not in own]
    return f"{DOCSTRING_REWRITTEN} ({', '.join(gone[:MAX_REWORDED])})" if gone else DOCSTRING_EXTENDED


MAX_REWORDED = 12  # a rewrite's words a reason lists (the first ones): a whole rewrite names plenty
_STOP = frozenset(
    "the and for are not can its you all any but has was one may use new its our out how who why now get set "
    "that this with from into have will when then than they them their there which what were been being also only such "
    "some more most other each every used uses using your"
    .split()
)


def words(prose: str) -> list[str]:
    """The content words of prose, lower case: three letters or more, not a stop word; a release
    number too, without its trailing zeros (`18.1.0` is 18.1, as docstrings.py reads a release).
    A role's markup (`{func}`, `:func:`) is no word."""
    found = (m.lower() for m in re.findall(WORD, _ROLE.sub(" ", prose)))
    return [re.sub(r"(?:\.0)+$", "", w) if w[0].isdigit() else w for w in found if w[0].isdigit() or len(w) >= 3 and w not in _STOP]


WORD = r"[A-Za-z][\w-]*(?:\.[A-Za-z_]\w*)*|\d+(?:\.\d+)+"  # relevance.py reads a sentence's words the same way
# A role's markup before a code span (MyST's {func}`x`, reST's :func:`x`, :py:meth:`x`) is no word:
# attrs' "Fix docstring markup" took `{func}` out of a docstring, and every sentence citing
# {func}`attrs.field` had "func" in it.
_ROLE = re.compile(r"\{[\w:.-]+\}(?=`)|:[\w:.-]+:(?=`)")
