"""evidence: see docs/architecture.md."""
