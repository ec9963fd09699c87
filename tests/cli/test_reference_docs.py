"""docs/reference/cli.md and docs/reference/config.md are exactly what docs/reference/generate.py
makes from the code as it is: the argparse tree and schemas/config.schema.json. A command, option,
help text, default or config key changed without regenerating them fails here, with the command."""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from openwiki_git.cli.main import EXIT_CODES, build_parser

ROOT = Path(__file__).resolve().parents[2]


def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("reference_generate", ROOT / "docs" / "reference" / "generate.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_references_are_up_to_date() -> None:
    gen = generator()
    for path, text in gen.rendered().items():
        assert path.is_file(), f"{path.relative_to(ROOT)} is missing: run `{gen.REGENERATE}`"
        assert path.read_text("utf-8") == text, f"{path.relative_to(ROOT)} is out of date: run `{gen.REGENERATE}`"
    assert gen.main(["--check"]) == 0


def test_the_output_depends_on_nothing_but_the_code(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not the terminal's width (argparse's formatter reads COLUMNS), not a second run."""
    gen = generator()
    first = gen.rendered()
    monkeypatch.setenv("COLUMNS", "40")
    assert gen.rendered() == first


def _commands(parser: argparse.ArgumentParser, prog: str) -> list[tuple[str, argparse.ArgumentParser]]:
    out = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                out += [(f"{prog} {name}", child), *_commands(child, f"{prog} {name}")]
    return out


def test_every_command_option_choice_and_exit_code_is_in_the_cli_reference() -> None:
    text = (ROOT / "docs" / "reference" / "cli.md").read_text("utf-8")
    sections = {part.split("`", 1)[0]: part for part in text.split("\n## `")[1:]}
    commands = _commands(build_parser(), "openwiki-git")
    assert len(commands) > 20
    for prog, parser in commands:
        assert prog in sections, f"{prog} has no section"
        for action in parser._actions:
            if action.help is argparse.SUPPRESS or action.dest in ("help", "directory", "wiki_dir", "verbose", "lock_timeout"):
                continue
            for flag in action.option_strings:
                assert f"`{flag}" in sections[prog] or f", {flag}" in sections[prog], f"{prog}: {flag} missing"
            for choice in action.choices or ():
                assert f"`{choice}`" in sections[prog] or f"{prog} {choice}" in sections, f"{prog}: choice {choice} missing"
    for code in EXIT_CODES:
        assert f"\n| {code} | " in text


def test_every_config_key_is_in_the_config_reference() -> None:
    text = (ROOT / "docs" / "reference" / "config.md").read_text("utf-8")
    schema = json.loads((ROOT / "schemas" / "config.schema.json").read_text("utf-8"))

    def keys(props: dict, prefix: str = "") -> list[str]:
        return [k for key, spec in props.items() for k in [prefix + key, *keys(spec.get("properties", {}), f"{prefix}{key}.")]]

    for key in keys(schema["properties"]):
        assert f"\n| `{key}` | " in text, f"config key {key} missing"
    assert "| `refresh.model` | string | `\"gpt-4o-mini\"` |" in text  # the code's default, not a copy


def test_the_generator_runs_as_a_script_in_a_checkout() -> None:
    """`python docs/reference/generate.py --check`, as the docs say to run it."""
    import subprocess

    p = subprocess.run([sys.executable, "docs/reference/generate.py", "--check"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert p.returncode == 0, p.stderr


def test_troubleshooting_has_a_family_for_every_user_error() -> None:
    """docs/troubleshooting.md has a section per `OpenwikiError` subclass (an exit-2 family): a new
    one added without its fixes fails here."""
    import openwiki_git.errors as errors

    text = (ROOT / "docs" / "troubleshooting.md").read_text("utf-8")
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    for cls in errors.OpenwikiError.__subclasses__():
        if cls.__module__ == "openwiki_git.errors":
            assert any(f"`{cls.__name__}`" in h for h in headings), f"docs/troubleshooting.md has no section for {cls.__name__}"
