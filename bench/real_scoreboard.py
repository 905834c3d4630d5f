"""Every real table of every batch, both ways, SAL at its defaults against ERM: one line each.

    python -m bench.real_scoreboard run dev.jsonl --seeds dev --jobs 2        # 0-4 forward, 10-14 reversed
    python -m bench.real_scoreboard run unseen.jsonl --seeds unseen --jobs 2  # the seeds no default was chosen on
    python -m bench.real_scoreboard report dev.jsonl unseen.jsonl             # the markdown table

``run`` fits ERM and SAL at library defaults on each (table, direction, seed) of
:mod:`bench.real_dev`'s development set and of every held-out batch (``real_dev._late_groups``), the
way ``bench.real_dev --methods erm sal`` does, and appends one JSON line per unit: both test
Mean_Errors and what SAL's ``lambda_="auto"`` chose (every candidate's out-of-fold score, its paired
standard error and its score per training environment, the slopes test's p, the rule's reason) and
SAL's w with its range over the fold fits, so that other selection rules can be replayed on the
record (``bench.departure_evidence`` reads them). ``--sal-param folds=3`` records SAL with a parameter
changed instead, a what-if run. A table runs reversed (trained on its test
environments) where it has more than one test environment. A file already holding some units is
resumed. ``--seeds dev`` is the seeds the defaults were chosen on (0-4 forward, 10-14 reversed);
``--seeds unseen`` gives each group the seeds it was first checked on and no default was chosen on
(:data:`UNSEEN`). About 14 minutes per seed set on two processes of a 2-core host.

``report`` prints, per batch and table-direction, SAL/ERM (mean over seeds, worst seed) on each
seed set and whether it meets the defaults' targets (mean ≤ 1.01, no seed above 1.05), then the
totals: how many meet the targets, how many are more than 1% below and above ERM on average, and
the geometric mean of SAL/ERM over the table-directions' means.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import statistics
import sys
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from bench import real_dev as rd

Record = dict[str, Any]
Unit = tuple[str, bool, int]

DEV_FORWARD = (0, 1, 2, 3, 4)
DEV_REVERSED = (10, 11, 12, 13, 14)
UNSEEN: dict[str, tuple[int, ...]] = {
    "dev": (30, 31, 32, 33, 34),
    "fresh": (30, 31, 32, 33, 34),
    "blind": (30, 31, 32, 33, 34),
    "third": (40, 41, 42, 43, 44),
    "fourth": (50, 51, 52, 53, 54),
    "fifth": (70, 71, 72, 73, 74),
    "sixth": (75, 76, 77, 78, 79),
    "seventh": (80, 81, 82, 83, 84),
    "eighth": (85, 86, 87, 88, 89),
    "ninth": (90, 91, 92, 93, 94),
    "tenth": (95, 96, 97, 98, 99),
    "eleventh": (100, 101, 102, 103, 104),
    "twelfth": (105, 106, 107, 108, 109),
    "thirteenth": (110, 111, 112, 113, 114),
    "fourteenth": (115, 116, 117, 118, 119),
    "fifteenth": (120, 121, 122, 123, 124),
    "sixteenth": (125, 126, 127, 128, 129),
    "seventeenth": (130, 131, 132, 133, 134),
    "eighteenth": (135, 136, 137, 138, 139),
    "nineteenth": (140, 141, 142, 143, 144),
    "twentieth": (145, 146, 147, 148, 149),
    "twenty_first": (150, 151, 152, 153, 154),
    "twenty_second": (155, 156, 157, 158, 159),
    "twenty_third": (160, 161, 162, 163, 164),
    "twenty_fourth": (165, 166, 167, 168, 169),
    "twenty_fifth": (170, 171, 172, 173, 174),
    "twenty_sixth": (175, 176, 177, 178, 179),
    "twenty_seventh": (180, 181, 182, 183, 184),
    "twenty_eighth": (185, 186, 187, 188, 189),
    "twenty_ninth": (190, 191, 192, 193, 194),
    "thirtieth": (195, 196, 197, 198, 199),
}
"""Per group, the seeds it was first checked on and no default was chosen on (both directions)."""
BELOW = 0.99
"""SAL/ERM on average below this: a table-direction where SAL is more than 1% below ERM."""
ABOVE = 1.01
"""SAL/ERM on average above this: more than 1% above ERM (the defaults' target on the mean)."""


def groups() -> dict[str, list[str]]:
    """The development set, then every held-out batch, each as its tables' names."""
    return {"dev": list(rd.DATASETS), **{g: list(tables) for g, tables in rd._late_groups().items()}}


def units(seeds: str) -> list[Unit]:
    """Every (table, reversed, seed) of a seed set: ``"dev"`` or ``"unseen"``."""
    out: list[Unit] = []
    for group, names in groups().items():
        forward = DEV_FORWARD if seeds == "dev" else UNSEEN[group]
        reverse = DEV_REVERSED if seeds == "dev" else UNSEEN[group]
        for name in names:
            out += [(name, False, s) for s in forward]
            if rd.reversible(rd.dataset(name)):
                out += [(name, True, s) for s in reverse]
    return out


def run_unit(unit: Unit, sal_params: dict[str, Any] | None = None) -> Record:
    """ERM and SAL at defaults (or with ``sal_params`` changed) on one (table, direction, seed); both
    test errors, SAL's selection and its w with the fold fits' range (``w_evidence``)."""
    from bench.common import set_threads
    from sal_core import get_algorithm

    name, reverse, seed = unit
    set_threads(1)
    data = rd.dataset(name, reverse)
    train = rd.training_rows(data, seed)
    # score_all: the record holds every candidate also where ERM is kept outright (the same fit)
    sal = get_algorithm("sal")({"score_all": True, **(sal_params or {})}, task=data.task, seed=seed).fit(
        train
    )
    erm = get_algorithm("erm")(task=data.task, seed=seed).fit(train)
    assert sal.selection is not None and sal.selection.lambda_ is not None
    selection = sal.selection.lambda_
    return {
        "name": name,
        "reverse": reverse,
        "seed": seed,
        "task": data.task,
        "sal": rd.mean_error(sal.model, data.test),
        "erm": rd.mean_error(erm.model, data.test),
        "chosen": selection.chosen,
        "best": selection.best,
        "erm_first": selection.erm_first,
        "slopes_p": None if selection.homogeneity is None else selection.homogeneity.p_value,
        "slopes_excess": None if selection.homogeneity is None else selection.homogeneity.excess,
        "reason": selection.reason,
        "candidates": [
            {"relative": c.relative, "score": c.score, "se": c.se, "env_scores": c.env_scores}
            for c in selection.candidates
        ],
        "w": None if sal.covariate_weights is None else [float(v) for v in sal.covariate_weights],
        "w_evidence": sal.selection.to_dict().get("covariate_weights"),
    }


def run(out: str, todo: Sequence[Unit], jobs: int, sal_params: dict[str, Any] | None = None) -> None:
    """Append a record per unit of ``todo`` not already in ``out``."""
    append_records(out, todo, jobs, functools.partial(run_unit, sal_params=sal_params))


def append_records(out: str, todo: Sequence[Unit], jobs: int, fit: Callable[[Unit], Record]) -> None:
    """``fit`` on each (table, reversed, seed) of ``todo`` with no record in ``out`` yet, on ``jobs``
    processes, each record appended to ``out`` as a JSON line as it comes (a rerun resumes)."""
    done: set[Unit] = set()
    if os.path.exists(out):
        with open(out) as f:
            done = {(r["name"], r["reverse"], r["seed"]) for r in map(json.loads, filter(str.strip, f))}
    left = [u for u in todo if u not in done]
    print(f"{len(left)} of {len(todo)} units to run", file=sys.stderr, flush=True)
    with ProcessPoolExecutor(jobs) as pool, open(out, "a") as f:
        for record in pool.map(fit, left, chunksize=1):
            f.write(json.dumps(record, default=float) + "\n")
            f.flush()


def ratios(records: Iterable[Record]) -> dict[tuple[str, bool], list[float]]:
    """SAL/ERM per seed, by (table, reversed), in seed order."""
    out: dict[tuple[str, bool], list[tuple[int, float]]] = {}
    for r in records:
        out.setdefault((r["name"], r["reverse"]), []).append((r["seed"], r["sal"] / r["erm"]))
    return {k: [v for _, v in sorted(pairs)] for k, pairs in out.items()}


def ratio_cell(values: Sequence[float] | None) -> str:
    """SAL/ERM over seeds as the reports print it: mean (worst seed), bold where the targets are missed."""
    if not values:
        return "—"
    text = f"{statistics.fmean(values):.4f} ({max(values):.4f})"
    return text if rd.meets_targets(values) else f"**{text}**"


def report(seed_sets: dict[str, list[Record]]) -> str:
    """The scoreboard: a row per table-direction, a column per seed set, the totals below."""
    by_set = {label: ratios(records) for label, records in seed_sets.items()}
    tasks = {r["name"]: r["task"] for records in seed_sets.values() for r in records}
    lines = [
        "| batch | table | task | direction | " + " | ".join(f"SAL/ERM, {label}" for label in by_set) + " |",
        "|---|---|---|---|" + "---:|" * len(by_set),
    ]
    met = dict.fromkeys(by_set, 0)
    cells = dict.fromkeys(by_set, 0)
    below = dict.fromkeys(by_set, 0)
    above = dict.fromkeys(by_set, 0)
    log_means: dict[str, list[float]] = {label: [] for label in by_set}
    for group, names in groups().items():
        for name in names:
            for reverse in (False, True):
                row = [by_set[label].get((name, reverse)) for label in by_set]
                if not any(row):
                    continue
                for label, values in zip(by_set, row, strict=True):
                    if values:
                        cells[label] += 1
                        met[label] += rd.meets_targets(values)
                        mean = statistics.fmean(values)
                        below[label] += mean < BELOW
                        above[label] += mean > ABOVE
                        log_means[label].append(math.log(mean))
                direction = "reversed" if reverse else "forward"
                lines.append(
                    f"| {group} | {name} | {tasks.get(name, '')} | {direction} | "
                    + " | ".join(ratio_cell(v) for v in row)
                    + " |"
                )
    totals = "; ".join(f"{label}: **{met[label]} of {cells[label]}**" for label in by_set)
    wins = "; ".join(f"{label}: {below[label]} of {cells[label]}" for label in by_set)
    losses = "; ".join(f"{label}: {above[label]} of {cells[label]}" for label in by_set)
    geometric = "; ".join(
        f"{label}: {math.exp(statistics.fmean(log_means[label])):.4f}" for label in by_set if log_means[label]
    )
    return (
        "\n".join(lines)
        + f"\n\nTable-directions meeting the targets (mean ≤ 1.01, no seed above 1.05): {totals}. "
        + f"SAL more than 1% below ERM on average: {wins}. "
        + f"More than 1% above: {losses}. "
        + f"Geometric mean of SAL/ERM over the table-directions' means: {geometric}.\n"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.real_scoreboard", description=(__doc__ or "").split("\n\n")[0]
    )
    sub = parser.add_subparsers(dest="command", required=True)
    go = sub.add_parser("run", help="fit and record every unit of a seed set (appends to OUT)")
    go.add_argument("out")
    go.add_argument("--seeds", choices=("dev", "unseen"), default="dev")
    go.add_argument("--only", nargs="+", help="these tables only")
    go.add_argument("--jobs", type=int, default=1)
    go.add_argument(
        "--sal-param", action="append", default=[], metavar="NAME=VALUE",
        help="fit SAL with this parameter changed (a what-if run, e.g. folds=3; the value is read as JSON)",
    )  # fmt: skip
    show = sub.add_parser("report", help="the markdown scoreboard of one or two recorded seed sets")
    show.add_argument("dev")
    show.add_argument("unseen", nargs="?")
    args = parser.parse_args(argv)
    if args.command == "run":
        todo = [u for u in units(args.seeds) if not args.only or u[0] in args.only]
        run(args.out, todo, args.jobs, parse_sal_params(args.sal_param) or None)
        return 0
    seed_sets = {"development seeds": _read(args.dev)}
    if args.unseen:
        seed_sets["unseen seeds"] = _read(args.unseen)
    print(report(seed_sets))
    return 0


def parse_sal_params(pairs: Sequence[str]) -> dict[str, Any]:
    """``["folds=3"]`` -> ``{"folds": 3}``: each value read as JSON, else kept as a string."""
    out: dict[str, Any] = {}
    for pair in pairs:
        name, _, value = pair.partition("=")
        try:
            out[name] = json.loads(value)
        except json.JSONDecodeError:
            out[name] = value
    return out


def _read(path: str) -> list[Record]:
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


if __name__ == "__main__":
    raise SystemExit(main())
