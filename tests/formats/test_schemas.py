"""The JSON Schemas: valid Draft 2020-12, shipped twice (package and repository root) as
byte-identical copies, and matching what the tool writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from openwiki_git.formats import schema, sidecar
from openwiki_git.model import Cause, Claim, Evidence, Mark, Sidecar, Verification

ROOT = Path(__file__).resolve().parents[2]
PACKAGE_DIR = ROOT / "openwiki_git" / "schemas"
ROOT_DIR = ROOT / "schemas"
PACKAGED = sorted(p.name for p in PACKAGE_DIR.glob("*.json"))


def validator(name: str) -> Draft202012Validator:
    return Draft202012Validator(json.loads((PACKAGE_DIR / name).read_text("utf-8")))


def test_core_schemas_present():
    assert {"config.schema.json", "sidecar.schema.json", "check-report.schema.json"} <= set(PACKAGED)


@pytest.mark.parametrize("name", PACKAGED)
def test_schema_is_valid_draft_2020_12(name):
    data = json.loads((PACKAGE_DIR / name).read_text("utf-8"))
    Draft202012Validator.check_schema(data)
    assert data.get("$schema") == "https://json-schema.org/draft/2020-12/schema"
    assert data.get("$id", "").endswith("/" + name)


def test_root_copies_are_byte_identical():
    """Edit openwiki_git/schemas/*.json, then `cp openwiki_git/schemas/*.json schemas/`."""
    assert sorted(p.name for p in ROOT_DIR.glob("*.json")) == PACKAGED
    for name in PACKAGED:
        assert (ROOT_DIR / name).read_bytes() == (PACKAGE_DIR / name).read_bytes(), name


def test_every_named_schema_loads():
    for name, filename in schema.SCHEMA_FILES.items():
        # A named schema missing from the package is a packaging bug: fail, don't skip it.
        assert (PACKAGE_DIR / filename).is_file(), filename
        assert schema.load_schema(name) == json.loads((PACKAGE_DIR / filename).read_text("utf-8"))


def _full_sidecar() -> Sidecar:
    """Every optional addition present."""
    token = "repo-lines-v1:sha256:" + "a" * 64 + ":eyJ4Ijox"
    claim = Claim(
        id="claim_" + "0" * 32,
        statement="Retries stop after five attempts.",
        evidence=(
            Evidence("repo://src/retry.py#L10-L24", token, "b" * 40),
            Evidence("repo://src/%C3%A9t%C3%A9.py", "repo-file-v1:sha256:" + "c" * 64),
        ),
        verified_at="2026-11-30T10:00:00Z",
        verified_by="human:alice",
        mark=Mark(
            "stale",
            "2026-11-30T11:00:00Z",
            (Cause("repo://src/retry.py#L10-L24", "changed", "@@ -10,2 +10,3 @@", (10, 24), (11, 25), "src/retry2.py"),),
            "d" * 40,
        ),
    )
    return Sidecar("guide.md", "sha256:" + "e" * 64, (claim,), Verification("openwiki/0.3.3", "2026-11-30T10:00:00.000Z"))


def test_sidecar_with_every_addition_validates_and_round_trips():
    sc = _full_sidecar()
    text = sidecar.dumps(sc)
    data = json.loads(text)
    validator("sidecar.schema.json").validate(data)
    assert sidecar.loads(text, filename="x.json", page="guide.md") == sc
    assert sidecar.dumps(sidecar.loads(text, filename="x.json", page="guide.md")) == text


def test_openwiki_reduction_has_no_additions():
    data = json.loads(sidecar.dumps(_full_sidecar().for_openwiki()))
    validator("sidecar.schema.json").validate(data)
    assert set(data) == {"schemaVersion", "pageVersion", "claims", "verification"}
    assert set(data["claims"][0]) == {"id", "statement", "evidence"}
    assert all(set(e) == {"resource", "version"} for e in data["claims"][0]["evidence"])


def test_schema_and_reader_agree_on_rejections():
    """Every key the reader allows is in the schema, and vice versa."""
    s = json.loads((PACKAGE_DIR / "sidecar.schema.json").read_text("utf-8"))
    defs = s["$defs"]
    assert set(s["properties"]) == sidecar.ROOT_KEYS
    assert set(defs["claim"]["properties"]) == sidecar.CLAIM_KEYS
    assert set(defs["evidence"]["properties"]) == sidecar.EVIDENCE_KEYS
    assert set(defs["mark"]["properties"]) == sidecar.MARK_KEYS
    assert set(defs["mark"]["properties"]["causes"]["items"]["properties"]) == sidecar.CAUSE_KEYS


def _run(repo, capsys, *argv: str) -> str:
    capsys.readouterr()
    repo.run(*argv)
    return capsys.readouterr().out


def test_sidecars_written_by_the_tool_validate(wiki_repo, capsys):
    wiki_repo.write(".openwiki/deep/page.md", "# P\n\nLine ten says ten.\n")
    for page in ("guide.md", "deep/page.md"):
        for ev in ("repo://src/app.py#L10-L12", "repo://src/app.py"):
            assert wiki_repo.run("claim", "add", "--page", page, "--statement", "Line ten says ten.", "--evidence", ev) == 0
    wiki_repo.write("src/app.py", "head\n" + wiki_repo.read("src/app.py").replace("line 11\n", "changed\n"))
    wiki_repo.run("check", "--fix")  # adds marks and causes
    v = validator("sidecar.schema.json")
    paths = sorted((wiki_repo.root / ".openwiki/.claims").rglob("*.json"))
    assert len(paths) == 2
    for path in paths:
        data = json.loads(path.read_text("utf-8"))
        v.validate(data)
        assert any("mark" in c for c in data["claims"])
    assert schema.problems("sidecar", json.loads(paths[0].read_text("utf-8"))) == []


def test_check_report_validates(wiki_repo, capsys):
    v = validator("check-report.schema.json")
    v.validate(json.loads(_run(wiki_repo, capsys, "check", "--format", "json")))  # no claims
    wiki_repo.run("claim", "add", "--page", "guide.md", "--statement", "Line ten says ten.", "--evidence", "repo://src/app.py#L10")
    wiki_repo.run("claim", "add", "--page", "guide.md", "--statement", "Not in prose.", "--evidence", "repo://src/app.py#L30")
    wiki_repo.write("src/app.py", "x\n" * 5)
    wiki_repo.run("check", "--fix")
    report = json.loads(_run(wiki_repo, capsys, "check", "--format", "json"))
    v.validate(report)
    assert report["summary"]["unresolved"] == 2 and report["summary"]["missing_markers"] == 1
    assert all("mark" in c for c in report["claims"])
    problems = json.loads(_run(wiki_repo, capsys, "check", "--format", "json", "--only-problems"))
    v.validate(problems)
    assert problems["only_problems"] is True and problems["summary"] == report["summary"]


def test_config_written_by_init_validates(repo, capsys):
    from openwiki_git.formats.yamlio import load_yaml

    assert repo.run("init") == 0
    data = load_yaml(repo.read(".openwiki/config.yml"), filename="config.yml")
    validator("config.schema.json").validate(data)


# -- the config fast path agrees with ruamel.yaml + the schema -------------------------------

_KEYS = ["wiki_dir", "sidecar_format", "adjacent_insert", "rename_threshold", "max_growth", "reverify_after", "docs", "bogus",
         "range_growth_factor", "range_growth_lines", "hook", "on_moved", "on_stale"]
_VALUES = [
    "", ".openwiki", "openwiki", "openwiki-git", "fresh", "stale", "0", "7", "100", "101", "010", "-1", "+1", "1.5",
    "1e3", ".inf", ".NaN", ".5", "null", "Null", "~", "true", "False", "yes", "no", "on", "90d", "12h", "3w", "9x",
    '"quoted"', "'single'", '"a b"', "'it''s'", '"esc\\"aped"', "a b", "a:b", "a: b", "a#b", "a #c", "[1]", "{a: 1}",
    "- x", "&anchor x", "*alias", "!tag x", "|", ">", "%x", "@x", "`x", "docs/wiki", "2026-01-01", "0x1F", "0o17",
    "1_000", "é", "0.", "-", "a-", ".", "..", "/abs",
]


_GOOD = {
    "wiki_dir": [".openwiki", "docs/wiki", '"a b"', "'w'", "wiki-2"],
    "sidecar_format": ["openwiki", "openwiki-git", '"openwiki"'],
    "adjacent_insert": ["fresh", "stale", "'fresh'"],
    "rename_threshold": ["0", "50", "100"],
    "max_growth": ["0", "7", "200"],
    "reverify_after": ["90d", "12h", "", "null"],
    "range_growth_factor": ["1", "2", "0"],
    "range_growth_lines": ["0", "10"],
    "hook": [""],
    "on_moved": ["stage", "stop"],
    "on_stale": ["stop", "stage"],
}


@st.composite
def _config_texts(draw):
    lines = []
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(st.sampled_from(["pair"] * 8 + ["comment", "blank", "indent", "raw"]))
        if kind == "pair":
            key = draw(st.sampled_from(_KEYS[:6])) if draw(st.booleans()) else draw(st.sampled_from(_KEYS))
            good = _GOOD.get(key, _VALUES)
            value = draw(st.sampled_from(good if draw(st.integers(0, 3)) else _VALUES))
            sep = draw(st.sampled_from([": ", ":  ", ":", ": "]))
            tail = draw(st.sampled_from(["", "", "  ", " # note", "# not a comment"]))
            lines.append(f"{key}{sep}{value}{tail}")
        elif kind == "comment":
            lines.append(draw(st.sampled_from(["# c", "  # c", "#"])))
        elif kind == "blank":
            lines.append(draw(st.sampled_from(["", "  "])))
        elif kind == "indent":
            key = draw(st.sampled_from(_KEYS))
            value = draw(st.sampled_from(_GOOD.get(key, _VALUES) if draw(st.booleans()) else _VALUES))
            lines.append(draw(st.sampled_from(["  ", "   ", " "])) + key + ": " + value)
        else:
            lines.append(draw(st.sampled_from(["---", "...", "- a", "? x", "docs:", "  - a/**", "\ttab: 1", "x\r", "hook:"])))
    return "\n".join(lines) + draw(st.sampled_from(["", "\n"]))


@settings(max_examples=600, deadline=None)
@given(_config_texts())
def test_config_fast_path_agrees_with_yaml_and_schema(text):
    from openwiki_git.formats.yamlio import load_yaml
    from openwiki_git.store.config import _simple_config

    fast = _simple_config(text)
    if fast is None:
        return  # the full path decides
    data = load_yaml(text, filename="config.yml")  # must not raise: the fast path accepted it
    data = {} if data is None else data
    assert schema.problems("config", data) == [], text
    assert data == fast and {k: type(v) for k, v in data.items()} == {k: type(v) for k, v in fast.items()}, text


def test_config_fast_path_covers_the_init_template():
    from openwiki_git.services.init import CONFIG_TEMPLATE
    from openwiki_git.store.config import _simple_config

    assert _simple_config(CONFIG_TEMPLATE.format(wiki_dir=".openwiki")) is not None
    assert _simple_config("wiki_dir: .openwiki\nreverify_after: 90d\nmax_growth: 50\n") == {
        "wiki_dir": ".openwiki", "reverify_after": "90d", "max_growth": 50,
    }


def test_config_fast_path_agrees_on_every_single_line():
    from openwiki_git.errors import ConfigError
    from openwiki_git.formats.yamlio import load_yaml
    from openwiki_git.store.config import _simple_config

    accepted = 0
    for key in _KEYS:
        for value in _VALUES:
            for tail in ("", " # c"):
                text = f"{key}: {value}{tail}\n"
                fast = _simple_config(text)
                if fast is None:
                    continue
                accepted += 1
                try:
                    data = load_yaml(text, filename="c.yml") or {}
                except ConfigError as e:  # pragma: no cover - a disagreement
                    raise AssertionError(f"fast path accepted {text!r}, YAML says {e}") from None
                assert schema.problems("config", data) == [], text
                assert data == fast and [type(v) for v in data.values()] == [type(v) for v in fast.values()], text
    assert accepted >= 30


def test_config_fast_path_knows_the_schema_it_mirrors():
    """flatconfig._SIMPLE_SETTINGS re-states these constraints; change both together."""
    from openwiki_git.formats.flatconfig import _SIMPLE_SETTINGS

    props = schema.load_schema("config")["properties"]
    mirrored = {k: {a: b for a, b in props[k].items() if a != "description"} for k in _SIMPLE_SETTINGS}
    assert mirrored == {
        "wiki_dir": {"type": "string", "minLength": 1},
        "sidecar_format": {"enum": ["openwiki-git", "openwiki"]},
        "site": {"enum": ["mkdocs", "sphinx", "none"]},
        "adjacent_insert": {"enum": ["fresh", "stale"]},
        "rename_threshold": {"type": "integer", "minimum": 0, "maximum": 100},
        "max_growth": {"type": "integer", "minimum": 0},
        "reverify_after": {  # the simple reader takes the one-duration form; a mapping goes to YAML and the schema
            "type": ["string", "object", "null"], "pattern": "^[0-9]+[hdw]$", "minProperties": 1,
            "propertyNames": {"minLength": 1, "maxLength": 200},
            "additionalProperties": {"type": "string", "pattern": "^[0-9]+[hdw]$"},
        },
        "range_growth_factor": {"type": "integer", "minimum": 1},
        "range_growth_lines": {"type": "integer", "minimum": 0},
        "cosmetic_edits": {"enum": ["fresh", "mark", "stale"]},
    }
    from openwiki_git.formats.flatconfig import _SIMPLE_SECTIONS

    hook = props["hook"]["properties"]
    assert {k: hook[k]["enum"] for k in _SIMPLE_SECTIONS["hook"]} == {"on_moved": ["stage", "stop"], "on_stale": ["stop", "stage"]}


@pytest.mark.parametrize("text", [
    "hook:\n  on_moved: stop\n",
    "max_growth: 3\nhook:\n  on_stale: stage\n  on_moved: stage  # c\nadjacent_insert: stale\n",
    "hook:\n  # comment\n  on_stale: 'stop'\n",
    "hook:\n", "hook:\n  on_moved: maybe\n", "hook:\n  bogus: 1\n", "hook:\n  on_moved: stop\n  on_moved: stage\n",
    "hook: stop\n", "on_moved: stop\n", "hook:\n   on_moved: stop\n", "hook:\nhook:\n  on_moved: stop\n",
])
def test_config_fast_path_hook_section(text):
    from openwiki_git.errors import ConfigError
    from openwiki_git.formats.yamlio import load_yaml
    from openwiki_git.store.config import _simple_config

    fast = _simple_config(text)
    if fast is None:
        return
    try:
        data = load_yaml(text, filename="c.yml") or {}
    except ConfigError as e:  # pragma: no cover - a disagreement
        raise AssertionError(f"fast path accepted {text!r}, YAML says {e}") from None
    assert schema.problems("config", data) == [] and data == fast, text
