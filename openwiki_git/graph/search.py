"""Lexical search for the evidence graph: the tokeniser and a BM25 index. Pure: no I/O.

The index covers page titles, document titles, headings and claim statements (documents.py
and claim_graph.py choose the entries). Building tokenises every entry in one pass over their
joined text and keeps the terms as one string; a term's posting and BM25 weights are worked out
on its first query (`Index.posting`), so building costs little more than tokenising.
"""

from __future__ import annotations

import bisect
import itertools
import math
import operator
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
    """Entry i is node `ids[i]`. `stream` holds every entry's terms in entry order, each term
    between spaces and each entry ended by a NUL (" retry queue \0 backoff \0 ..."); `ends[i]`
    is the offset of entry i's NUL. A term's posting is found on its first query by searching the
    stream for " term " (str.find, in C) and is kept in `weighted`: (entries, BM25 term weights
    without idf). `n` counts the entries with a term (BM25's N), `avg` is their mean length."""

    ids: list[str] = field(default_factory=list)
    stream: str = " "
    ends: list[int] = field(default_factory=list)
    n: int = 0
    avg: float = 1.0
    weighted: dict[str, tuple[list[int], list[float]]] = field(default_factory=dict)

    def posting(self, term: str) -> tuple[list[int], list[float]] | None:
        got = self.weighted.get(term)
        if got is None:
            tfs = self._counts(term)
            if not tfs:
                return None
            avg, stream, ends = self.avg, self.stream, self.ends
            weights = []
            for i, tf in tfs.items():
                length = stream.count(" ", ends[i - 1] + 1 if i else 0, ends[i]) - 1
                weights.append(tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / avg)))
            got = self.weighted[term] = (list(tfs), weights)
        return got

    def _counts(self, term: str) -> dict[int, int]:
        """Entry -> how often it has `term`, entries ascending."""
        needle, stream, ends = f" {term} ", self.stream, self.ends
        step = len(needle) - 1  # the next term starts at this one's closing space
        tfs: dict[int, int] = {}
        at = stream.find(needle)
        while at >= 0:
            i = bisect.bisect_right(ends, at)
            tfs[i] = tfs.get(i, 0) + 1
            at = stream.find(needle, at + step)
        return tfs

    def terms_of(self, i: int) -> list[str]:
        """Entry i's terms, in order."""
        return self.stream[self.ends[i - 1] + 1 if i else 0 : self.ends[i]].split()


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


@dataclass(slots=True)
class Terms:
    """Entries tokenised ahead of building an index: their node ids, and their terms as the
    index's stream holds them ("retry queue \0 backoff \0 ", with no leading space)."""

    ids: list[str]
    stream: str
    count: int  # terms in all


def tokenize(items: list[tuple[str, str]]) -> Terms:
    """The terms of (node id, text) entries, for `build_index`."""
    terms = term_stream([text for _, text in items])
    return Terms([i for i, _ in items], " ".join(terms) + " " if terms else "", len(terms) - len(items))


def build_index(blocks: list[Terms]) -> Index:
    """The index of the entries of `blocks`, in order (their tokenising may happen elsewhere,
    earlier: this only joins them up)."""
    ids = list(itertools.chain.from_iterable(b.ids for b in blocks))
    stream = " " + "".join(b.stream for b in blocks)
    parts = stream.split("\0")[: len(ids)]  # entry i is parts[i], " " when it has no term
    ends = list(itertools.accumulate(map(len, parts)))
    ends = list(map(operator.add, ends, range(len(ends))))  # a NUL after each part
    n = len(ids) - parts.count(" ")
    total = sum(b.count for b in blocks)
    return Index(ids, stream, ends, n, total / n if n else 1.0)


def bm25(index: Index, words: list[str], scope: set[str] | None) -> dict[int, float]:
    """Entry -> BM25 score, for the entries (in `scope`, when given) that have any of `words`."""
    n = index.n
    scores: dict[int, float] = {}
    ids = index.ids
    for word in words:
        posting = index.posting(word)
        if not posting:
            continue
        entries, weights = posting
        idf = math.log(1 + (n - len(entries) + 0.5) / (len(entries) + 0.5))
        get = scores.get
        if scope is None and not scores:  # the first word: no sum yet (0.0 + x is x)
            scores = dict(zip(entries, [idf * w for w in weights]))
        elif scope is None:
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
