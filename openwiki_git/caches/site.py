"""Site mode as the check cache keys it: which docs site builds the wiki folder, found with the
standard library alone (the cache's fast answer and check's lean path import nothing more). The
rule is formats/siteconf.py's, the reading store/site.py's: a configuration that is a regular
file, no symlink, at most 1 MiB.
"""

from __future__ import annotations

import os
import stat

from openwiki_git.formats import siteconf


def site_found(root: str, wiki_dir: str) -> str | None:
    """The generator ("mkdocs", "sphinx") of the site configuration that builds the wiki folder
    (siteconf.found; a hidden folder never), or None. The check cache records it as `site_found`
    beside the run's site mode (`site`: its records' markers' form), and its fast answer holds
    only while it is unchanged (the config's `site:` is the config file's, keyed by cache_key)."""
    if siteconf.hidden(wiki_dir):
        return None

    def read(path: str) -> str | None:
        full = os.path.join(root, path)
        try:
            st = os.lstat(full)
            if not stat.S_ISREG(st.st_mode) or st.st_size > 1 << 20:
                return None
            with open(full, "rb") as fh:
                return fh.read().decode("utf-8", errors="replace")
        except OSError:
            return None

    got = siteconf.found(wiki_dir, read)
    return None if got is None else got[0]
