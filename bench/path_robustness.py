"""How often SAL at library defaults ends at the oracle, seed by seed (issue 8, item 3).

    python -m bench.path_robustness [--seeds 100-139] [--jobs N] [--scenario 1]

For each seed of anti-causal Scenario ``--scenario``: SAL at defaults and ERM on all training rows,
and the oracle (least squares on the stable covariates S only), each scored by Mean_Error (RMSE
averaged over the seven test environments). Prints every seed, then how many seeds end within 10%
(and 5%) of the oracle, how many are worse than ERM, and the λ each seed chose. Imports only
sal_core, numpy and torch, so it also runs on a machine without the service's packages.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np

from bench.common import machine_line, now, set_threads
from sal_core import Environment, get_algorithm
from sal_core.metrics import evaluate
from sal_core.synthetic import anti_causal


@dataclass(frozen=True)
class SeedOutcome:
    seed: int
    sal: float
    erm: float
    oracle: float
    chosen: str  # the relative λ chosen by lambda_='auto' ("off" = ERM)
    seconds: float


def _mean_error(model: object, envs: Sequence[Environment]) -> float:
    return float(evaluate(model, envs)[1].mean_error)  # type: ignore[arg-type]


def one_seed(seed: int, scenario: int = 1) -> SeedOutcome:
    set_threads(1)
    s = anti_causal(scenario, seed=seed)
    started = time.perf_counter()
    sal = get_algorithm("sal")(seed=seed).fit(s.train)
    seconds = time.perf_counter() - started
    erm = get_algorithm("erm")(seed=seed).fit(s.train)
    cols = s.stable
    oracle = get_algorithm("erm")(seed=seed).fit([Environment(e.name, e.X[:, cols], e.y) for e in s.train])
    test_s = [Environment(e.name, e.X[:, cols], e.y) for e in s.test]
    chosen = (
        sal.selection.lambda_.chosen_candidate.relative if sal.selection and sal.selection.lambda_ else None
    )
    return SeedOutcome(
        seed=seed,
        sal=_mean_error(sal.model, s.test),
        erm=_mean_error(erm.model, s.test),
        oracle=_mean_error(oracle.model, test_s),
        chosen="off" if chosen is None else f"{chosen:g}",
        seconds=seconds,
    )


def report(outcomes: Sequence[SeedOutcome], scenario: int, command: str) -> str:
    sal = np.array([o.sal for o in outcomes])
    erm = np.array([o.erm for o in outcomes])
    oracle = np.array([o.oracle for o in outcomes])
    n = len(outcomes)
    lines = [
        f"# SAL path robustness, anti-causal Scenario {scenario} ({now()})",
        "",
        f"`{command}`; {machine_line('cpu')}",
        "",
        "| seed | SAL | ERM | oracle | SAL / oracle | λ chosen (× base, the noise variance) |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    lines += [
        f"| {o.seed} | {o.sal:.3f} | {o.erm:.3f} | {o.oracle:.3f} | {o.sal / o.oracle:.3f} | {o.chosen} |"
        for o in outcomes
    ]
    picks = ", ".join(f"{k}: {v}" for k, v in sorted(Counter(o.chosen for o in outcomes).items()))
    lines += [
        "",
        f"- within 10% of the oracle: **{int((sal <= 1.10 * oracle).sum())}/{n}**; "
        f"within 5%: {int((sal <= 1.05 * oracle).sum())}/{n}",
        f"- worse than ERM (beyond rounding, 10⁻⁶ relative; where SAL keeps ERM the two differ only by "
        f"rounding): {int((sal > (1 + 1e-6) * erm).sum())}/{n}",
        f"- Mean_Error over seeds: SAL {sal.mean():.3f}, ERM {erm.mean():.3f}, oracle {oracle.mean():.3f}",
        f"- λ chosen: {picks}; SAL fit (with selection) {np.mean([o.seconds for o in outcomes]):.2f} s per seed",
    ]
    return "\n".join(lines)


def parse_seeds(text: str) -> list[int]:
    if "-" in text:
        lo, hi = text.split("-")
        return list(range(int(lo), int(hi) + 1))
    return [int(s) for s in text.split(",")]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.path_robustness", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--seeds", default="100-139", help="a range a-b or a comma list (default 100-139)")
    parser.add_argument("--scenario", type=int, default=1, choices=(1, 2))
    parser.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    args = parser.parse_args(argv)
    seeds = parse_seeds(args.seeds)
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        outcomes = list(pool.map(one_seed, seeds, [args.scenario] * len(seeds)))
    command = "python -m bench.path_robustness " + " ".join(argv if argv is not None else [])
    print(report(outcomes, args.scenario, command.strip()))


if __name__ == "__main__":
    main()
