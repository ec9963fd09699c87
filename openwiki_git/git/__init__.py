"""git: see docs/architecture.md."""
