"""markdown: see docs/architecture.md."""
