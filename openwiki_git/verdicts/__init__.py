"""verdicts: see docs/architecture.md."""
