"""The layering, checked: the worker and the data layer never reach the HTTP layer, and no route
module imports another (shared pieces live in app.api.public, the services and app.errors).

    worker  ↛ app.api          (transitively: importing the worker loads no app.api module)
    app.db  ↛ app.api          (transitively)
    app.api.routes.X ↛ app.api.routes.Y
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _loaded_by(modules: list[str]) -> set[str]:
    code = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in modules)
        + "print('\\n'.join(sorted(m for m in sys.modules if m == 'app.api' or m.startswith('app.api.'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return {line for line in out.stdout.splitlines() if line}


@pytest.mark.parametrize(
    "modules",
    [
        ["worker.celery_app", "worker.tasks", "worker.runner", "worker.leases", "worker.__main__"],
        ["app.db.models", "app.db.repository", "app.db.sweep_repository", "app.db.tenancy", "app.db.leases"],
    ],
    ids=["worker", "app.db"],
)
def test_never_loads_the_http_layer(modules: list[str]) -> None:
    assert _loaded_by(modules) == set()


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return found


def test_routes_never_import_routes() -> None:
    routes = ROOT / "app" / "api" / "routes"
    offenders = {
        path.name: sorted(m for m in _imports(path) if m.startswith("app.api.routes"))
        for path in routes.glob("*.py")
    }
    assert {name: mods for name, mods in offenders.items() if mods} == {}
