"""A page's name and its sidecar's: the one rule each way, and which names are pages. Pure, and
imports nothing (check's lean and warm paths list sidecars with it).

A Markdown page `a/b.md` has the sidecar `.claims/a/b.json` (OpenWiki's rule). A reStructuredText
page of a Sphinx site, `a/b.rst`, has `.claims/a/b.rst.json`: it keeps its suffix, so the sidecar
names the page it belongs to and the two forms never meet.
"""

MARKDOWN = ".md"
RST = ".rst"


def is_rst(page: str) -> bool:
    return page.endswith(RST)


def sidecar_name(page: str) -> str:
    """The sidecar's path inside `.claims/` of the page `page` (a path inside the wiki)."""
    return page + ".json" if page.endswith(RST) else page[: -len(MARKDOWN)] + ".json"


def page_of_sidecar(name: str) -> str:
    """The page whose sidecar is `name` (a path inside `.claims/`, ending in `.json`)."""
    stem = name[: -len(".json")]
    return stem if stem.endswith(RST) else stem + MARKDOWN


def page_gone(page: str) -> str:
    """check's note on a claim whose page is gone: it names the sidecar that still holds the claim."""
    return f"the page does not exist; its claims are in .claims/{sidecar_name(page)} (restore the page, or retract them)"
