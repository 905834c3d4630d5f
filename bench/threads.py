"""SAL at its defaults on one thread and on several, timed side by side in one run.

    python -m bench.threads [--threads 2] [--repeats 3] [--p1000]

``lambda_="auto"`` runs 40 independent w-paths (:mod:`sal_core.exact_selection`), and the compiled
kernel splits them over torch's intra-op threads (:func:`sal_core.exact_batch.path_threads`: a
worker's ``SAL_TORCH_THREADS``). This bench fits the same data at defaults on one thread and on
``--threads``, alternating (best of ``--repeats``, wall-clock seconds: the point is how long a user
waits), prints the ratio and how far apart the two fits' w and θ are. The kernel's split is exact
(each path's arithmetic is its own); torch's own reductions on several threads (the moments, ERM)
sum in another order, which moves the last bits.

Settings: the paper's (selection bias, n = 2,000, p = 10), and two Gaussian environments with a
spurious half (:func:`bench.speed.gaussian_environments`) at n = 2,000, p = 100 and n = 4,000,
p = 300; ``--p1000`` adds n = 10⁵, p = 1,000, once each way (about 3.5 min on one thread of a 2-core
host). numpy's BLAS is held to one thread throughout (threadpoolctl), so only the setting under test
changes.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from bench.common import machine_line, now, set_threads
from bench.speed import gaussian_environments
from sal_core import Environment, exact_compiled, get_algorithm
from sal_core.algorithms.base import FitResult
from sal_core.synthetic import selection_bias


@dataclass(frozen=True)
class Timed:
    """Best wall-clock seconds on one thread and on several, and how far apart the fits were."""

    title: str
    one: float
    many: float
    apart: float  # the largest relative difference in w or θ between any fit and the first

    @property
    def speedup(self) -> float:
        return self.one / self.many


def settings(p1000: bool) -> list[tuple[str, list[Environment], bool]]:
    """(title, training environments, whether one fit each way is all it gets) per setting."""
    out = [
        ("paper setting (selection bias, n = 2,000, p = 10)", selection_bias(r=1.7, n=2000, seed=0, n_test=2).train, False),
        ("n = 2,000, p = 100 (Gaussian, two environments)", gaussian_environments(2_000, 100), False),
        ("n = 4,000, p = 300", gaussian_environments(4_000, 300), False),
    ]  # fmt: skip
    if p1000:
        out.append(("n = 100,000, p = 1,000", gaussian_environments(100_000, 1_000), True))
    return out


def fit_at(envs: Sequence[Environment], threads: int) -> tuple[float, FitResult]:
    """Wall-clock seconds of one default SAL fit with torch (and so the w-paths) on ``threads``."""
    torch.set_num_threads(threads)
    started = time.perf_counter()
    result = get_algorithm("sal")().fit(list(envs))
    return time.perf_counter() - started, result


def apart(a: FitResult, b: FitResult) -> float:
    """max over covariates of |Δw|/w and of |Δθ| / max|θ| (w, θ on standardised covariates)."""
    wa, wb = np.asarray(a.covariate_weights), np.asarray(b.covariate_weights)
    ta, tb = np.asarray(a.coefficients), np.asarray(b.coefficients)
    return float(max(np.max(np.abs(wa - wb) / wa), np.max(np.abs(ta - tb)) / max(np.max(np.abs(ta)), 1e-300)))


def compare(title: str, envs: Sequence[Environment], threads: int, repeats: int) -> Timed:
    """Alternate one thread and ``threads``, ``repeats`` times each; best of each."""
    one: list[float] = []
    many: list[float] = []
    reference: FitResult | None = None
    furthest = 0.0
    for _ in range(repeats):
        for count, into in ((1, one), (threads, many)):
            seconds, result = fit_at(envs, count)
            into.append(seconds)
            reference = reference or result
            furthest = max(furthest, apart(reference, result))
    return Timed(title, min(one), min(many), furthest)


def report(rows: Sequence[Timed], threads: int) -> str:
    lines = [
        f"| setting | 1 thread (s) | {threads} threads (s) | speed-up | w, θ apart (relative) |",
        "|---|---:|---:|---:|---|",
    ]
    lines += [f"| {r.title} | {r.one:.3f} | {r.many:.3f} | {r.speedup:.2f}× | {r.apart:.1e} |" for r in rows]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--threads", type=int, default=os.cpu_count() or 1, help="threads to compare with one"
    )
    parser.add_argument("--repeats", type=int, default=3, help="fits each way per setting (best taken)")
    parser.add_argument("--p1000", action="store_true", help="add n = 10⁵, p = 1,000 (one fit each way)")
    args = parser.parse_args(argv)
    set_threads(1)  # numpy's BLAS on one thread; torch's is what each fit sets
    exact_compiled.warm_up()
    print(f"# SAL at defaults, 1 thread against {args.threads} ({now()})\n\n{machine_line('cpu')}\n")
    rows = []
    for title, envs, once in settings(args.p1000):
        rows.append(compare(title, envs, args.threads, 1 if once else args.repeats))
        print(report(rows[-1:], args.threads).splitlines()[-1], flush=True)
    print("\n" + report(rows, args.threads))


if __name__ == "__main__":
    main()
