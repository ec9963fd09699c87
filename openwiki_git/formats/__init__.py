"""formats: see docs/architecture.md."""
