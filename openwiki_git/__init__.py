"""openwiki-git: a repository's wiki whose every statement is grounded in hashed source lines."""

from __future__ import annotations

__version__ = "0.1.0"
PRODUCER = f"openwiki-git/{__version__}"
