from __future__ import annotations

from openwiki_git.main import main

raise SystemExit(main())
