"""The layering, checked: nothing below the HTTP layer reaches it, the data layer never reaches the
domains above it, and no route module imports another (shared pieces live below them: the domains'
services and public views, app.errors).

    worker    ↛ app.api        (transitively: importing the worker loads no app.api module)
    app.db    ↛ app.api        (transitively)
    app/*.py  ↛ app.api        (settings, errors, queue, auth, health, …; not the entry points)
    domain    ↛ app.api        (transitively; a domain is app.jobs, .sweeps, .datasets, .reports,
                                .storage, .keys, .tenants: its schemas live in it, as polar keeps
                                them)
    app.db    ↛ domain         (the repository stores rows; the services validate documents)
    sal_core helpers ↛ sal_core.algorithms   (the algorithms sit on top of the helpers)
    app.api.routes.X ↛ app.api.routes.Y
    app.api.routes    ↛ app.db, sqlalchemy.text; never commits, rolls back, flushes or executes
                        (routes call services; the services end the transaction)
    a route module's functions: at most MAX_ROUTE_LINES lines each, signature and docstring in
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOMAINS = ("app.jobs", "app.sweeps", "app.datasets", "app.reports", "app.storage", "app.keys", "app.tenants")


def _domain_modules() -> list[str]:
    return sorted(
        ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for domain in DOMAINS
        for path in (ROOT / domain.replace(".", "/")).glob("*.py")
    )


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
        _domain_modules(),
    ],
    ids=["worker", "app.db", "domains"],
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


ROUTES = ROOT / "app" / "api" / "routes"
MAX_ROUTE_LINES = 20  # from ``def`` to the last line; the decorator (the OpenAPI entry) not counted
TRANSACTION_CALLS = ("commit", "rollback", "flush", "execute")


def _long_functions(path: Path) -> dict[str, int]:
    """The module-level functions of ``path`` longer than MAX_ROUTE_LINES, with their length."""
    tree = ast.parse(path.read_text(), str(path))
    lengths = {
        node.name: node.end_lineno - node.lineno + 1
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno is not None
    }
    return {name: n for name, n in lengths.items() if n > MAX_ROUTE_LINES}


def _transaction_calls(path: Path) -> list[str]:
    """``x.commit()``-like calls in ``path``: a route leaves the transaction to its service."""
    return sorted(
        f"{node.func.attr}() on line {node.lineno}"
        for node in ast.walk(ast.parse(path.read_text(), str(path)))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in TRANSACTION_CALLS
    )


def _route_rules_broken(path: Path) -> dict[str, object]:
    broken: dict[str, object] = {
        "long": _long_functions(path),
        "imports": _offenders([path], ("app.db", "sqlalchemy.text")).get(str(path), []),
        "calls": _transaction_calls(path),
    }
    return {rule: found for rule, found in broken.items() if found}


def test_routes_are_thin() -> None:
    """Every route is what routes/sweeps.py's are: one service call and the answer's shape, in at
    most MAX_ROUTE_LINES lines, with no repository, no SQL and no transaction of its own."""
    broken = {path.name: _route_rules_broken(path) for path in sorted(ROUTES.glob("*.py"))}
    assert {name: rules for name, rules in broken.items() if rules} == {}


def test_the_thin_route_rule_catches_a_fat_route(tmp_path: Path) -> None:
    path = tmp_path / "fat.py"
    body = "".join(f"    x{i} = repo.get(session, {i})\n" for i in range(MAX_ROUTE_LINES))
    path.write_text(
        "from app.db import repository as repo\n\n\n"
        f"def create(session):\n{body}    session.commit()\n    return x0\n"
    )
    broken = _route_rules_broken(path)
    assert broken["long"] == {"create": MAX_ROUTE_LINES + 3}
    assert broken["imports"] == ["app.db", "app.db.repository"]
    assert broken["calls"] == [f"commit() on line {4 + MAX_ROUTE_LINES + 1}"]


def test_routes_never_import_routes() -> None:
    offenders = {
        path.name: sorted(m for m in _imports(path) if m.startswith("app.api.routes"))
        for path in ROUTES.glob("*.py")
    }
    assert {name: mods for name, mods in offenders.items() if mods} == {}


def _offenders(paths: list[Path], forbidden: tuple[str, ...]) -> dict[str, list[str]]:
    """Each file's imports (module level or inside a function) of a ``forbidden`` package."""
    found = {
        str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path): sorted(
            m for m in _imports(path) if any(m == f or m.startswith(f + ".") for f in forbidden)
        )
        for path in paths
    }
    return {name: mods for name, mods in found.items() if mods}


def test_domains_never_import_the_http_layer() -> None:
    paths = [p for domain in DOMAINS for p in (ROOT / domain.replace(".", "/")).rglob("*.py")]
    assert _offenders(paths, ("app.api", "app.main")) == {}


# The entry points assemble the HTTP layer; every other module directly in app/ sits below it.
ENTRY_POINTS = {"app/main.py", "app/embedded.py"}


def test_the_service_modules_never_import_the_http_layer() -> None:
    paths = [p for p in (ROOT / "app").glob("*.py") if str(p.relative_to(ROOT)) not in ENTRY_POINTS]
    assert _offenders(paths, ("app.api", "app.main")) == {}


def test_the_data_layer_never_imports_a_domain() -> None:
    assert _offenders(list((ROOT / "app" / "db").rglob("*.py")), DOMAINS) == {}


# The package's front door and the scikit-learn adapter use the registry, as a user would.
ABOVE_THE_ALGORITHMS = {"sal_core/__init__.py", "sal_core/sklearn.py"}


def test_sal_core_helpers_never_import_the_algorithms() -> None:
    helpers = [
        p for p in (ROOT / "sal_core").glob("*.py") if str(p.relative_to(ROOT)) not in ABOVE_THE_ALGORITHMS
    ]
    assert _offenders(helpers, ("sal_core.algorithms",)) == {}


@pytest.mark.parametrize(
    ("forbidden", "where"),
    [
        ("app.api", "app/jobs/service.py"),
        ("app.jobs", "app/db/repository.py"),
        ("sal_core.algorithms", "sal_core/problem.py"),
    ],
)
def test_the_contracts_catch_an_upward_import(forbidden: str, where: str, tmp_path: Path) -> None:
    """Each static contract above fails on a file that breaks it (a function-level import too)."""
    path = tmp_path / Path(where).name
    path.write_text((ROOT / where).read_text() + f"\n\ndef _late() -> None:\n    import {forbidden}\n")
    assert forbidden in _offenders([path], (forbidden,)).get(str(path), [])
