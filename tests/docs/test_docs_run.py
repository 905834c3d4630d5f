"""The docs run as pasted: every shell (```bash, ```sh) and ```python block of README.md and
docs/*.md, in order, in one shell per document at a fresh directory beside the repository's .venv,
against a live embedded service (its address put where the docs say localhost:8000).

A block a reader cannot run here says so on the line before it, with the reason:
``<!-- not tested: needs Docker -->``. Every fence names its language (```text for a diagram or
a tree), so no command hides in a block this test would not see, and every not-tested mark sits
right above a block."""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = [pytest.mark.services, pytest.mark.slow]

DOCS = ("README.md", *(f"docs/{p.name}" for p in sorted((ROOT / "docs").glob("*.md"))))
SHELL = ("bash", "sh")
RUN = (*SHELL, "python")
# (document, first line of the block): why it is not run here (a mark in the document is preferred).
NOT_PASTED = {
    ("README.md", "bash scripts/serve.sh   # install, then run the API + a real Celery worker on the embedded "
     "default (SQLite, no servers) at http://127.0.0.1:8000"): "starts the service this test runs itself",
}  # fmt: skip
MARK = re.compile(r"<!-- not tested: (?P<why>[^>]*?) -->")
FENCE = re.compile(
    r"^(?P<indent>[ \t]*)```(?P<lang>[^`\n]*)\n(?P<body>.*?)^(?P=indent)```[ \t]*$", re.S | re.M
)


@dataclass(frozen=True)
class Block:
    document: str
    line: int  # of the opening fence, 1-based
    lang: str
    body: str
    why_not: str | None  # the not-tested reason, None: it runs


def all_blocks(document: str) -> list[Block]:
    """Every fenced block of ``document``, with its not-tested reason where it has one."""
    text = (ROOT / document).read_text()
    out = []
    for m in FENCE.finditer(text):
        indent = len(m["indent"])
        body = "".join(
            line[indent:] if line[:indent].isspace() else line for line in m["body"].splitlines(True)
        )
        before = text[: m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        mark = MARK.fullmatch(before.strip())
        why = mark["why"] if mark else NOT_PASTED.get((document, body.splitlines()[0] if body else ""))
        out.append(Block(document, text.count("\n", 0, m.start()) + 1, m["lang"].strip(), body, why))
    return out


def blocks(document: str) -> list[tuple[str, str]]:
    """(language, body) of each block of ``document`` that a reader pastes and this test runs."""
    return [(b.lang, b.body) for b in all_blocks(document) if b.lang in RUN and b.why_not is None]


def script(document: str, base: str) -> str:
    """One bash script: each block in order (a Python block through the venv's python), each
    announced on stderr so a failure names its block."""
    host = base.removeprefix("http://")
    parts = ["set -euo pipefail"]
    for i, (lang, body) in enumerate(blocks(document)):
        body = body.replace("localhost:8000", host).replace("127.0.0.1:8000", host)
        parts.append(f"echo '--- {document} block {i + 1} ({lang})' >&2")
        parts.append(body if lang in SHELL else f".venv/bin/python - <<'SAL_DOCS_PY'\n{body}SAL_DOCS_PY")
    return "\n".join(parts) + "\n"


def test_every_fence_names_its_language() -> None:
    bare = [f"{b.document}:{b.line}" for d in DOCS for b in all_blocks(d) if not b.lang]
    assert bare == [], "say ```bash, ```python or ```text"


def test_every_not_tested_mark_is_above_a_block_and_says_why() -> None:
    for document in DOCS:
        text = (ROOT / document).read_text()
        marks = [m for m in MARK.finditer(text)]
        marked = [
            b
            for b in all_blocks(document)
            if b.why_not is not None and (document, b.body.splitlines()[0]) not in NOT_PASTED
        ]
        assert len(marks) == len(marked), f"{document}: a not-tested mark that is not right above a block"
        assert all(m["why"].strip() for m in marks), document


def test_the_runnable_blocks_are_found() -> None:
    assert any("jq -r .id" in body for _, body in blocks("README.md"))
    ran = {d for d in DOCS if blocks(d)}
    assert {"README.md", "docs/api.md", "docs/algorithms.md", "docs/interop.md"} <= ran, ran
    marked = {b.document for d in DOCS for b in all_blocks(d) if b.why_not}
    assert "docs/deployment.md" in marked  # Docker: marked, not skipped silently


@pytest.mark.parametrize("document", [d for d in DOCS if blocks(d)])
def test_the_blocks_run_as_pasted(document: str, embedded: str, tmp_path: Path) -> None:
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SAL_")}
    env["PATH"] = f"{ROOT / '.venv' / 'bin'}:{env['PATH']}"
    done = subprocess.run(["bash", "-c", script(document, embedded)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=540)  # fmt: skip
    assert done.returncode == 0, f"{done.stderr[-3000:]}\n--- stdout\n{done.stdout[-3000:]}"
    assert "Internal Server Error" not in done.stdout
