"""refresh: see docs/architecture.md."""
