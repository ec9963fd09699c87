"""github: see docs/architecture.md."""
