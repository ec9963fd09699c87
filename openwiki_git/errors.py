"""The one family of user-facing errors. Anything raised as an OpenwikiError is printed as one
line (`error: <message>` plus an optional hint) and exits 2; nothing else may reach the user raw."""

from __future__ import annotations


class OpenwikiError(Exception):
    """A failure the user can fix: bad input, bad configuration, a refused path."""

    exit_code = 2

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message} ({self.hint})"


class UsageError(OpenwikiError):
    """A command line that cannot be carried out as given."""


class ConfigError(OpenwikiError):
    """`.openwiki/config.yml` is missing a value, has a wrong one, or does not parse."""


class SchemaError(OpenwikiError):
    """A sidecar, page or report that does not match its schema."""


class StoreError(OpenwikiError):
    """The `.openwiki/` layout: a missing page, an unknown claim id, a refused write."""


class EvidenceError(OpenwikiError):
    """Evidence that cannot be cited: untracked, outside the repository, a symlink, binary."""


class GitError(OpenwikiError):
    """Git could not answer: not a repository, an unknown revision, an unreadable object."""


class RefreshError(OpenwikiError):
    """The model refresher could not run: no key, no endpoint, a budget exhausted."""


class GitHubError(OpenwikiError):
    """The GitHub API refused or failed a call."""


class PolicyError(OpenwikiError):
    """A verification the config's `verify_policy` forbids (claims/policy.py names the rule)."""
