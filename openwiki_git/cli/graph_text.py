"""The evidence graph's node summaries as text, for `locate` and `expand`."""

from __future__ import annotations

from typing import Any


def node_line(s: dict[str, Any]) -> str:
    """One line for a node summary: id, kind, label and the flags an agent must not miss."""
    line = f"{s['id']}  [{s['kind']}] {s['label']}"
    if s["kind"] == "claim":
        line += f"  ⚠ STALE ({s['status']})" if s["stale"] else f"  ({s['status']})"
    if s.get("superseded"):
        line += f"  (superseded by {', '.join(s['superseded_by'])}"
        line += f"; in force: {s['head']})" if s.get("head") and s["head"] not in s["superseded_by"] else ")"
    if s.get("amended"):
        line += f"  (amended by {', '.join(s['amended_by'])})"
    if s["kind"] == "span" and s.get("status"):
        line += f"  ({s['status']}" + (f", now {s['current_resource']}" if s.get("current_resource") else "") + ")"
    if s.get("lines") and s["kind"] == "paragraph":
        line += f"  (lines {s['lines'][0]}-{s['lines'][1]})"
    return line


def detail_lines(s: dict[str, Any], indent: str = "  ") -> list[str]:
    """The indented extras of a summary: asserted claims, evidence, cited lines."""
    out: list[str] = []
    for c in s.get("claims", ()):
        flag = f"⚠ STALE ({c['status']})" if c["stale"] else c["status"]
        out.append(f"{indent}asserts {c['id']} [{flag}] {c['statement']}")
    for notice in s.get("cites_superseded", ()):
        out.append(f"{indent}{notice['note']}")
    for ev in s.get("evidence", ()) if s["kind"] == "claim" else ():
        where = ev.get("current_resource") or ev["resource"]
        reason = f": {ev['reason']}" if ev.get("reason") else ""
        out.append(f"{indent}evidence {ev['resource']} {ev['status']}{reason}" + (f" (now {where})" if where != ev["resource"] else ""))
        out.extend(_cited(ev.get("text"), where, indent + "  "))
    if s["kind"] == "span":
        out.extend(_cited(s.get("text"), s.get("current_resource") or s["id"], indent + "  "))
    return out


def _cited(text: str | None, resource: str, indent: str) -> list[str]:
    if not text:
        return []
    start = 1
    if "#L" in resource:
        start = int(resource.rsplit("#L", 1)[1].split("-", 1)[0])
    return [f"{indent}{n:>5} | {line}" for n, line in enumerate(text.rstrip("\n").split("\n"), start)]
