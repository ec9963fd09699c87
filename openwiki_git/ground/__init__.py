"""ground: see docs/architecture.md."""
