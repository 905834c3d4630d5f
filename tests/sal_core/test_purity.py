"""sal_core stays a pure library: torch, numpy and the standard library only (numba, where it is
installed, compiles the exact w-paths; without it they run on numpy)."""

from __future__ import annotations

import ast
import subprocess
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ALLOWED_THIRD_PARTY = {"torch", "numpy", "sal_core"}
# The optional extras: a module of its own that `import sal_core` never loads (checked below).
OPTIONAL_EXTRAS = {"sal_core/sklearn.py": {"sklearn"}, "sal_core/exact_compiled.py": {"numba"}}


def test_sal_core_imports_only_torch_numpy_and_the_standard_library() -> None:
    offenders = []
    for path in (ROOT / "sal_core").rglob("*.py"):
        allowed = ALLOWED_THIRD_PARTY | OPTIONAL_EXTRAS.get(str(path.relative_to(ROOT)), set())
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                if top not in allowed and top not in sys.stdlib_module_names:
                    offenders.append(f"{path.relative_to(ROOT)}: {name}")
    assert offenders == []


def test_importing_sal_core_loads_no_web_queue_or_database_code() -> None:
    code = (
        "import sys, sal_core, sal_core.metrics, sal_core.synthetic;"
        "bad = {'fastapi', 'celery', 'sqlalchemy', 'app', 'worker', 'pandas', 'sklearn', 'scipy', 'numba'};"
        "print(sorted(bad & {m.split('.')[0] for m in sys.modules}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


# The algorithms sit on top of sal_core's helpers: a helper never imports upward into them. The
# package's front door (__init__) and the scikit-learn adapter use the registry, as a user would.
ABOVE_THE_ALGORITHMS = {"sal_core/__init__.py", "sal_core/sklearn.py"}


def test_no_helper_imports_the_algorithms() -> None:
    offenders = []
    helpers = [p for p in (ROOT / "sal_core").rglob("*.py") if "algorithms" not in p.parts]
    assert any("paths" in p.parts for p in helpers)  # the solver paths are helpers too
    for path in helpers:
        where = str(path.relative_to(ROOT))
        if where in ABOVE_THE_ALGORITHMS:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            module = node.module if isinstance(node, ast.ImportFrom) and node.level == 0 else None
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [module or ""]
            if any(n == "sal_core.algorithms" or n.startswith("sal_core.algorithms.") for n in names):
                offenders.append(f"{where}: {names}")
    assert offenders == []


def test_sal_is_wdrl_with_a_learned_w_step_and_overrides_no_method() -> None:
    """Issue 18: SAL differs from WDRL (w ≡ 1) by its w-step and its declarations, not its fit flow."""
    from sal_core.algorithms.sal import SAL
    from sal_core.algorithms.wdrl import WDRL

    assert issubclass(SAL, WDRL)
    methods = (types.FunctionType, property, classmethod, staticmethod)
    overridden = [n for n, v in vars(SAL).items() if isinstance(v, methods) and hasattr(WDRL, n)]
    assert overridden == []
    assert SAL.w_step_type is not WDRL.w_step_type
