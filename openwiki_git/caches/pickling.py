"""The one way a cache file's pickle is read: an unpickler that resolves only the classes the
cache names, so that a tampered cache file (a pickle calling `os.system`, say) is refused and
the cache rebuilt, never executed. Every pickle cache (checkcache.py, graph_cache.py: the graph,
its packs, parts, text index and standing table) reads through `Unpickler`.

A class is allowed by its pickled name (module, qualified name), resolved by importing as pickle
does; `overrides` maps a name to the object it stands for instead (graph_cache's packed
documents). Builtin containers and scalars need no class (pickle's opcodes build them).
"""

from __future__ import annotations

import pickle
from collections.abc import Mapping
from typing import IO, Any

Name = tuple[str, str]


class Unpickler(pickle.Unpickler):
    """Builds builtin containers and scalars, and the `allowed` classes; refuses any other name."""

    def __init__(self, file: IO[bytes], what: str, allowed: frozenset[Name] = frozenset(),
                 overrides: Mapping[Name, Any] | None = None) -> None:
        super().__init__(file)
        self._what = what
        self._allowed = allowed
        self._overrides = overrides or {}

    def find_class(self, module: str, name: str) -> Any:
        key = (module, name)
        if key in self._overrides:
            return self._overrides[key]
        if key in self._allowed:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not allowed in {self._what}")


def names(*classes: type) -> frozenset[Name]:
    """The pickled names of these classes."""
    return frozenset((cls.__module__, cls.__qualname__) for cls in classes)
