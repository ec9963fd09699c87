"""`openwiki-git refresh`: a chat model confirms, revises or retracts each stale claim.

Takes every stale or unresolved claim (or those named by --claim / --page; with --due also the
claims due for re-verification) and asks the model for one decision per claim. Only decisions
that pass every check are applied; each is saved as soon as it is made. Claims whose cited text
changed only in white space are confirmed without a model call. Exit 0 when every claim taken was
decided, 1 when some stay stale (the report says why), 2 on a usage error or a missing key.
"""

from __future__ import annotations

import argparse
import json
import sys

from openwiki_git.cli.args import add_format, open_workspace, parse_shard
from openwiki_git.redact import redact


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "refresh",
        help="have a model confirm, revise or retract stale claims",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--claim", action="append", default=[], metavar="ID", help="only this claim (repeatable)")
    p.add_argument("--page", action="append", default=[], metavar="P", help="only claims on this page (repeatable)")
    p.add_argument("--due", action="store_true", help="also claims due for re-verification (reverify_after, stale_after)")
    p.add_argument(
        "--plan", "--dry-run", dest="dry_run", action="store_true",
        help="call no model, write nothing: list what would be sent, with estimated tokens and cost",
    )
    p.add_argument("--max-claims", type=int, metavar="N", help="send at most N claims to the model")
    p.add_argument("--model", metavar="M", help="chat model name (refresh.model)")
    p.add_argument("--base-url", metavar="URL", help="OpenAI-compatible endpoint, e.g. http://localhost:11434/v1")
    p.add_argument("--api-key-env", metavar="NAME", help="environment variable holding the key (default OPENAI_API_KEY)")
    p.add_argument(
        "--method",
        choices=["json_schema", "function_calling", "json_mode"],
        help="structured-output method to start with (falls back on HTTP 400)",
    )
    p.add_argument("--temperature", type=float, help="sampling temperature (default 0)")
    p.add_argument("--max-tokens", type=int, metavar="N", help="most tokens per answer")
    p.add_argument("--timeout", type=float, metavar="SECONDS", help="deadline of one model call, retries included (default 60)")
    p.add_argument("--deadline", type=float, metavar="SECONDS", help="deadline of the whole run: then nothing new is sent")
    p.add_argument("--max-concurrency", type=int, metavar="N", help="claims sent to the model at once (default 4)")
    p.add_argument("--shard", type=parse_shard, metavar="I/N", help="only the pages of shard I of N (stable by page)")
    p.add_argument("--max-retries", type=int, metavar="N", help="retries per request (429, timeouts, 5xx)")
    add_format(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from openwiki_git.refresh.run import run_refresh
    from openwiki_git.refresh.settings import RefreshOptions

    ws = open_workspace(args)
    options = RefreshOptions(
        claims=args.claim,
        pages=args.page,
        due=args.due,
        dry_run=args.dry_run,
        max_claims=args.max_claims,
        model=args.model,
        base_url=args.base_url,
        api_key_env=args.api_key_env,
        method=args.method,
        temperature=args.temperature,
        max_tokens=args.max_tokens,
        timeout=args.timeout,
        max_retries=args.max_retries,
        deadline=args.deadline,
        max_concurrency=args.max_concurrency,
        shard=args.shard,
        progress=lambda line: print(line, file=sys.stderr, flush=True),
    )
    result = run_refresh(ws, options)
    if args.format == "json":
        print(redact(json.dumps(result.to_dict(), indent=2, ensure_ascii=False)))
    else:
        sys.stdout.write(redact(to_text(result, ws.config.wiki_dir)))
    if result.unusable:
        print(f"error: the model cannot be used: {redact(result.unusable)}", file=sys.stderr)
        print("hint: check the key, --model and --base-url; decisions made before the failure were kept", file=sys.stderr)
        return 2
    return 0 if result.ok or result.dry_run else 1


def _money(cost: float | None) -> str:
    return "cost unknown" if cost is None else f"${cost:.4f}"


def cost_line(t: dict[str, object]) -> str:
    """The model's pass in the open: requests, claims decided, calls and tokens per claim, the
    first answers accepted, the retries."""
    rate = t["first_acceptance"]
    accepted = f"{t['first_accepted']}/{t['requests']}" + (f" ({float(rate):.0%})" if isinstance(rate, (int, float)) else "")
    return (
        f"model: {t['requests']} requests (one per sentence) decided {t['model_decided']} claims; "
        f"{t['calls_per_claim']} calls and {t['tokens_per_claim']} tokens per claim; first answers accepted "
        f"{accepted}; {t['retries']} retries"
    )


def to_text(result, wiki_dir: str) -> str:  # type: ignore[no-untyped-def]
    lines: list[str] = []
    if result.dry_run and result.diff:
        lines.append(result.diff.rstrip("\n"))
    for d in result.decisions:
        where = f"{wiki_dir}/{d.page}: {d.claim_id}"
        usage = f" [{d.tokens_in} in, {d.tokens_out} out, {_money(d.cost)}]" if d.attempts else ""
        if d.verdict == "confirm":
            lines.append(f"{where}: confirmed" + (f" without a model ({d.trivial})" if d.trivial else "") + usage)
        elif d.verdict == "revise":
            change = f'"{d.old_statement}" -> "{d.new_statement}"' if d.new_statement != d.old_statement else "new evidence"
            lines.append(f"{where}: revised: {change}{usage}")
        elif d.verdict == "retract":
            lines.append(f'{where}: retracted: "{d.old_statement}"{usage}')
        elif d.planned is not None and d.planned["send"]:
            p = d.planned
            together = f", with {len(p['claims']) - 1} more claims of its sentence" if len(p.get("claims", ())) > 1 else ""
            left = f"; left out: {'; '.join(p['left_out'])}" if p.get("left_out") else ""
            lines.append(
                f"{where}: would send ~{p['tokens_in']} tokens in, ~{p['tokens_out']} out, ~{_money(p['cost'])}"
                f" (files: {', '.join(p['files'])}{together}){left}"
            )
        else:
            lines.append(f"{where}: left {d.status}: {d.error or d.skipped}{usage}")
    for note in result.fallbacks:
        lines.append(f"note: {note}")
    t = result.totals
    summary = (
        f"{t['claims']} claims: {t['confirmed']} confirmed ({t['trivial']} without a model), {t['revised']} revised, "
        f"{t['retracted']} retracted, {t['claims'] - t['confirmed'] - t['revised'] - t['retracted']} left as they were"
    )
    if t["model_calls"]:
        summary += f"; {t['model_calls']} model calls, {t['tokens_in']} tokens in, {t['tokens_out']} out, {_money(t['cost'])}"
    lines.append(summary)
    if t["requests"]:
        lines.append(cost_line(t))
    if result.stopped:
        lines.append(f"stopped early: {result.stopped}")
    if result.dry_run:
        plan = result.plan_totals
        per = f", ~{plan['tokens_per_claim']} tokens per claim" if plan["tokens_per_claim"] is not None else ""
        lines.append(
            f"plan: {plan['claims_to_send']} claims would be sent in {plan['requests']} requests (one per sentence), "
            f"~{plan['tokens_in']} tokens in, ~{plan['tokens_out']} out{per}, ~{_money(plan['cost'])} (estimates); "
            "no model was called, nothing was written"
        )
    return "\n".join(lines) + "\n"
