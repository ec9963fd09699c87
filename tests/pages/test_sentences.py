"""The one sentence splitter (pages/sentences.py): where sentences end, and where they do not."""

from __future__ import annotations

import pytest

from openwiki_git.pages import sentences


def texts(text: str) -> list[str]:
    return [text[s.start : s.stop] for s in sentences.prose(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Ends at `a`.\n`B.c` starts.\n`d_e` too.\n", ["Ends at `a`.", "`B.c` starts.", "`d_e` too."]),
        ("One. Two! 3 more? [A link](x.md) ends.", ["One.", "Two!", "3 more?", "[A link](x.md) ends."]),
        ("Use it, e.g. `x`. Or i.e. Someone.", ["Use it, e.g. `x`.", "Or i.e. Someone."]),
        ("Since v1.2. Things changed.", ["Since v1.2. Things changed."]),
        ("By J. Smith. Instances of `field`s. Internally too.", ["By J. Smith.", "Instances of `field`s.", "Internally too."]),
        ("Call `a.b. C.d()` once.", ["Call `a.b. C.d()` once."]),
        ("Send .get(), .post(), etc. For example: this.", ["Send .get(), .post(), etc.", "For example: this."]),
        ("Send .get(), etc. and friends.", ["Send .get(), etc. and friends."]),
        ("See [the guide](a.b. C) now.", ["See [the guide](a.b. C) now."]),
        ("- First item. Second.\n- Next item.\n", ["First item.", "Second.", "Next item."]),
        ("> Quoted one. Quoted two.\n", ["Quoted one.", "Quoted two."]),
        ('!!! note "TL;DR"\n    If you use it. It works.\n', ["If you use it.", "It works."]),
        ("??? warning\n    Careful here.\n\nAfter.\n", ["Careful here.", "After."]),
    ],
)
def test_split(text: str, expected: list[str]) -> None:
    assert texts(text) == expected


def test_markers_belong_to_the_sentence_before_them() -> None:
    text = "One.[^c-12345678][^c-87654321] Two[^c-abcdef12] Three."
    spans = sentences.prose(text)
    assert [text[s.start : s.stop] for s in spans] == ["One.", "Two", "Three."]
    assert text[spans[0].stop : spans[0].end] == "[^c-12345678][^c-87654321]"
    assert sentences.before(text, text.index("[^c-abcdef12]")) == spans[1]._replace(end=spans[1].stop)
