"""A claim's label and its marker's text in each form a page carries it in: the one rule, which
check's report, lint, `claim` and the model's context name a marker by. Pure, and imports only
formats/pagenames (check's warm path writes a marker per claim of a JSON report with it; the
readers of markers, and their regular expressions, are markers.py's and rst_markers.py's).

- the footnote `[^c-1a2b3c4d]`: a plain wiki's Markdown page;
- the comment `<!-- c-1a2b3c4d -->`: a docs site's Markdown page (site mode, store/site.py), and
  a code example's claim on any page (after its closing fence);
- the reST comment line `.. c-1a2b3c4d`: a Sphinx site's `.rst` page.
"""

from __future__ import annotations

from openwiki_git.formats.pagenames import is_rst


def label(claim_id: str) -> str:
    """The label of the claim `claim_id` in its markers: `c-` and the id's first 8 hex."""
    return "c-" + claim_id.removeprefix("claim_")[:8]


def footnote(label: str) -> str:
    """The footnote form of the marker of `label` (`c-1a2b3c4d`)."""
    return f"[^{label}]"


def comment(label: str) -> str:
    """The comment form of the marker of `label`."""
    return f"<!-- {label} -->"


def rst_comment(label: str, indent: str = "") -> str:
    """The reStructuredText form of the marker of `label`: a comment line (rst_markers.py)."""
    return f"{indent}.. {label}"


def marker_text(claim_id: str, page: str, site: bool = False) -> str:
    """THE marker of a claim as its page carries it, by the page's form: the reST comment line
    on a `.rst` page, the comment on a docs site's Markdown page (`site`: the workspace is in
    site mode), else the footnote."""
    name = label(claim_id)
    if is_rst(page):
        return rst_comment(name)
    return comment(name) if site else footnote(name)
