"""The refresher and a code example's claim (verdicts/prose.py): it is shown the whole example,
and its verdicts never edit the code."""

from __future__ import annotations

from openwiki_git.pages import examples as pe
from openwiki_git.verdicts.prose import paragraph_of, retract_sentence, rewrite_sentence

CID = "claim_1a2b3c4d" + "0" * 24


def test_the_refresher_is_shown_the_whole_example_its_claim_guards() -> None:
    page = "# T\n\nText.\n\n```python\nimport pkg\n\npkg.run()\n```\n<!-- c-1a2b3c4d -->\n\nAfter.\n"
    assert paragraph_of(page, CID) == "```python\nimport pkg\n\npkg.run()\n```\n<!-- c-1a2b3c4d -->"  # not only the code's last paragraph
    statement = pe.examples(page)[0].statement
    assert rewrite_sentence(page, CID, statement, "Something else.") == page  # a revision never edits the code
    assert retract_sentence(page, CID, statement) == page.replace("<!-- c-1a2b3c4d -->\n", "")  # only the marker goes
