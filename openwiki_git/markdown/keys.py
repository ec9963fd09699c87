"""Paragraph keys: `<section key>~<hash>`, the hash being 8 hex digits of CRC-32 over the
paragraph's normalised text (white space collapsed, claim markers `[^c-…]` and `<!-- c-… -->` removed, so adding a
citation does not rename the paragraph); a second identical paragraph in the same section gets
`.2`, a third `.3`, in document order. Pure. The keys are a public contract (README): document.py
computes them one section run at a time, with these functions.
"""

from __future__ import annotations

import struct
import zlib

from openwiki_git.pages.markers import ANY, COMMENT_OPENING, MARKER

__all__ = ["key_text", "normalize", "numbered", "odd_space", "paragraph_hashes", "section_keys"]


def section_keys(section: str, hashes: list[str]) -> list[str]:
    """Keys of one section's paragraphs from their hashes (`paragraph_hashes`): `<section>~<hash>`, `.2`,
    `.3` for repeats."""
    out = list(map((section + "~").__add__, hashes))
    return out if len(set(hashes)) == len(hashes) else numbered(out)


def numbered(out: list[str]) -> list[str]:
    """One run's keys with repeats numbered `.2`, `.3` in order (in place)."""
    seen: dict[str, int] = {}
    for k, base in enumerate(out):
        n = seen[base] = seen.get(base, 0) + 1
        if n > 1:
            out[k] = f"{base}.{n}"
    return out


def paragraph_hashes(texts: list[str]) -> list[str]:
    """Each text's hash: 8 hex digits of CRC-32 over its key text (`key_text`).

    All texts at once, with C-level operations only: joined by NUL, markers removed, tabs and
    newlines made spaces, double spaces halved until none is left, each piece's ends stripped,
    then CRC-32 and hex digits of each piece (`bytes.hex` groups four bytes at a time). Each
    piece is `normalize(text)`, which is the key text unless the text holds white space other
    than space, tab and newline (such as a no-break space, which `key_text` keeps in some
    texts): such texts, and texts holding a NUL (one piece too many), are read one by one."""
    if not texts:
        return []
    joined = "\0".join(texts)
    pieces = None
    if "\r" not in joined and not odd_space(joined):
        if "^" in joined and "[^c-" in joined:  # one-character search first: it is much faster
            joined = MARKER.sub("", joined)
        if COMMENT_OPENING in joined:
            joined = ANY.sub("", joined)
        if "\n" in joined:
            joined = joined.replace("\n", " ")
        if "\t" in joined:
            joined = joined.replace("\t", " ")
        while "  " in joined:
            joined = joined.replace("  ", " ")
        pieces = list(map(bytes.strip, joined.encode().split(b"\0")))
    if pieces is None or len(pieces) != len(texts):
        pieces = [key_text(t).encode() for t in texts]
    crcs = map(zlib.crc32, pieces)
    return struct.pack(f">{len(texts)}I", *crcs).hex(" ", 4).split(" ")


def key_text(text: str) -> str:
    """The text a paragraph's key hashes: `normalize(text)`, or the text with newlines made
    spaces when that has no double space, tab, marker or space at either end (the same text
    unless the paragraph holds other white space, such as a no-break space, which it keeps)."""
    flat = text.replace("\n", " ") if "\n" in text else text
    if "  " in flat or "\t" in flat or "[^c-" in flat or COMMENT_OPENING in flat or flat[:1] == " " or flat[-1:] == " ":
        return normalize(text)
    return flat


def normalize(text: str) -> str:
    """The text a paragraph's hash is taken over: claim markers removed, white space collapsed."""
    if "[^c-" in text or COMMENT_OPENING in text:
        text = ANY.sub("", text)
    return " ".join(text.split())


# White space that str.isspace and str.strip see but `[ \t]` does not (form feed, no-break space...).
_ODD_ASCII = "\x0b\x0c\x1c\x1d\x1e\x1f"
_ODD_SPACE = _ODD_ASCII + "\x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000"


def odd_space(text: str) -> bool:
    return any(c in text for c in (_ODD_ASCII if text.isascii() else _ODD_SPACE))
