"""What not fitting the robust candidates where ERM is kept saves, on every real table-direction.

    python -m bench.kept_speed run OUT.jsonl [--seeds dev|unseen] [--only NAME ...]
    python -m bench.kept_speed report OUT.jsonl

``run`` fits SAL at library defaults and with ``score_all=True`` (every robust candidate fitted and
scored, the work every fit did before 2026-12-04 evening) on each table-direction of
:mod:`bench.real_scoreboard`'s units, on the first seed of each direction, one thread, back to back
in one process (after an untimed fit of each task; which of the two runs first alternates), and
appends one JSON line per unit: both CPU times, whether the slopes test kept ERM, and whether the
two fits predict the test rows identically. ``report`` prints, per task, the times before and after where ERM was kept and elsewhere, the geometric mean of
the per-fit speed-ups, and any unit whose fits differ (there should be none: where ERM is kept the
fit returned is ERM's either way, and elsewhere nothing was skipped). About 15 minutes on one core.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from bench import real_dev as rd
from bench import real_scoreboard as sb

Record = dict[str, Any]


def first_seeds(seeds: str, only: Sequence[str] = ()) -> list[sb.Unit]:
    """Each table-direction once: its first seed in the seed set."""
    seen: set[tuple[str, bool]] = set()
    out = []
    for name, reverse, seed in sb.units(seeds):
        if (name, reverse) in seen or (only and name not in only):
            continue
        seen.add((name, reverse))
        out.append((name, reverse, seed))
    return out


def run_unit(unit: sb.Unit, score_all_first: bool = False, warmed: set[str] | None = None) -> Record:
    """Both fits of one unit, timed. ``warmed``: the tasks this process has fitted once; a task's first
    fit in a process pays for loading (the compiled kernels, torch's first calls), so an untimed fit
    runs first where the unit's task is not in it yet (and is then added)."""
    from bench.common import set_threads
    from sal_core import get_algorithm

    set_threads(1)
    name, reverse, seed = unit
    data = rd.dataset(name, reverse)
    train = rd.training_rows(data, seed)
    if warmed is not None and data.task not in warmed:
        get_algorithm("sal")(task=data.task, seed=seed).fit(train)
        warmed.add(data.task)
    seconds, fits = {}, {}
    order: list[tuple[str, dict[str, Any] | None]] = [("default", None), ("score_all", {"score_all": True})]
    for label, params in reversed(order) if score_all_first else order:
        start = time.process_time()
        fits[label] = get_algorithm("sal")(params, task=data.task, seed=seed).fit(train)
        seconds[label] = time.process_time() - start
    rows = np.concatenate([e.X for e in data.test])
    same = np.array_equal(
        fits["default"].model.decision_function(rows), fits["score_all"].model.decision_function(rows)
    )
    selection = fits["default"].selection
    assert selection is not None and selection.lambda_ is not None
    return {"name": name, "reverse": reverse, "seed": seed, "task": data.task,
            "rows": sum(len(e.y) for e in train), "covariates": int(train[0].X.shape[1]),
            "erm_kept": bool(selection.lambda_.erm_kept), "same": bool(same),
            "default_s": seconds["default"], "score_all_s": seconds["score_all"]}  # fmt: skip


def run(out: str, todo: Sequence[sb.Unit]) -> None:
    warmed: set[str] = set()
    with open(out, "a") as f:
        for i, unit in enumerate(todo):
            # alternating: neither fit always runs first
            record = run_unit(unit, score_all_first=i % 2 == 1, warmed=warmed)
            f.write(json.dumps(record) + "\n")
            f.flush()
            print(
                unit,
                f"{record['score_all_s']:.3f} -> {record['default_s']:.3f} s",
                file=sys.stderr,
                flush=True,
            )


def report(records: Sequence[Record], command: str) -> str:
    lines = [
        f"`{command}`: SAL at defaults against `score_all=True` (every candidate fitted), CPU seconds on one "
        "thread, one seed per table-direction.",
        "",
        "| task | where | units | score_all | default | per-fit speed-up (geometric mean) |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for task in ("regression", "classification"):
        for where, kept in (("ERM kept", True), ("elsewhere", False)):
            rows = [r for r in records if r["task"] == task and r["erm_kept"] == kept]
            if not rows:
                continue
            before, after = sum(r["score_all_s"] for r in rows), sum(r["default_s"] for r in rows)
            speedup = statistics.geometric_mean([r["score_all_s"] / r["default_s"] for r in rows])
            lines.append(f"| {task} | {where} | {len(rows)} | {before:.1f} | {after:.1f} | {speedup:.2f}× |")
    differ = [f"{r['name']} {'reversed' if r['reverse'] else 'forward'}" for r in records if not r["same"]]
    lines += ["", f"Fits that differ: {', '.join(differ) if differ else 'none'} (of {len(records)})."]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    go = sub.add_parser("run")
    go.add_argument("out")
    go.add_argument("--seeds", choices=("dev", "unseen"), default="dev")
    go.add_argument("--only", nargs="*", default=[])
    show = sub.add_parser("report")
    show.add_argument("records")
    args = parser.parse_args(argv)
    if args.command == "run":
        run(args.out, first_seeds(args.seeds, args.only))
        return 0
    with open(args.records) as f:
        records = [json.loads(line) for line in f if line.strip()]
    print(report(records, f"python -m bench.kept_speed report {args.records}"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
