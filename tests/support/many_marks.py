"""A wiki whose claims one commit marks by the hundred (issue 36): `src/api.py` defines FUNCS
functions of PER parameters each, and the page `api.md` says, for each parameter, that its
function takes it, cited on the function's head (FUNCS x PER claims, each through the real
`claim add`). `annotate` rewrites every signature's annotations (`Optional[int]` -> `int | None`,
`Dict` -> `dict`): one annotation-only change that marks every claim, PER claims sharing each
function's change."""

from __future__ import annotations

import contextlib
import io

from tests.support.repo import GitRepo

FUNCS, PER = 20, 10
PAGE = "api.md"


def api(*, new: bool = False, changed: tuple[int, ...] = ()) -> str:
    """The module: old annotations, or (`new`) the rewritten ones; the bodies of the functions in
    `changed` return something else (a change of code, not of annotations)."""
    out = ['"""The API."""\n', "from typing import Dict, Optional\n\n\n"]
    for i in range(FUNCS):
        kind = "int | None" if new else "Optional[int]"
        params = ", ".join(f"p{k}: {kind} = None" for k in range(PER))
        ret = "dict[str, int]" if new else "Dict[str, int]"
        body = "{'changed': 1}" if i in changed else "{}"
        out.append(f'def f{i}({params}) -> {ret}:\n    """Function {i}."""\n    return {body}\n\n\n')
    return "".join(out)


def sentence(i: int, k: int) -> str:
    return f"`f{i}()` takes `p{k}`."


def build(repo: GitRepo, *, wiki_dir: str = ".openwiki") -> list[str]:
    """The module, an initialised wiki and its page with every claim, committed (no hook); the
    claims' ids, in page order."""
    repo.write("src/api.py", api())
    with contextlib.redirect_stdout(io.StringIO()):
        assert repo.run("init") == 0
    # annotations are code here (issue 36 measures a typing tidy-up marking every claim): the
    # default weighs an annotation edit against each sentence, and these name no type
    config = repo.root / ".openwiki" / "config.yml"
    config.write_text(config.read_text("utf-8") + "cosmetic_annotations: false\n", "utf-8")
    body = "".join(f"{sentence(i, k)}\n\n" for i in range(FUNCS) for k in range(PER))
    repo.write(f"{wiki_dir}/{PAGE}", f"---\ntype: Reference\ntitle: API\n---\n\n# API\n\n{body}")
    repo.git("add", "-A")
    ids = []
    for i in range(FUNCS):
        for k in range(PER):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                assert repo.run("claim", "add", "--page", PAGE, "--statement", sentence(i, k),
                                "--evidence", f"repo://src/api.py#f{i}:head", "--by", "human:ann") == 0
            ids.append(out.getvalue().split()[0])
    repo.git("config", "user.name", "Ann Review")
    repo.git("config", "user.email", "ann@example.invalid")
    repo.commit_all("the API and its wiki")
    return ids


def annotate(repo: GitRepo, *, changed: tuple[int, ...] = ()) -> None:
    """Every signature's annotations rewritten (and the bodies of `changed` too), not staged."""
    repo.write("src/api.py", api(new=True, changed=changed))
