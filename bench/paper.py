"""Reproduce the paper's simulation tables with its validation-based hyper-parameter selection.

    python -m bench.paper [--seeds N] [--jobs N] [--quick] [--output docs/paper-results.md]

Cells: selection bias Scenarios 1-3 of the paper's Table "sim2" (Scenario 1: r = 1.5, 1.7, 2.0;
Scenario 2: r = 1.7, n_b = 1 at (κ, n) = (0.90, 500), (0.90, 1000), (0.975, 4000); Scenario 3:
r = 2.0, n_b = 3 at (0.9, 1000), (0.95, 2000), (0.975, 4000)), the classification confidence table
(SAL vs WDRL at radius 1e-2 … 1e1) and anti-causal Scenarios 1 and 2 per environment, each method
beside the paper's numbers as mean ± std over seeds, plus an oracle (ERM on the stable
covariates). Writes the markdown report to ``--output`` and prints it; progress goes to stderr.
The protocol is in :mod:`bench.protocol`. The MLP rows (ERM, IRM and SAL with the same network) are
``python -m bench.paper_mlp``.

The unit of work is one (cell, seed); ``--jobs N`` runs N of them at a time in separate processes
(each with one torch thread), so a 16-core machine runs the full bench in a few minutes. It imports
only ``sal_core``, numpy, torch and the standard library.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from bench.cells import (
    CellSpec,
    ConfidenceCell,
    RegressionCell,
    assemble_confidence,
    assemble_regression,
    confidence_unit,
    generator_items,
    log,
    regression_unit,
    selection_setting,
)
from bench.common import machine_line, now, set_threads
from bench.paper_report import render
from bench.protocol import METHODS, Protocol

DEFAULT_OUTPUT = Path("docs/paper-results.md")

CONFIDENCE_SEEDS = 5
"""Seeds per radius of the confidence table by default. A logistic SAL or WDRL fit takes 5-20 s on
one shared core (the closed-form adversary runs a 60-step bisection every θ-step), so 10 seeds ×
4 radii × 2 methods would add about 10 core-minutes to the run; ``--confidence-seeds 10`` runs them."""

SelectionCell = tuple[int, float, float, int, int]
"""(scenario, r, κ, n, n_b): one column of the paper's selection-bias table."""

SELECTION_CELLS: tuple[SelectionCell, ...] = (
    # Scenario 1: varying r (n = 2000, κ = 0.95, n_b = 1)
    (1, 1.5, 0.95, 2000, 1),
    (1, 1.7, 0.95, 2000, 1),
    (1, 2.0, 0.95, 2000, 1),
    # Scenario 2: varying κ and n (r = 1.7, n_b = 1)
    (2, 1.7, 0.90, 500, 1),
    (2, 1.7, 0.90, 1000, 1),
    (2, 1.7, 0.975, 4000, 1),
    # Scenario 3: varying κ and n (r = 2.0, n_b = 3)
    (3, 2.0, 0.9, 1000, 3),
    (3, 2.0, 0.95, 2000, 3),
    (3, 2.0, 0.975, 4000, 3),
)
ANTI_CAUSAL_SCENARIOS: tuple[int, ...] = (1, 2)


@dataclass(frozen=True)
class PaperConfig:
    seeds: int = 10
    selection_cells: tuple[SelectionCell, ...] = SELECTION_CELLS
    anti_causal_scenarios: tuple[int, ...] = ANTI_CAUSAL_SCENARIOS
    radii: tuple[float, ...] = (1e-2, 1e-1, 1e0, 1e1)
    confidence_seeds: int = CONFIDENCE_SEEDS
    confidence_r: float = 1.7  # the paper does not give r for the confidence table
    n_test_selection: int = 2000
    n_test_anti_causal: int = 1000
    protocol: Protocol = field(default_factory=Protocol)
    methods: tuple[str, ...] = METHODS
    selection_kwargs: Mapping[str, Any] = field(default_factory=dict)  # extra generator arguments (tests)
    anti_causal_kwargs: Mapping[str, Any] = field(default_factory=dict)


def full_config(seeds: int, confidence_seeds: int = CONFIDENCE_SEEDS) -> PaperConfig:
    return PaperConfig(seeds=seeds, confidence_seeds=confidence_seeds)


def quick_config(seeds: int = 2) -> PaperConfig:
    """One column of each selection-bias scenario (the smallest), both anti-causal scenarios, two radii."""
    return PaperConfig(
        seeds=seeds,
        selection_cells=(SELECTION_CELLS[1], SELECTION_CELLS[3], SELECTION_CELLS[6]),
        radii=(1e-1, 1e1),
        confidence_seeds=1,
        n_test_selection=500,
        n_test_anti_causal=300,
    )


@dataclass
class PaperRun:
    config: PaperConfig
    selection: list[RegressionCell]
    confidence: list[ConfidenceCell]
    anti: list[RegressionCell]
    seconds: float
    jobs: int = 1


def selection_label(scenario: int, r: float, kappa: float, n: int) -> str:
    return f"S{scenario}: r = {r:g}" if scenario == 1 else f"S{scenario}: κ = {kappa:g}, n = {n}"


def selection_spec(cell: SelectionCell, n_test: int) -> CellSpec:
    scenario, r, kappa, n, n_b = cell
    return CellSpec(
        family="selection",
        scenario=scenario,
        label=selection_label(scenario, r, kappa, n),
        key=r if scenario == 1 else (kappa, n),
        generator=generator_items(r=r, kappa=kappa, n=n, n_b=n_b, n_test=n_test),
    )


def anti_causal_spec(scenario: int, n_test: int) -> CellSpec:
    return CellSpec(
        family="anti-causal",
        scenario=scenario,
        label=f"anti-causal S{scenario}",
        key=None,
        generator=generator_items(n_test=n_test),
    )


class _Inline:
    """Runs submitted work at once in this process (``--jobs 1``), with the pool's interface."""

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        future: Future[Any] = Future()
        future.set_result(fn(*args))
        return future

    def __enter__(self) -> _Inline:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


def executor(jobs: int) -> ProcessPoolExecutor | _Inline:
    """``jobs`` worker processes at one torch thread each (spawned: no torch state is forked)."""
    if jobs <= 1:
        return _Inline()
    return ProcessPoolExecutor(
        max_workers=jobs,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=set_threads,
        initargs=(1,),
    )


def run(config: PaperConfig, jobs: int = 1) -> PaperRun:
    started = time.perf_counter()
    seeds = list(range(config.seeds))
    specs = [selection_spec(c, config.n_test_selection) for c in config.selection_cells]
    specs += [anti_causal_spec(s, config.n_test_anti_causal) for s in config.anti_causal_scenarios]
    make_clf = partial(
        selection_setting,
        r=config.confidence_r,
        n_test=config.n_test_selection,
        task="classification",
        **config.selection_kwargs,
    )
    regression: dict[str, list[Any]] = {spec.label: [] for spec in specs}
    confidence: dict[float, list[Any]] = {radius: [] for radius in config.radii}
    total = len(specs) * len(seeds) + len(config.radii) * config.confidence_seeds
    with executor(jobs) as pool:
        futures: dict[Future[Any], tuple[str, Any, int]] = {}
        # the slowest units first (logistic fits, then the largest n), so the pool ends together
        for radius in config.radii:
            for seed in range(config.confidence_seeds):
                future = pool.submit(confidence_unit, radius, make_clf, seed, config.protocol)
                futures[future] = ("confidence", radius, seed)
        by_size = sorted(specs, key=lambda s: -int(dict(s.generator).get("n", 2000)))
        for spec in by_size:
            extra = config.selection_kwargs if spec.family == "selection" else config.anti_causal_kwargs
            for seed in seeds:
                future = pool.submit(
                    regression_unit, spec, seed, config.methods, config.protocol, dict(extra)
                )
                futures[future] = ("regression", spec.label, seed)
        for done, future in enumerate(as_completed(futures), start=1):
            kind, key, seed = futures[future]
            unit = future.result()
            (confidence[key] if kind == "confidence" else regression[key]).append(unit)
            name = f"confidence ρ = {key:g}" if kind == "confidence" else key
            log(
                f"  [{done}/{total}] {name}, seed {seed}: {unit.seconds:.0f} s "
                f"({time.perf_counter() - started:.0f} s elapsed)"
            )
    cells = [assemble_regression(spec, config.methods, regression[spec.label]) for spec in specs]
    return PaperRun(
        config,
        selection=[c for c in cells if c.family == "selection"],
        confidence=[assemble_confidence(r, confidence[r]) for r in config.radii],
        anti=[c for c in cells if c.family == "anti-causal"],
        seconds=time.perf_counter() - started,
        jobs=jobs,
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.paper", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=10, help="seeds per regression cell (default 10)")
    parser.add_argument(
        "--confidence-seeds",
        type=int,
        default=CONFIDENCE_SEEDS,
        help=f"seeds per radius (default {CONFIDENCE_SEEDS})",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="2 seeds, one column per scenario, small test sets: a smoke test",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        help=f"(cell, seed) units run at once, one process each (default 1; this machine has {os.cpu_count()} CPUs)",
    )
    parser.add_argument(
        "--threads", type=int, default=1, help="torch/BLAS threads with --jobs 1 (default 1: small problems)"
    )
    parser.add_argument(
        "--output", type=Path, default=DEFAULT_OUTPUT, help=f"report path (default {DEFAULT_OUTPUT})"
    )
    args = parser.parse_args(argv)
    if args.seeds < 1 or args.confidence_seeds < 1:
        parser.error("--seeds and --confidence-seeds must be >= 1")
    if args.jobs < 1:
        parser.error("--jobs must be >= 1")
    set_threads(args.threads)
    command = " ".join(["python -m bench.paper", *(sys.argv[1:] if argv is None else argv)])
    machine = machine_line("cpu")
    config = (
        quick_config(min(args.seeds, 2)) if args.quick else full_config(args.seeds, args.confidence_seeds)
    )
    report = render(run(config, jobs=args.jobs), command=command, date=now(), machine=machine)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(report)
    print(report)


if __name__ == "__main__":
    main()
