"""How much SAL's test error on a real table depends on the arbitrary draw of its cross-fitting folds.

    python -m bench.split_noise OUT.jsonl --tables T1 T2 ... [--repeats 1 3] [--jobs 2]

For each (table, direction) at its first development seed (0 forward, 10 reversed), the same
training rows are fitted by SAL at defaults with ``repeats`` set to each value given, twice: with
the unit's seed and with another (``seed + OTHER``), which draws other folds (the fold hash mixes
the seed) and nothing else on the exact path. One JSON line per unit: each fit's test Mean_Error.
``report`` prints, per ``repeats``, how often and how far the two draws' errors differ: the part of
SAL/ERM that is the split's noise, not the data's (docs/sal.md, "Repeated cross-fitting")."""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from typing import Any

from bench import real_dev as rd

OTHER = 100_003


def run_unit(unit: tuple[str, bool], repeats: Sequence[int]) -> dict[str, Any]:
    from bench.common import set_threads
    from sal_core import get_algorithm

    name, reverse = unit
    seed = 10 if reverse else 0
    set_threads(1)
    data = rd.dataset(name, reverse)
    train = rd.training_rows(data, seed)
    out: dict[str, Any] = {"name": name, "reverse": reverse, "seed": seed, "task": data.task}
    out["erm"] = rd.mean_error(get_algorithm("erm")(task=data.task, seed=seed).fit(train).model, data.test)
    for r in repeats:
        out[str(r)] = [
            rd.mean_error(
                get_algorithm("sal")({"repeats": r}, task=data.task, seed=s).fit(train).model, data.test
            )
            for s in (seed, seed + OTHER)
        ]
    return out


def report(records: Sequence[dict[str, Any]]) -> str:
    keys = sorted({k for r in records for k in r if k.isdigit()}, key=int)
    lines = [
        "| repeats | units | the two draws differ by > 0.1% | by > 1% | by > 5% | mean abs log ratio |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for k in keys:
        gaps = [abs(math.log(r[k][0] / r[k][1])) for r in records]
        lines.append(
            f"| {k} | {len(gaps)} | {sum(g > 0.001 for g in gaps)} | {sum(g > 0.01 for g in gaps)} | "
            f"{sum(g > 0.05 for g in gaps)} | {statistics.fmean(gaps):.4f} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.split_noise")
    parser.add_argument("out")
    parser.add_argument("--tables", nargs="+")
    parser.add_argument("--repeats", nargs="+", type=int, default=[1, 3])
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--report", action="store_true", help="print the table of OUT and stop")
    args = parser.parse_args(argv)
    if not args.report:
        units = [
            (t, rev)
            for t in args.tables
            for rev in (False, True)
            if rev is False or rd.reversible(rd.dataset(t))
        ]
        with ProcessPoolExecutor(args.jobs) as pool, open(args.out, "a") as sink:
            for record in pool.map(partial(run_unit, repeats=args.repeats), units):
                sink.write(json.dumps(record) + "\n")
                sink.flush()
    with open(args.out) as source:
        print(report([json.loads(line) for line in source]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
