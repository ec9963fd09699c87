"""Lexical search for the evidence graph: the tokeniser and a BM25 index. Pure: no I/O.

The index covers page titles, document titles, headings and claim statements (`graph.py`
chooses the entries). Building tokenises every entry in one pass over their joined text and
appends each entry's number to the raw posting of each of its terms; BM25 weights are computed
per term on its first query (`Index.posting`).
"""

from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass, field

__all__ = ["B", "K1", "STOP", "Index", "bm25", "build_index", "has", "tokens"]

K1, B = 1.2, 0.75  # the usual BM25 parameters
STOP = frozenset(
    "a an and are as at be by for from has have how in into is it its of on or that the their this to was were "
    "what when where which who why will with".split()
)
_WORD = re.compile(r"[^\W_]+")
_WORD_OR_NUL = re.compile(r"[^\W_]+|\0")  # words, and the NULs that separate entries when batched
_TERMS: dict[str, str] = {}  # word -> term: a pure function's memo, so tokenising stays deterministic


@dataclass(slots=True)
class Index:
    """`ids[i]` is entry i's node, `lengths[i]` its number of terms; `raw[term]` lists the entries
    that have the term, once per occurrence, ascending. `weighted[term]` is (entries, BM25 term
    weights without idf), filled on the term's first query."""

    ids: list[str] = field(default_factory=list)
    lengths: list[int] = field(default_factory=list)
    raw: dict[str, list[int]] = field(default_factory=dict)
    avg: float = 1.0
    weighted: dict[str, tuple[list[int], list[float]]] = field(default_factory=dict)

    def posting(self, term: str) -> tuple[list[int], list[float]] | None:
        got = self.weighted.get(term)
        if got is None:
            raw = self.raw.get(term)
            if raw is None:
                return None
            tfs: dict[int, int] = {}
            for i in raw:
                tfs[i] = tfs.get(i, 0) + 1
            lengths, avg = self.lengths, self.avg
            weights = [tf * (K1 + 1) / (tf + K1 * (1 - B + B * lengths[i] / avg)) for i, tf in tfs.items()]
            got = self.weighted[term] = (list(tfs), weights)
        return got


def tokens(text: str) -> list[str]:
    """Lower-cased words, stop words dropped, plurals folded, leading zeros of numbers dropped."""
    memo = _memo()
    out = []
    for w in _WORD.findall(text.lower()):
        term = memo.get(w)
        if term is None:
            term = memo[w] = _term(w)
        if term:
            out.append(term)
    return out


def _memo() -> dict[str, str]:
    if len(_TERMS) > 200_000:
        _TERMS.clear()
    return _TERMS


def _term(w: str) -> str:
    """One word's search term ("" for a stop word)."""
    if w in STOP:
        return ""
    if w.isdigit():
        return w.lstrip("0") or "0"
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 4 and w.endswith(("ches", "shes", "sses", "xes", "zes")):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


def term_stream(texts: list[str]) -> list[str]:
    """`tokens(t)` of every text, each list followed by a NUL, in one list. Batched: the texts
    are joined by " NUL " (neither cased nor case-ignorable, so lower-casing the whole lower-cases
    each text as alone), every ASCII character that is not a letter or digit becomes a space
    (bytes.translate), and str.split cuts the words; only the rare piece with non-ASCII
    characters goes through the word regex. Each distinct word is looked up once."""
    joined = " \0 ".join(texts) + " \0"
    try:
        if joined.count("\0") != len(texts):  # a text holds a NUL itself
            raise ValueError
        flat = joined.lower().encode().translate(_ASCII_WORD_BYTES).decode().split()
    except ValueError:  # also UnicodeError: a lone surrogate
        return [t for text in texts for t in (*tokens(text), "\0")]
    if not joined.isascii():
        flat = [x for w in flat for x in ((w,) if w.isascii() else _WORD.findall(w))]
    memo = _memo()
    for w in set(flat).difference(memo):
        memo[w] = _term(w) if w != "\0" else "\0"
    return list(filter(None, map(memo.__getitem__, flat)))  # a stop word's term is ""


# Bytes kept by term_stream: ASCII digits and lower-case letters, NUL, and every non-ASCII byte
# (UTF-8 sequences stay whole); everything else becomes a space.
_ASCII_WORD_BYTES = bytes(c if chr(c).isalnum() and not chr(c).isupper() or c == 0 or c > 127 else 32 for c in range(256))


def build_index(items: list[tuple[str, str]]) -> Index:
    """The index of (node id, text) entries; entries without a term are left out."""
    ids: list[str] = []
    lengths: list[int] = []
    raw: dict[str, list[int]] = {}
    get = raw.get
    entry = n = 0  # the item being read, and its number of terms so far
    for t in term_stream([text for _, text in items]):
        if t == "\0":  # the item's end
            if n:
                ids.append(items[entry][0])
                lengths.append(n)
                n = 0
            entry += 1
        else:
            n += 1
            posting = get(t)
            if posting is None:
                raw[t] = [len(ids)]
            else:
                posting.append(len(ids))
    return Index(ids, lengths, raw, sum(lengths) / len(lengths) if lengths else 1.0)


def bm25(index: Index, words: list[str], scope: set[str] | None) -> dict[int, float]:
    """Entry -> BM25 score, for the entries (in `scope`, when given) that have any of `words`."""
    n = len(index.ids)
    scores: dict[int, float] = {}
    ids = index.ids
    for word in words:
        posting = index.posting(word)
        if not posting:
            continue
        entries, weights = posting
        idf = math.log(1 + (n - len(entries) + 0.5) / (len(entries) + 0.5))
        get = scores.get
        if scope is None:
            for i, w in zip(entries, weights):
                scores[i] = get(i, 0.0) + idf * w
        else:
            for i, w in zip(entries, weights):
                if ids[i] in scope:
                    scores[i] = get(i, 0.0) + idf * w
    return scores


def has(index: Index, word: str, i: int) -> bool:
    """Whether entry i has `word` (a posting's entries are ascending)."""
    posting = index.posting(word)
    if not posting:
        return False
    j = bisect.bisect_left(posting[0], i)
    return j < len(posting[0]) and posting[0][j] == i
