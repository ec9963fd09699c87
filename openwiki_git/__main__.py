from __future__ import annotations

from openwiki_git.cli.main import entry

entry()
