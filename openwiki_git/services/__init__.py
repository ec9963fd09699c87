"""services: what a command does, with typed options in and data out (see docs/architecture.md)."""
