"""How fast linear classification fits at defaults, and what laying Z out column by column buys.

    python -m bench.classification_speed [--n 15000] [--p 100] [--repeats 2]

Linear classification runs on the gradient path: ERM is 2,000 full-batch Adam steps, SAL at defaults
two candidate fits of 40 rounds × 50 Adam steps against the closed-form adversary and a refit, each
step two matrix-vector products with the n×p standardised covariates (Zθ, then Zᵀv). The gradient
loops copy Z once into column-major order (:func:`sal_core.optim.column_major`); this bench times
ERM and SAL at library defaults with that layout (as shipped) and with the rows contiguous (the
layout before, by switching the copy off) and with ``torch.optim.Adam`` (the optimiser before
2026-12-04 evening) in place of :class:`sal_core.optim.FlatAdam` (the same arithmetic), in one run,
on one thread, and prints the ratios, with scikit-learn's unpenalised ``LogisticRegression`` (lbfgs) as an outside reference for ERM. CPU
seconds, the smallest of ``--repeats`` fits in this process (after one warm-up fit that pays
torch's first-use imports).

The table: two environments of n rows each with p Gaussian covariates, the first three shifted by
half a standard deviation in the second environment, and a logit whose last covariate's slope
differs between them (:func:`environments`).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Callable, Iterator, Sequence

import numpy as np
import torch

from bench.common import machine_line, now, set_threads
from sal_core import Environment, get_algorithm, optim
from sal_core.algorithms import irm
from sal_core.paths import gradient


def environments(n: int, p: int, *, seed: int = 0) -> list[Environment]:
    """Two environments of ``n`` rows: Gaussian covariates (the first three shifted by 0.5 in the
    second), y ~ Bernoulli(σ(βᵀx + 0.3·e·x_p)) with β ~ N(0, 1/p)."""
    rng = np.random.default_rng(seed)
    beta = rng.normal(size=p) / np.sqrt(p)
    out = []
    for e in range(2):
        X = rng.normal(size=(n, p))
        X[:, :3] += 0.5 * e
        logit = X @ beta + 0.3 * e * X[:, -1]
        y = (rng.random(n) < 1.0 / (1.0 + np.exp(-logit))).astype(np.float64)
        out.append(Environment(f"e{e}", X, y))
    return out


@contextlib.contextmanager
def rows_contiguous() -> Iterator[None]:
    """The gradient loops on Z as it comes (rows contiguous): the layout before column_major."""
    saved = optim.column_major
    optim.column_major = gradient.column_major = lambda Z: Z  # type: ignore[assignment]
    try:
        yield
    finally:
        optim.column_major = gradient.column_major = saved  # type: ignore[assignment]


class TorchAdam:
    """``torch.optim.Adam`` behind :class:`sal_core.optim.FlatAdam`'s interface: the optimiser the
    gradient loops used before FlatAdam (the same arithmetic, with torch's per-step overhead)."""

    def __init__(self, params: Sequence[torch.Tensor], lr: float) -> None:
        self.params = list(params)
        self.optimizer = torch.optim.Adam(self.params, lr=lr)

    def step(self, grads: list[torch.Tensor], divisor: float | None = None) -> None:
        for p, g in zip(self.params, grads, strict=True):
            p.grad = (g if divisor is None else g / divisor).reshape(p.shape)
        self.optimizer.step()

    def zero_grad(self) -> None:
        self.optimizer.zero_grad(set_to_none=True)

    def step_from_grads(self) -> None:
        self.optimizer.step()


@contextlib.contextmanager
def torch_adam() -> Iterator[None]:
    """The gradient loops on ``torch.optim.Adam``: the optimiser before 2026-12-04 evening."""
    saved = optim.FlatAdam
    optim.FlatAdam = gradient.FlatAdam = irm.FlatAdam = TorchAdam  # type: ignore[assignment, misc]
    try:
        yield
    finally:
        optim.FlatAdam = gradient.FlatAdam = irm.FlatAdam = saved  # type: ignore[misc]


def cpu_best(fit: Callable[[], object], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        fit()
        best = min(best, time.process_time() - start)
    return best


def report(n: int, p: int, repeats: int, command: str) -> str:
    envs = environments(n, p)
    get_algorithm("erm")(task="classification").fit(environments(200, 5))  # first-use imports
    times: dict[str, dict[str, float]] = {}
    for method in ("erm", "irm", "sal"):

        def fit(method: str = method) -> object:
            return get_algorithm(method)(task="classification").fit(envs)

        with rows_contiguous():
            rows = cpu_best(fit, repeats)
        with torch_adam():
            adam = cpu_best(fit, repeats)
        times[method] = {"columns": cpu_best(fit, repeats), "rows": rows, "adam": adam}
    lines = [
        f"# Linear classification at defaults: as shipped, with Z by rows, with torch.optim.Adam ({now()})",
        "",
        f"`{command}`; {machine_line('cpu')}",
        "",
        f"Two environments of {n:,} rows, p = {p}; CPU seconds, best of {repeats}, one thread.",
        "",
        "| fit | as shipped (Z by columns, FlatAdam) | Z by rows | rows / shipped | torch.optim.Adam | "
        "torch.optim.Adam / shipped |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for method, t in times.items():
        shipped = t["columns"]
        lines.append(
            f"| {method.upper()} | {shipped:.2f} | {t['rows']:.2f} | {t['rows'] / shipped:.2f}× | "
            f"{t['adam']:.2f} | {t['adam'] / shipped:.2f}× |"
        )
    reference = _sklearn_seconds(envs, repeats)
    if reference is not None:
        lines += [
            "",
            f"scikit-learn `LogisticRegression(C=np.inf)` (unpenalised, lbfgs) on the pooled rows: {reference:.2f} s; "
            f"ERM here takes {times['erm']['columns'] / reference:.1f}× that (2,000 Adam steps, the path "
            "SAL's candidates share, rather than a quasi-Newton solve).",
        ]
    return "\n".join(lines) + "\n"


def _sklearn_seconds(envs: Sequence[Environment], repeats: int) -> float | None:
    try:
        from sklearn.linear_model import LogisticRegression
    except ImportError:  # pragma: no cover - scikit-learn ships with the interop extra
        return None
    X = np.vstack([e.X for e in envs])
    y = np.concatenate([e.y for e in envs])
    X = (X - X.mean(0)) / X.std(0)
    return cpu_best(lambda: LogisticRegression(C=np.inf, max_iter=1000).fit(X, y), repeats)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.classification_speed", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--n", type=int, default=15_000, help="rows per environment (default 15,000)")
    parser.add_argument("--p", type=int, default=100, help="covariates (default 100)")
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args(argv)
    set_threads(1)
    command = "python -m bench.classification_speed " + " ".join(sys.argv[1:] if argv is None else argv)
    print(report(args.n, args.p, args.repeats, command.strip()))


if __name__ == "__main__":
    main()
