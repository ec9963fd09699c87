"""A page's name and its sidecar's: the one rule each way, the one spelling of the sidecars'
folder and of a page's sidecar path, and which names are pages. Pure, and imports nothing
(check's lean and warm paths list sidecars with it).

A Markdown page `a/b.md` has the sidecar `.claims/a/b.json` (OpenWiki's rule). A reStructuredText
page of a Sphinx site, `a/b.rst`, has `.claims/a/b.rst.json`: it keeps its suffix, so the sidecar
names the page it belongs to and the two forms never meet. The sidecars' folder is `.claims/` at
the top of the wiki folder: `<wiki>/.claims/a/b.json` (`sidecar_path`); every other module asks
this one (tests/test_layers.py keeps it so).
"""

MARKDOWN = ".md"
RST = ".rst"
CLAIMS_DIR = ".claims"  # the sidecars' folder, at the top of the wiki folder; no page path has this segment
SIDECAR = ".json"


def is_rst(page: str) -> bool:
    return page.endswith(RST)


def sidecar_name(page: str) -> str:
    """The sidecar's path inside `.claims/` of the page `page` (a path inside the wiki)."""
    return page + SIDECAR if page.endswith(RST) else page[: -len(MARKDOWN)] + SIDECAR


def page_of_sidecar(name: str) -> str:
    """The page whose sidecar is `name` (a path inside `.claims/`, ending in `.json`)."""
    stem = name[: -len(SIDECAR)]
    return stem if stem.endswith(RST) else stem + MARKDOWN


def claims_folder(wiki: str) -> str:
    """The sidecars' folder of the wiki folder `wiki` (a path from the repository's root, or one
    on disk): `<wiki>/.claims`."""
    return f"{wiki}/{CLAIMS_DIR}"


def sidecar_path(wiki: str, page: str) -> str:
    """The sidecar of the page `page` (a path inside the wiki) under the wiki folder `wiki` (a path
    from the repository's root, or one on disk): `<wiki>/.claims/a/b.json`."""
    return f"{wiki}/{CLAIMS_DIR}/{sidecar_name(page)}"


def in_claims_folder(wiki: str, path: str) -> bool:
    """Whether `path` (from the same place as `wiki`) is inside the wiki's sidecars' folder."""
    return path.startswith(f"{wiki}/{CLAIMS_DIR}/")


def page_of_path(wiki: str, path: str) -> str | None:
    """The page whose sidecar `path` is (a `.json` file in `wiki`'s sidecars' folder, both paths
    from the same place), None when it is none."""
    folder = f"{wiki}/{CLAIMS_DIR}/"
    return page_of_sidecar(path[len(folder) :]) if path.startswith(folder) and path.endswith(SIDECAR) else None


def inside_a_claims_folder(path: str) -> str | None:
    """What follows the first `.claims/` folder of a repository path, whatever wiki it is in (the
    merge driver is given a path alone); None when the path goes through none."""
    marker = f"/{CLAIMS_DIR}/"
    slashed = "/" + path
    return slashed.split(marker, 1)[1] if marker in slashed else None


def page_gone(page: str) -> str:
    """check's note on a claim whose page is gone: it names the sidecar that still holds the claim."""
    return f"the page does not exist; its claims are in {CLAIMS_DIR}/{sidecar_name(page)} (restore the page, or retract them)"
