"""caches: see docs/architecture.md."""
