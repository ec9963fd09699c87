"""diff: see docs/architecture.md."""
