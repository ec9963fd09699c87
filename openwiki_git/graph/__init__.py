"""graph: see docs/architecture.md."""
