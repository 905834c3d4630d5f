"""SAL at its defaults against the Wasserstein-DRO peers on PyPI, timed side by side in one run.

    python -m bench.peers [--quick]      # in an environment that has skwdro and dro installed

The peers are not dependencies of the service; install them beside torch 2.13 (CPU) in a separate
environment, with the project on PYTHONPATH (``sal_core`` needs only torch and numpy)::

    python3 -m venv /tmp/peers && /tmp/peers/bin/pip install torch==2.13.0 numpy
    /tmp/peers/bin/pip install -c <(echo torch==2.13.0) skwdro dro
    PYTHONPATH=. /tmp/peers/bin/python -m bench.peers

What is timed, on one thread, wall clock around each fit (median of 3 after a warm-up; one fit where
a fit takes over 2 s):

* ``sal``: ``get_algorithm("sal")().fit(environments)`` at defaults (lambda_="auto": every λ
  candidate and w-path variant on every fold, then the refit);
* ``sal (one λ)``: SAL at the λ its default chose, one w-path (what a user who knows λ pays);
* ``erm``: least squares through the same interface;
* ``skwdro``: ``skwdro.linear_models.LinearRegression(rho=0.1, solver="dedicated")`` (its cvxpy
  solver for the linear Wasserstein problem) on the pooled rows;
* ``dro``: ``dro.linear_model.wasserstein_dro.WassersteinDRO(model_type="ols")`` with ``eps=0.1``
  (cvxpy, CLARABEL) on the pooled rows.

The peers solve a different problem (one isotropic ball, no environments, no learned w, one radius
given rather than chosen), so the ratios say what SAL's defaults cost against the fastest existing
robust linear fit, not which is better. ``dro`` imports torchvision for its neural models; PyPI's
torchvision does not load beside the CPU torch 2.13 build, so a stub module stands in for it (the
linear model never touches it).
"""

from __future__ import annotations

import argparse
import sys
import types
from collections.abc import Callable, Sequence

import numpy as np

from bench.common import machine_line, median_time, now, set_threads
from bench.speed import gaussian_environments
from sal_core import Environment, get_algorithm
from sal_core.synthetic import selection_bias


def _stub_torchvision() -> None:
    if "torchvision" in sys.modules:
        return
    stub = types.ModuleType("torchvision")
    for name in ("models", "transforms", "datasets"):
        part = types.ModuleType(f"torchvision.{name}")
        setattr(stub, name, part)
        sys.modules[f"torchvision.{name}"] = part
    sys.modules["torchvision"] = stub


def _pooled(envs: Sequence[Environment]) -> tuple[np.ndarray, np.ndarray]:
    return np.concatenate([e.X for e in envs]), np.concatenate([e.y for e in envs])


def fitters(envs: list[Environment]) -> dict[str, Callable[[], object]]:
    X, y = _pooled(envs)
    chosen = get_algorithm("sal")().fit(envs).certificate
    lam = chosen.lambda_ if chosen is not None else 1.0
    out: dict[str, Callable[[], object]] = {
        "sal": lambda: get_algorithm("sal")().fit(envs),
        "sal (one λ)": lambda: get_algorithm("sal")({"lambda_": min(lam, 1e6)}).fit(envs),
        "erm": lambda: get_algorithm("erm")().fit(envs),
    }
    try:
        from skwdro.linear_models import LinearRegression

        out["skwdro"] = lambda: LinearRegression(rho=0.1, solver="dedicated").fit(X, y)
    except ImportError as err:
        print(f"skwdro not installed ({err}); skipped", file=sys.stderr)
    try:
        _stub_torchvision()
        from dro.linear_model.wasserstein_dro import WassersteinDRO

        def dro_fit() -> object:
            model = WassersteinDRO(input_dim=X.shape[1], model_type="ols")
            model.update({"eps": 0.1})
            return model.fit(X, y)

        out["dro"] = dro_fit
    except ImportError as err:
        print(f"dro not installed ({err}); skipped", file=sys.stderr)
    return out


def settings(quick: bool) -> list[tuple[str, list[Environment]]]:
    paper = selection_bias(r=1.7, n=2000, seed=0, n_test=2).train
    out = [("paper setting (selection bias, n = 2,000, p = 10)", paper)]
    if not quick:
        out += [
            ("n = 200,000, p = 10 (Gaussian, two environments)", gaussian_environments(200_000, 10)),
            ("n = 2,000, p = 100 (Gaussian, two environments)", gaussian_environments(2_000, 100)),
        ]
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the paper setting only")
    args = parser.parse_args(argv)
    set_threads(1)
    print(
        f"## SAL at defaults vs Wasserstein-DRO peers — `python -m bench.peers{' --quick' if args.quick else ''}`\n"
    )
    print(f"{now()}; {machine_line('cpu')}\n")
    for title, envs in settings(args.quick):
        times = {name: median_time(fn, repeats=3) for name, fn in fitters(envs).items()}
        print(f"### {title}\n\n| fit | seconds | SAL at defaults / this |\n|---|---:|---:|")
        for name, seconds in times.items():
            print(f"| {name} | {seconds:.4f} | {times['sal'] / seconds:.1f}× |")
        peers = [t for n, t in times.items() if n in ("skwdro", "dro")]
        if peers:
            print(
                f"\nFastest peer {min(peers):.4f} s; SAL at defaults is **{min(peers) / times['sal']:.2f}×** its speed.\n"
            )
    print(
        "p = 1,000 at n = 10⁵ is not run: SAL's defaults run 40 w-paths of 400 rounds, each round an "
        "eigendecomposition of a p×p matrix, which at p = 1,000 is hours on one core."
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
