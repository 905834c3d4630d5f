"""The docs run as pasted: every ```bash and ```python block of README.md and docs/api.md, in
order, in one shell per document at a fresh directory beside the repository's .venv, against a
live embedded service (its address put where the docs say localhost:8000). A block a reader is
not meant to paste is marked ``<!-- not tested: why -->`` on the line before it, or listed in
NOT_PASTED with the reason."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = [pytest.mark.services, pytest.mark.slow]

DOCS = ("README.md", "docs/api.md")
# (document, first line of the block): why it is not run here.
NOT_PASTED = {
    ("README.md", "bash scripts/serve.sh   # install, then run the API + a real Celery worker on the embedded "
     "default (SQLite, no servers) at http://127.0.0.1:8000"): "starts the service this test runs itself",
}  # fmt: skip
BLOCK = re.compile(
    r"(?:<!-- not tested: (?P<why>[^>]*) -->\n)?```(?P<lang>bash|python)\n(?P<body>.*?)```", re.S
)


def blocks(document: str) -> list[tuple[str, str]]:
    """(language, body) of each block of ``document`` that a reader pastes."""
    out = []
    for m in BLOCK.finditer((ROOT / document).read_text()):
        first = m["body"].splitlines()[0]
        if m["why"] is None and (document, first) not in NOT_PASTED:
            out.append((m["lang"], m["body"]))
    return out


def script(document: str, base: str) -> str:
    """One bash script: each block in order (a Python block through the venv's python), each
    announced on stderr so a failure names its block."""
    host = base.removeprefix("http://")
    parts = ["set -euo pipefail"]
    for i, (lang, body) in enumerate(blocks(document)):
        body = body.replace("localhost:8000", host).replace("127.0.0.1:8000", host)
        parts.append(f"echo '--- {document} block {i + 1} ({lang})' >&2")
        parts.append(body if lang == "bash" else f".venv/bin/python - <<'SAL_DOCS_PY'\n{body}SAL_DOCS_PY")
    return "\n".join(parts) + "\n"


def test_every_document_has_blocks_to_run() -> None:
    for document in DOCS:
        assert blocks(document), document
    assert any("jq -r .id" in body for _, body in blocks("README.md"))


@pytest.mark.parametrize("document", DOCS)
def test_the_blocks_run_as_pasted(document: str, embedded: str, tmp_path: Path) -> None:
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SAL_")}
    env["PATH"] = f"{ROOT / '.venv' / 'bin'}:{env['PATH']}"
    done = subprocess.run(["bash", "-c", script(document, embedded)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=540)  # fmt: skip
    assert done.returncode == 0, f"{done.stderr[-3000:]}\n--- stdout\n{done.stdout[-3000:]}"
    assert "Internal Server Error" not in done.stdout
