"""claims: see docs/architecture.md."""
