"""ground_ts.py: definitions in JavaScript, TypeScript, Go and Rust through tree-sitter (the
`ground` extra, part of the test extra), and `ground` citing them."""

from __future__ import annotations

import json

import pytest

from openwiki_git.evidence import treesitter as ground_ts
from tests.support.repo import GitRepo

JS = "class Server {\n  listen(port) {\n    return port;\n  }\n}\n\nfunction start() {}\nexport const stop = () => 1;\n"
GO = "package main\n\ntype Server struct {\n\tport int\n}\n\nfunc (s *Server) Listen() error {\n\treturn nil\n}\n\nfunc Start() {}\n"
RS = "pub struct Server {\n    port: u16,\n}\n\nimpl Server {\n    pub fn listen(&self) {}\n}\n\npub fn start() {}\n"
TS = "export interface Opts { a: number }\nexport class Client {\n  send(x: string): void {}\n}\n"


@pytest.mark.parametrize(
    ("path", "text", "expected"),
    [
        (
            "a.js",
            JS,
            [("Server", 1, 5, "class"), ("Server.listen", 2, 4, "method"), ("start", 7, 7, "function"), ("stop", 8, 8, "function")],
        ),
        ("a.go", GO, [("Server", 3, 5, "class"), ("Server.Listen", 7, 9, "method"), ("Start", 11, 11, "function")]),
        ("a.rs", RS, [("Server", 1, 3, "class"), ("Server.listen", 6, 6, "method"), ("start", 9, 9, "function")]),
        ("a.ts", TS, [("Opts", 1, 1, "class"), ("Client", 2, 4, "class"), ("Client.send", 3, 3, "method")]),
        ("a.kt", "fun main() {}\n", []),  # no grammar: no definitions, never cited, never broken
    ],
)
def test_definitions(path: str, text: str, expected: list[tuple[str, int, int, str]]) -> None:
    assert list(ground_ts.definitions(path, text)) == expected


def test_ground_cites_a_javascript_method(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    repo.write("web/server.js", JS)
    repo.write(".openwiki/config.yml", "wiki_dir: docs\n")
    repo.write("docs/web.md", "Call `Server.listen()` with a port to serve requests.\n")
    repo.commit_all()
    capsys.readouterr()
    assert repo.run("ground", "--all", "--format", "json") == 0
    (added,) = json.loads(capsys.readouterr().out)["pages"][0]["added"]
    assert added["evidence"] == "repo://web/server.js#Server.listen"
