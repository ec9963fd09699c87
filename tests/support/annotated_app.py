"""One class's signature before and after typer's reference-docs commit rewrote every parameter
as `Annotated[T, Doc("...")]`: the data diff/units.py's tests and the hook's follow the
parameters through (tests/diff/test_units.py, tests/claims/test_syntax_follow.py)."""

from __future__ import annotations

APP = '''class App:
    def __init__(
        self,
        name: str = "app",
        show_locals: bool = True,
        short: bool = True,
    ) -> None:
        self.show_locals = show_locals
'''

ANNOTATED_APP = '''class App:
    def __init__(
        self,
        name: Annotated[
            str,
            Doc("The app's name."),
        ] = "app",
        show_locals: Annotated[
            bool,
            Doc("Show the values of local variables in tracebacks."),
        ] = True,
        short: Annotated[
            bool,
            Doc("Short tracebacks."),
        ] = True,
    ) -> None:
        self.show_locals = show_locals
'''
