"""The real scoreboard's regression tables cut down to few rows per covariate: SAL at defaults, SAL
with one parameter set back, and ERM, on the same rows.

    python -m bench.small_wide run small.jsonl --jobs 2                  # seeds 200-202, every table
    python -m bench.small_wide run half.jsonl --jobs 2 --cut half --seeds 203,204,205
    python -m bench.small_wide run cls.jsonl --task classification --baseline selection_se=2
    python -m bench.small_wide report small.jsonl

Where so few rows are left that no slopes test can run, SAL's ``lambda_="auto"`` cross-fits on
``folds_untested`` folds (docs/sal.md, "More folds where no slopes test runs"). That rule was found
on the census's tables with no test; the scoreboard's tables all have one at their full size. Here
each training environment of each (table, direction) of :mod:`bench.real_scoreboard` keeps
``min(rows, p + 1)`` of its rows (p its covariates; a draw per seed), so that each environment's own
slopes fit it exactly and no test runs (``--cut half``: about half that, at least 5, so that the
pooled rows are near p), and the test environments stay whole. Tables of fewer than
:data:`MIN_COVARIATES` covariates are left out (a few rows per environment cannot say anything).
Each unit records the test Mean_Error of SAL at defaults (``sal``), of SAL with ``--baseline``
(default ``folds_untested=5``, the rule switched off: ``base``) and of ERM, and whether the slopes
test ran. ``report`` prints, per table-direction, both SALs over ERM (mean over seeds, worst seed),
how many meet the targets (mean ≤ 1.01, no seed above 1.05), and both geometric means.
``--task classification`` cuts the classification tables the same way (a draw whose rows hold one
label is recorded and not fitted; a unit where ERM's test error is 0 has no ratio and is not read).
At p + 1 rows a classification environment's rows mostly separate, and then the likelihood-ratio
test still runs and reads an exact law (statistic 0), so few of those fits land where no test runs:
5 of the first 27 units on 2026-12-08, whose run was stopped there.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import statistics
from collections.abc import Sequence
from typing import Any

import numpy as np

from bench import real_dev as rd
from bench import real_scoreboard as board
from sal_core.data import Environment

SEEDS = (200, 201, 202)
"""Seeds no default was chosen on: the draws of the rows kept, and the fits' seeds."""
MIN_COVARIATES = 8
"""Tables with fewer covariates are left out: p + 1 rows per environment would be too few to fit."""

Unit = tuple[str, bool, int]

BASELINES = {"regression": {"folds_untested": 5}}
"""The baseline by task where ``--baseline`` gives none: the rule for fits where no slopes test
runs, switched off. Classification has no rule of its own there (docs/sal.md, "Tried on 2026-12-07
(eighth session) and dropped"), so its baseline must be given."""


def units(seeds: Sequence[int], task: str = "regression") -> list[Unit]:
    """Every (table, reversed) of the scoreboard of ``task``, on every seed."""
    out: list[Unit] = []
    for names in board.groups().values():
        for name in names:
            data = rd.dataset(name)
            if data.task != task or data.train[0].X.shape[1] < MIN_COVARIATES:
                continue
            directions = (False, True) if rd.reversible(data) else (False,)
            out += [(name, reverse, s) for reverse in directions for s in seeds]
    return out


CUTS = {
    "p+1": lambda p: p + 1,  # each environment's own slopes fit it exactly; the pooled rows E·(p + 1)
    "half": lambda p: max(5, (p + 1) // 2),  # fewer: the pooled rows near p, ERM barely determined
}
"""Rows kept per training environment, by the covariates p (at most the environment's own)."""


def few_rows(envs: Sequence[Environment], seed: int, cut: str = "p+1") -> list[Environment]:
    """Each environment cut to ``min(rows, CUTS[cut](p))`` rows, drawn per seed."""
    rng = np.random.default_rng([seed, 0x5A11])
    out = []
    for env in envs:
        size = min(env.n_rows, CUTS[cut](env.X.shape[1]))
        keep = np.sort(rng.choice(env.n_rows, size=size, replace=False))
        out.append(Environment(env.name, env.X[keep], env.y[keep]))
    return out


def run_unit(unit: Unit, baseline: dict[str, Any], cut: str = "p+1") -> dict[str, Any]:
    from bench.common import set_threads
    from sal_core import get_algorithm

    name, reverse, seed = unit
    set_threads(1)
    data = rd.dataset(name, reverse)
    train = few_rows(data.train, seed, cut)
    head = {"name": name, "reverse": reverse, "seed": seed, "p": int(train[0].X.shape[1]), "cut": cut}
    head |= {"rows": [e.n_rows for e in train]}
    if data.task == "classification" and len(np.unique(np.concatenate([e.y for e in train]))) < 2:
        return head | {"tested": None}  # the rows kept hold one label: nothing to fit
    sal = get_algorithm("sal")(task=data.task, seed=seed).fit(train)
    base = get_algorithm("sal")(baseline, task=data.task, seed=seed).fit(train)
    erm = get_algorithm("erm")(task=data.task, seed=seed).fit(train)
    assert sal.selection is not None and sal.selection.lambda_ is not None
    return head | {
        "tested": sal.selection.lambda_.homogeneity is not None,
        "sal": rd.mean_error(sal.model, data.test),
        "base": rd.mean_error(base.model, data.test),
        "erm": rd.mean_error(erm.model, data.test),
        "scoring": sal.selection.lambda_.scoring,
    }


def run(out: str, todo: Sequence[Unit], jobs: int, baseline: dict[str, Any], cut: str = "p+1") -> None:
    """Append a record per unit of ``todo`` not already in ``out``."""
    board.append_records(out, todo, jobs, functools.partial(run_unit, baseline=baseline, cut=cut))


def report(records: Sequence[dict[str, Any]]) -> str:
    """A row per table-direction whose SALs differ anywhere, then the totals over all of them."""
    by_unit: dict[tuple[str, bool], list[dict[str, Any]]] = {}
    for r in records:
        if r["tested"] is False and r["erm"] > 0:  # the rule's ground: no test ran (a table with
            # repeated rows can have one); where ERM's test error is 0, no ratio can be read
            by_unit.setdefault((r["name"], r["reverse"]), []).append(r)
    lines = ["| table | direction | p | SAL/ERM, defaults | SAL/ERM, baseline |", "|---|---|---:|---:|---:|"]
    met = {"sal": 0, "base": 0}
    logs: dict[str, list[float]] = {"sal": [], "base": []}
    better = worse = 0
    for (name, reverse), rs in sorted(by_unit.items()):
        ratios = {k: [r[k] / r["erm"] for r in rs] for k in ("sal", "base")}
        for k, values in ratios.items():
            met[k] += rd.meets_targets(values)
            logs[k].append(math.log(statistics.fmean(values)))
        for r in rs:
            better += r["sal"] < r["base"] * (1 - 1e-9)
            worse += r["sal"] > r["base"] * (1 + 1e-9)
        if ratios["sal"] != ratios["base"]:
            direction = "reversed" if reverse else "forward"
            lines.append(
                f"| {name} | {direction} | {rs[0]['p']} | {board.ratio_cell(ratios['sal'])} | {board.ratio_cell(ratios['base'])} |"
            )
    n = len(by_unit)
    skipped = len({(r["name"], r["reverse"]) for r in records if r["tested"] is not None}) - n
    return (
        "\n".join(lines)
        + f"\n\nTable-directions with no slopes test: {n} ({skipped} others had one). Meeting the targets "
        f"(mean ≤ 1.01, no seed above 1.05): defaults **{met['sal']} of {n}**, baseline {met['base']} of {n}. "
        f"Geometric mean of SAL/ERM over the table-directions' means: defaults "
        f"{math.exp(statistics.fmean(logs['sal'])) if n else float('nan'):.4f}, baseline "
        f"{math.exp(statistics.fmean(logs['base'])) if n else float('nan'):.4f}. "
        f"Fit by fit, defaults better than the baseline on {better}, worse on {worse}.\n"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.small_wide", description=(__doc__ or "").split("\n\n")[0]
    )
    sub = parser.add_subparsers(dest="command", required=True)
    go = sub.add_parser("run", help="fit and record every unit (appends to OUT, resumes)")
    go.add_argument("out")
    go.add_argument(
        "--seeds", default=",".join(map(str, SEEDS)), help="comma-separated (default 200,201,202)"
    )
    go.add_argument("--only", nargs="+", help="these tables only")
    go.add_argument("--jobs", type=int, default=1)
    go.add_argument("--cut", choices=tuple(CUTS), default="p+1", help="rows kept per training environment")
    go.add_argument("--task", choices=("regression", "classification"), default="regression")
    go.add_argument(
        "--baseline", action="append", default=[], metavar="NAME=VALUE",
        help="the SAL parameters of the baseline (regression: default folds_untested=5; classification: required)",
    )  # fmt: skip
    show = sub.add_parser("report", help="the markdown table of a recorded run")
    show.add_argument("out")
    args = parser.parse_args(argv)
    if args.command == "run":
        seeds = [int(s) for s in args.seeds.split(",")]
        todo = [u for u in units(seeds, args.task) if not args.only or u[0] in args.only]
        baseline = board.parse_sal_params(args.baseline) or dict(BASELINES.get(args.task, {}))
        if not baseline:
            parser.error(f"--task {args.task} needs --baseline NAME=VALUE")
        run(args.out, todo, args.jobs, baseline, args.cut)
        return 0
    with open(args.out) as f:
        print(report([json.loads(line) for line in f if line.strip()]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
