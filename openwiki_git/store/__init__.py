"""store: see docs/architecture.md."""
