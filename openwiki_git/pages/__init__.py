"""pages: see docs/architecture.md."""
