"""pages/indexes.py: which index.md files are the tool's own (regenerated) and which are a
project's landing page (a page, never rewritten)."""

from __future__ import annotations

import pytest

from openwiki_git.pages.indexes import GENERATED_INDEX_MARK, is_generated_index, is_index_name


@pytest.mark.parametrize(
    "text",
    [
        f'---\nokf_version: "0.2"\n---\n\n{GENERATED_INDEX_MARK}\n\n# Files\n\n* [A](a.md) - One.\n\n# Directories\n',
        f"{GENERATED_INDEX_MARK}\n\nA paragraph the user added below the mark: still ours.\n",
        '---\nokf_version: "0.2"\n---\n\n# Files\n\n- [Retries](retries.md)\n\n# Directories\n',  # before the mark
        "# Concepts\r\n\r\n* [Retry policy](retry-policy.md) - How.\r\n\r\n# Directories\r\n\r\n* [api](api/)",
        "---\ntitle: x\n---\n",  # front matter and nothing of its own (validate reports the front matter)
        "",
    ],
)
def test_generated(text: str) -> None:
    assert is_generated_index(text)


@pytest.mark.parametrize(
    "text",
    [
        "# Shop\n\nWelcome to the shop's documentation.\n",
        '---\nokf_version: "0.2"\n---\n\nMy own index.\n',
        "# Files\n\n* [A](a.md)\n\nSee also the [changelog](changes.md) for what is new.\n",
        "## Files\n\n* [A](a.md)\n",  # another heading level: written by hand
    ],
)
def test_hand_written(text: str) -> None:
    assert not is_generated_index(text)


def test_index_name() -> None:
    assert is_index_name("index.md") and is_index_name("a/Index.md") and not is_index_name("a/reindex.md")
