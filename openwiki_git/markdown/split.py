"""A deterministic Markdown splitter: front matter, sections by heading, paragraphs, references.

Pure: text in, records out (no file system). Used by the evidence graph (`graph/`). Where each
part is: the records (`Document`, `Section`, `Paragraph`) in document.py and the paragraph keys,
which survive edits elsewhere in the document, in keys.py; the block scanner in blocks.py and
the records it builds in builder.py; references in refs.py, relations in relations.py, the
scan of many paragraphs at once in refscan.py. Here: front matter, and a document finished
(reference-style links, "Status" sections, its title).

A lone level-1 heading that opens the document is its title, not a section (so renaming the title
renames nothing). Sibling headings with the same slug get `-1`, `-2` (GitHub's convention); the
GitHub anchor (unique over the whole document) is kept for resolving `#anchor` links.

References are extracted as written, never resolved here (the graph resolves them):
- `link`: Markdown inline links `[text](target)` and link reference definitions `[x]: target`
  (images, external URLs and footnotes are not references);
- `id`: identifiers such as `ADR-0012` or `RFC-3` (the graph keeps those whose prefix names
  documents it knows);
- `see`: the target of "see …"/"see also …" when it is a quoted title, a backticked or bare path
  (with a `/` or a `.md`), or a `repo://` resource;
- relations: front-matter keys (`supersedes`, `superseded_by`, `amends`, `amended_by`,
  `attaches_to`) and status lines such as "Superseded by ADR-0012", "Status: Accepted; amends
  ADR-0003" or "This ADR supersedes [ADR-0004](0004-x.md)" (the phrase must open a line, after an
  optional bullet, "Status:" label, status word or "This <ADR|document|…>").
Nothing inside fenced code blocks is a reference.
"""

from __future__ import annotations

import operator
import re
from typing import Any

from openwiki_git.markdown import rstdoc
from openwiki_git.markdown.blocks import read_blocks
from openwiki_git.markdown.builder import Builder, NotTheTitle
from openwiki_git.markdown.document import Document
from openwiki_git.markdown.keys import numbered, paragraph_hashes
from openwiki_git.markdown.refs import Ref, refs_in
from openwiki_git.markdown.refscan import scan
from openwiki_git.markdown.relations import Relation, may_relate, meta_relations, relations_in, section_status, status_of
from openwiki_git.pages.frontmatter_core import UNREAD, boundary, read_fast

__all__ = ["front_matter", "split", "split_batch"]


def front_matter(text: str) -> tuple[dict[str, str | list[str]], int]:
    """Flat front matter (`key: value`, `key: [a, b]`, `key:` + `- a` items) and the number of
    lines it takes (frontmatter_core: the one boundary and the one fast reader). Values are their
    text; a value the fast reader leaves to YAML (nested, block scalars...) is `[]`: only flat keys
    matter here."""
    sp = boundary(text)
    if sp is None or not sp.present:
        return {}, 0
    read = read_fast(sp.yaml)
    meta = {} if read is None else {key: _text(value) for key, value in read.items()}
    return meta, sp.body_start and text.count("\n", 0, sp.body_start) + (0 if sp.close.endswith("\n") else 1)


def _text(value: Any) -> str | list[str]:
    if value is UNREAD or value is None:
        return []
    if isinstance(value, list):
        return [_item_text(v) for v in value]
    return _item_text(value)


def _item_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def split(text: str, path: str = "") -> Document:
    """Split a Markdown document (a reStructuredText one when `path` ends in `.rst`: rstdoc.py).
    Deterministic: the same text always gives the same records."""
    meta, b = _parse(text, path)
    b.scan_refs()
    d = _finish(path, meta, b)
    d.warm_keys()
    return d


def split_batch(items: list[tuple[str, str]]) -> list[Document]:
    """`[split(text, path) for text, path in items]`: the same documents, keys warmed alike.
    For many small texts: what costs `split` most on a short page is per call (each regex pass
    over a few paragraphs, hashing a few keys), so here the markers and references of all the
    texts are read by one `refscan.scan`, and the keys `warm_keys` computes hashed in one pass."""
    parsed = [_parse(text, path) for text, path in items]
    _scan_refs_together([b for _, b in parsed])
    docs = [_finish(path, meta, b) for (_, path), (meta, b) in zip(items, parsed)]
    _warm_keys_together(docs)
    return docs


def _parse(text: str, path: str = "") -> tuple[dict[str, str | list[str]], Builder]:
    """Front matter and blocks; markers and references are not read yet (`scan_refs`)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if path.endswith(".rst"):  # a Sphinx site's page: no front matter, titles by their adornment
        try:
            return {}, rstdoc.read(text, allow_title=True)
        except NotTheTitle:
            return {}, rstdoc.read(text, allow_title=False)
    meta, skip = front_matter(text)
    body = text.split("\n", skip)[-1] if skip else text
    try:
        return meta, read_blocks(body, skip + 1, allow_title=True)
    except NotTheTitle:
        return meta, read_blocks(body, skip + 1, allow_title=False)


def _scan_refs_together(builders: list[Builder]) -> None:
    """`scan_refs` of each builder, with one `refscan.scan` over all their pending texts (it gives
    each text what it gives the text alone)."""
    texts = [t for b in builders for t in b.pending_texts()]
    markers, refs = scan(texts)
    at = 0
    for b in builders:
        n = len(b.pending)
        if n:
            b.take_refs(markers[at : at + n], refs[at : at + n])
            at += n


def _warm_keys_together(docs: list[Document]) -> None:
    """`warm_keys` of each document (the same keys, stored in the same order), the paragraphs of
    all of them hashed by one `paragraph_hashes` and their keys made by one C-level `map`. Repeats are
    numbered run by run (`numbered`) only when some key occurs twice in the whole batch."""
    jobs, texts, prefixes = [], [], []
    for d in docs:
        runs = d._wanted_runs()
        if runs:
            bounds = d._bounds(runs)
            jobs.append((d, runs, bounds))
            for r, (lo, hi) in zip(runs, bounds):
                texts += d.texts[lo:hi]
                prefixes += [d.runs[r][1] + "~"] * (hi - lo)
    keys = list(map(operator.add, prefixes, paragraph_hashes(texts)))
    unique = len(set(keys)) == len(keys)
    at = 0
    for d, runs, bounds in jobs:
        for r, (lo, hi) in zip(runs, bounds):
            run_keys = keys[at : at + hi - lo] if unique else numbered(keys[at : at + hi - lo])
            d._keys[r] = run_keys
            d._by_key.update(zip(run_keys, range(lo, hi)))
            at += hi - lo


def _finish(path: str, meta: dict[str, str | list[str]], b: Builder) -> Document:
    if b.sections:
        _status_sections(b)
    if b.refs or b.relations:
        _reference_links(b)
    title = meta.get("title")
    if not isinstance(title, str) or not title:
        first = b.sections[0].heading if b.sections and b.sections[0].level == 1 else None
        title = b.title or first or _stem(path)
    return Document(
        path,
        title,
        meta,
        tuple(b.sections),
        tuple(meta_relations(meta) + b.relations),
        b.title,
        texts=b.texts,
        starts=b.starts,
        ends=b.ends,
        code=frozenset(b.code),
        markers=b.markers,
        refs=b.refs,
        runs=b.runs,
    )


def _status_sections(b: Builder) -> None:
    """Nygard's layout: a "Status" heading, then the status ("Accepted", "Superseded by
    ADR-0012") as its first paragraph: read unless that paragraph already stated a relation."""
    stated = {r.source for r in b.relations}
    for s in b.sections:
        lower = s.heading.lower()
        if lower != "status" and may_relate(s.heading):
            # "## Status: Superseded by ADR-0005": a heading's relation is its document's
            found = relations_in(s.heading, -1)
            if not found and lower.startswith("status:"):
                found = status_of(s.heading.split(":", 1)[1], -1)
            b.relations.extend(found)
        if s.heading.strip().lower().rstrip(":") not in ("status", "decision status"):
            continue
        k = next((n for n, (_, key) in enumerate(b.runs) if key == s.key), None)
        i = b.runs[k][0] if k is not None else None
        end = b.runs[k + 1][0] if k is not None and k + 1 < len(b.runs) else len(b.texts)
        if i is None or i >= end or i in b.code or i in stated:
            continue
        b.relations.extend(section_status([t for n, t in enumerate(b.texts[i:end], i) if n not in b.code], i))


_REF_DEF = re.compile(r"^ {0,3}\[(?!\^)([^\]]+)\]:\s*(<[^>]*>|\S+)", re.M)
_REF_USE = re.compile(r"(?<![!\]])\[([^\]\[\n]+)\](?:\[([^\]\[\n]*)\])?(?![(:\[])")


def _reference_links(b: Builder) -> None:
    """Reference-style links (`[ADR043][]`, `[text][label]`, `[label]`): the reference belongs
    to the paragraph that uses the link, not to the block of definitions; relations written
    with them get the definition's target (and keep the label as the link's text)."""
    defs: dict[str, str] = {}
    def_at: dict[str, int] = {}
    for i, _refs in b.refs.items():
        text = b.texts[i]
        if "]:" in text:
            for m in _REF_DEF.finditer(text):
                label = " ".join(m.group(1).lower().split())
                if label not in defs:
                    raw = m.group(2)
                    defs[label], def_at[label] = raw[1:-1] if raw.startswith("<") else raw, i
    if any(r.ref.kind == "reflink" for r in b.relations):
        b.relations[:] = [_relation_link(r, defs) if r.ref.kind == "reflink" else r for r in b.relations]
    if not defs:
        return
    used: set[str] = set()
    used_labels: set[str] = set()
    for i in sorted(set(b.pending)):
        text = b.texts[i]
        if "[" not in text or i in b.code:
            continue
        more = []
        for m in _REF_USE.finditer(text):
            label = " ".join((m.group(2) or m.group(1)).lower().split())
            target = defs.get(label)
            if target is None or def_at[label] == i:
                continue
            ref = refs_in(f"[x]({target})")
            if ref:
                more.append(ref[0])
                used.add(target)
                used_labels.add(label)
        if more:
            b.refs[i] = tuple(dict.fromkeys([*b.refs.get(i, ()), *more]))
    if used:  # the definitions block keeps only the references no paragraph uses
        for i in set(def_at.values()):
            kept = tuple(
                r for r in b.refs.get(i, ())
                if not (r.kind == "link" and r.target in used or r.kind == "id" and r.target.lower() in used_labels)
            )
            if kept:
                b.refs[i] = kept
            else:
                b.refs.pop(i, None)


def _relation_link(r: Relation, defs: dict[str, str]) -> Relation:
    label = r.ref.target
    target = defs.get(" ".join(label.lower().split()))
    if target is not None:
        ref = refs_in(f"[x]({target})")
        if ref:
            return r._replace(ref=ref[0], text=label)
    if ID_LIKE.fullmatch(label.strip()):
        return r._replace(ref=Ref("id", label.strip()), text=label)
    return r


ID_LIKE = re.compile(r"[A-Z][A-Z0-9]*[-_ ]?[0-9]+")


def _stem(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name[:-3] if name.endswith(".md") else name
