"""SAL at defaults on variants of the paper's generators that the defaults were not chosen on.

    python -m bench.variants [--seeds 300-304] [--only NAME ...] [--jobs N]

The defaults were chosen on anti-causal dev seeds 100-139 at the paper's sizes and on the
selection-bias settings of ``bench.selection_rules``. Here other sizes, strengths, dimensions and
tasks, and the paper's anti-causal sizes themselves, on seeds never used: for each variant and seed, SAL and ERM at library defaults on all
training rows and the oracle (ERM on the stable covariates only), each scored by Mean_Error over
the test environments (RMSE; error rate for classification). Prints per variant the means, SAL/ERM
(mean and worst seed) and how many seeds end within 10% of the oracle. Imports only sal_core,
numpy and torch.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np

from bench.common import machine_line, now, set_threads
from bench.path_robustness import parse_seeds
from sal_core import Environment, get_algorithm
from sal_core.losses import Task
from sal_core.metrics import evaluate
from sal_core.synthetic import Setting, anti_causal, homogeneous, selection_bias

VARIANTS: dict[str, Callable[[int], Setting]] = {
    "selection bias, r = 1.3": lambda seed: selection_bias(r=1.3, seed=seed),
    "selection bias, r = 2.5": lambda seed: selection_bias(r=2.5, seed=seed),
    "selection bias, p = 20": lambda seed: selection_bias(p=20, seed=seed),
    "selection bias, n = 1,500, n_b = 2": lambda seed: selection_bias(n=1500, n_b=2, seed=seed),
    "selection bias, κ = 0.8": lambda seed: selection_bias(kappa=0.8, seed=seed),
    "selection bias, classification": lambda seed: selection_bias(task="classification", seed=seed),
    "anti-causal S1, n = (900, 75, 25)": lambda seed: anti_causal(1, seed=seed, n_train=(900, 75, 25)),
    "anti-causal S1, n = (3600, 300, 100)": lambda seed: anti_causal(1, seed=seed, n_train=(3600, 300, 100)),
    "anti-causal S1, n = (1200, 600, 200)": lambda seed: anti_causal(1, seed=seed, n_train=(1200, 600, 200)),
    "anti-causal S2, n = (900, 75, 25)": lambda seed: anti_causal(2, seed=seed, n_train=(900, 75, 25)),
    "anti-causal S2, n = (1200, 600, 200)": lambda seed: anti_causal(2, seed=seed, n_train=(1200, 600, 200)),
    "no shift, 3 × 40 rows, p = 8": lambda seed: homogeneous(seed=seed, n_envs=3, n=40, p=8),
    "no shift, 6 × 60 rows, p = 12": lambda seed: homogeneous(seed=seed, n_envs=6, n=60, p=12),
    "no shift, 4 × 150 rows, p = 20": lambda seed: homogeneous(seed=seed, n_envs=4, n=150, p=20),
    "no shift, 3 × 200 rows, p = 6, classification": lambda seed: homogeneous(
        seed=seed, n_envs=3, n=200, p=6, task="classification"
    ),
    # added 2026-11-29, first run on seeds 500-505 with the defaults as they were
    "selection bias, p = 40": lambda seed: selection_bias(p=40, seed=seed),
    "selection bias, r = 3": lambda seed: selection_bias(r=3.0, seed=seed),
    "selection bias, n = 10,000": lambda seed: selection_bias(n=10_000, seed=seed),
    "selection bias, p = 20, n_b = 3": lambda seed: selection_bias(p=20, n_b=3, seed=seed),
    "selection bias, κ = 0.99": lambda seed: selection_bias(kappa=0.99, seed=seed),
    "selection bias, β = 0.5": lambda seed: selection_bias(beta=0.5, seed=seed),
    "selection bias, classification, r = 2.5": lambda seed: selection_bias(
        task="classification", r=2.5, seed=seed
    ),
    "selection bias, classification, p = 20": lambda seed: selection_bias(
        task="classification", p=20, seed=seed
    ),
    "anti-causal S1, the paper's sizes": lambda seed: anti_causal(1, seed=seed),
    "anti-causal S2, the paper's sizes": lambda seed: anti_causal(2, seed=seed),
    "no shift, 5 × 500 rows, p = 10": lambda seed: homogeneous(seed=seed, n_envs=5, n=500, p=10),
}


@dataclass(frozen=True)
class Outcome:
    variant: str
    seed: int
    sal: float
    erm: float
    oracle: float


def _mean_error(model: object, envs: Sequence[Environment]) -> float:
    return float(evaluate(model, envs)[1].mean_error)  # type: ignore[arg-type]


def _stable_only(envs: Sequence[Environment], cols: Sequence[int]) -> list[Environment]:
    return [Environment(e.name, e.X[:, list(cols)], e.y) for e in envs]


def one(variant: str, seed: int) -> Outcome:
    set_threads(1)
    s = VARIANTS[variant](seed)
    task: Task = "classification" if s.task == "classification" else "regression"
    sal = get_algorithm("sal")(task=task, seed=seed).fit(s.train)
    erm = get_algorithm("erm")(task=task, seed=seed).fit(s.train)
    oracle = get_algorithm("erm")(task=task, seed=seed).fit(_stable_only(s.train, s.stable))
    return Outcome(
        variant,
        seed,
        sal=_mean_error(sal.model, s.test),
        erm=_mean_error(erm.model, s.test),
        oracle=_mean_error(oracle.model, _stable_only(s.test, s.stable)),
    )


def report(outcomes: Sequence[Outcome], variants: Sequence[str], seeds: Sequence[int], command: str) -> str:
    lines = [
        f"# SAL at defaults on variants never tuned on ({now()})",
        "",
        f"`{command}` — seeds {seeds[0]}-{seeds[-1]}; {machine_line('cpu')}",
        "",
        "| variant | ERM | SAL | oracle | SAL/ERM mean | SAL/ERM worst seed | within 10% of the oracle |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name in variants:
        mine = [o for o in outcomes if o.variant == name]
        sal, erm, oracle = (np.array([getattr(o, k) for o in mine]) for k in ("sal", "erm", "oracle"))
        ratio = sal / erm
        lines.append(
            f"| {name} | {erm.mean():.4f} | {sal.mean():.4f} | {oracle.mean():.4f} | {ratio.mean():.3f} | "
            f"{ratio.max():.3f} | {int((sal <= 1.1 * oracle).sum())}/{len(mine)} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.variants", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="300-304", help="a range a-b or a comma list (default 300-304)")
    parser.add_argument("--only", nargs="+", choices=sorted(VARIANTS), help="these variants only")
    parser.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    args = parser.parse_args(argv)
    seeds = parse_seeds(args.seeds)
    variants = args.only or list(VARIANTS)
    units = [(v, s) for v in variants for s in seeds]
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        outcomes = list(pool.map(one, [v for v, _ in units], [s for _, s in units]))
    command = "python -m bench.variants " + " ".join(argv if argv is not None else [])
    print(report(outcomes, variants, seeds, command.strip()))


if __name__ == "__main__":
    main()
