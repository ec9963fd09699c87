"""The GitHub Actions runner as a step sees it: its GITHUB_* variables (read here and nowhere
else; the token comes from GITHUB_TOKEN), the step's outputs ($GITHUB_OUTPUT) and job summary
($GITHUB_STEP_SUMMARY), and the secrets every published string is redacted of.

What a step prints goes to a `Console` the command gives it (stdout: workflow commands, and the
summary outside Actions; stderr: what happened), so only `cli/` prints.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from openwiki_git.errors import UsageError
from openwiki_git.redact import add_secret, redact, secrets_from_env


class Console(Protocol):
    """Where a step's lines go: `out` (stdout: workflow commands), `err` (stderr: what happened)."""

    def out(self, text: str) -> None: ...

    def err(self, text: str) -> None: ...


@dataclass(frozen=True)
class ActionsEnv:
    """What the Actions runner tells a step, read once from the environment."""

    repository: str | None = None
    event_name: str | None = None
    event_path: str | None = None
    sha: str | None = None
    ref_name: str | None = None
    step_summary: str | None = None
    output: str | None = None
    api_url: str | None = None
    server_url: str = "https://github.com"
    run_id: str | None = None
    token: str | None = None

    @classmethod
    def read(cls, environ: Mapping[str, str] | None = None) -> ActionsEnv:
        env = os.environ if environ is None else environ

        def get(name: str) -> str | None:
            return env.get(name) or None

        return cls(
            repository=get("GITHUB_REPOSITORY"),
            event_name=get("GITHUB_EVENT_NAME"),
            event_path=get("GITHUB_EVENT_PATH"),
            sha=get("GITHUB_SHA"),
            ref_name=get("GITHUB_REF_NAME"),
            step_summary=get("GITHUB_STEP_SUMMARY"),
            output=get("GITHUB_OUTPUT"),
            api_url=get("GITHUB_API_URL"),
            server_url=get("GITHUB_SERVER_URL") or "https://github.com",
            run_id=get("GITHUB_RUN_ID"),
            token=get("GITHUB_TOKEN"),
        )

    @property
    def run_url(self) -> str | None:
        if not (self.repository and self.run_id):
            return None
        return f"{self.server_url.rstrip('/')}/{self.repository}/actions/runs/{self.run_id}"

    def event(self) -> dict[str, Any]:
        if not self.event_path:
            return {}
        try:
            data = json.loads(Path(self.event_path).read_text("utf-8"))
        except (OSError, ValueError) as e:
            raise UsageError(f"GITHUB_EVENT_PATH {self.event_path}: cannot read the event ({e})") from None
        return data if isinstance(data, dict) else {}

    def repository_name(self, event: Mapping[str, Any]) -> str:
        """`owner/name`, from GITHUB_REPOSITORY, else the event."""
        repo = self.repository or (event.get("repository") or {}).get("full_name")
        if not repo or "/" not in repo:
            raise UsageError("GITHUB_REPOSITORY is not set", "run inside GitHub Actions or set GITHUB_REPOSITORY=owner/name")
        return str(repo)

    def register_secrets(self, *names: str | None) -> None:
        """Every published string is redacted: the token, the model key, any secret-named variable."""
        add_secret(self.token)
        secrets_from_env(os.environ, [n for n in names if n])


@dataclass(frozen=True)
class Step:
    """One step of a workflow: the runner's environment and where its lines go."""

    env: ActionsEnv
    console: Console

    def say(self, text: str) -> None:
        """A line for the log (stderr), redacted."""
        self.console.err(redact(text))

    def command(self, line: str) -> None:
        """A workflow command (`::warning ...`), already rendered and redacted."""
        self.console.out(line)

    def summary(self, markdown: str) -> None:
        """Append to $GITHUB_STEP_SUMMARY; outside Actions, to stdout."""
        markdown = redact(markdown)
        if self.env.step_summary:
            with open(self.env.step_summary, "a", encoding="utf-8") as fh:
                fh.write(markdown.rstrip("\n") + "\n\n")
        else:
            self.console.out(markdown.rstrip("\n"))

    def outputs(self, values: Mapping[str, object]) -> None:
        """Append step outputs to $GITHUB_OUTPUT (multi-line values in the heredoc form)."""
        if not self.env.output:
            return
        with open(self.env.output, "a", encoding="utf-8") as fh:
            for name, value in values.items():
                text = "" if value is None else redact(value)
                if "\n" in text or "\r" in text:
                    delimiter = f"owg_{uuid.uuid4().hex}"
                    fh.write(f"{name}<<{delimiter}\n{text}\n{delimiter}\n")
                else:
                    fh.write(f"{name}={text}\n")
