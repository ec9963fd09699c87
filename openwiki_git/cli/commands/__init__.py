"""One module per CLI command: `add_parser(subparsers)` registers it, `run(args) -> int` runs it.

What commands share lives in `cli/args.py`; what a command does lives in a service package."""
