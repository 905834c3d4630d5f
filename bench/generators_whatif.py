"""The paper's generators with one SAL parameter changed: a what-if beside ``bench.real_scoreboard``.

    python -m bench.generators_whatif --jobs 2                                         # defaults
    python -m bench.generators_whatif --jobs 2 --sal-param rounds=200 --sal-param w_lr=0.2

Fits SAL (with the ``--sal-param`` changes, each value read as JSON) and ERM on anti-causal
Scenarios 1 and 2 (dev seeds 100-139), on the nine selection-bias settings of
``bench.selection_rules`` (seeds 0-9) and on its regression settings where nothing shifts (seeds
0-9), and prints what the defaults are judged by there: how many anti-causal seeds end within 10% of
the oracle (least squares on the stable covariates) and their Mean_Error, each selection-bias
setting's Mean_Error over the oracle's, and SAL/ERM where nothing shifts. ``bench.real_scoreboard
run ... --sal-param`` gives the same change on the real tables; a default is judged on both.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from typing import Any

from bench.common import set_threads
from bench.path_robustness import parse_seeds
from bench.real_scoreboard import parse_sal_params
from bench.selection_rules import (
    HOMOGENEOUS,
    SELECTION_BIAS,
    mean_test_error,
    oracle_error,
    synthetic_setting,
)
from sal_core import get_algorithm

Unit = tuple[str, str, int]
"""(kind, setting, seed): kind "anti_causal" (setting "1" or "2"), "selection_bias" or "homogeneous" (no shift)."""
WITHIN_ORACLE = 1.10


def units(anti_causal_seeds: Sequence[int], other_seeds: Sequence[int]) -> list[Unit]:
    out: list[Unit] = [("anti_causal", s, seed) for s in ("1", "2") for seed in anti_causal_seeds]
    out += [("selection_bias", name, seed) for name in SELECTION_BIAS for seed in other_seeds]
    regression = [name for name, spec in HOMOGENEOUS.items() if spec.get("task") != "classification"]
    return out + [("homogeneous", name, seed) for name in regression for seed in other_seeds]


def run_unit(unit: Unit, sal_params: dict[str, Any] | None = None) -> dict[str, Any]:
    """SAL (``sal_params`` changed), ERM and, under a shift, the oracle's test Mean_Error on one unit."""
    kind, name, seed = unit
    set_threads(1)
    s = synthetic_setting(kind, name, seed)
    sal = get_algorithm("sal")(sal_params, seed=seed).fit(s.train)
    erm = get_algorithm("erm")(seed=seed).fit(s.train)
    oracle = None if kind == "homogeneous" else oracle_error(s.train, s.test, s.stable, seed)
    return {"kind": kind, "name": name, "seed": seed, "sal": mean_test_error(sal.model, s.test),
            "erm": mean_test_error(erm.model, s.test), "oracle": oracle}  # fmt: skip


def report(records: Sequence[dict[str, Any]]) -> str:
    lines = [
        "| setting | seeds | SAL | ERM | oracle | what it is judged by |",
        "|---|---:|---:|---:|---:|---|",
    ]
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in records:
        groups.setdefault((r["kind"], r["name"]), []).append(r)
    for (kind, name), rs in groups.items():
        sal, erm = statistics.fmean(r["sal"] for r in rs), statistics.fmean(r["erm"] for r in rs)
        if kind == "homogeneous":
            worst = max(r["sal"] / r["erm"] for r in rs)
            lines.append(
                f"| no shift {name} | {len(rs)} | {sal:.4f} | {erm:.4f} | | worst seed SAL/ERM {worst:.4f} |"
            )
            continue
        oracle = statistics.fmean(r["oracle"] for r in rs)
        if kind == "anti_causal":
            at = sum(r["sal"] <= WITHIN_ORACLE * r["oracle"] for r in rs)
            judged = f"**{at}/{len(rs)}** within 10% of the oracle"
            label = f"anti-causal S{name}"
        else:
            judged = f"**{100 * (sal / oracle - 1):+.2f}%** over the oracle"
            label = f"selection bias {name}"
        lines.append(f"| {label} | {len(rs)} | {sal:.4f} | {erm:.4f} | {oracle:.4f} | {judged} |")
    no_shift = [math.log(r["sal"] / r["erm"]) for r in records if r["kind"] == "homogeneous"]
    if no_shift:
        lines.append(f"\nNo shift: geometric mean SAL/ERM {math.exp(statistics.fmean(no_shift)):.4f}.")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.generators_whatif", description=(__doc__ or "").split("\n\n")[0]
    )
    parser.add_argument("--anti-causal-seeds", default="100-139")
    parser.add_argument("--seeds", default="0-9", help="selection-bias and no-shift seeds")
    parser.add_argument("--sal-param", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", help="also write the records here (JSON lines)")
    args = parser.parse_args(argv)
    params = parse_sal_params(args.sal_param)
    todo = units(parse_seeds(args.anti_causal_seeds), parse_seeds(args.seeds))
    with ProcessPoolExecutor(args.jobs) as pool:
        records = list(pool.map(partial(run_unit, sal_params=params or None), todo, chunksize=4))
    if args.out:
        with open(args.out, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in records)
    print(f"SAL with {params or 'its defaults'}\n")
    print(report(records))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
