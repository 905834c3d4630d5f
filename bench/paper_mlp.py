"""The paper bench's MLP rows: ERM, IRM and SAL with the same network, at library defaults.

    python -m bench.paper_mlp [--seeds N] [--jobs N] [--quick] [--output docs/mlp-results.md]

Settings (the paper's generators, n = 2000, p = 10): selection bias Scenario 1 at r = 1.7 (its
non-linear term β·S₁S₂S₃ at the paper's β = 1), anti-causal Scenario 1, a strongly non-linear
variant of selection bias (β = 5), and the classification variant of selection bias (r = 1.7).
Every method runs at its library defaults on ``{"kind": "mlp", "hidden": [64], "activation": "relu"}``;
linear SAL is the reference the MLP must beat where the truth is non-linear. Test error is RMSE
(regression) or the error rate (classification), averaged over the test environments (Mean_Error);
Std_Error is their spread. Besides mean ± std over seeds, the report counts the seeds on which MLP
SAL beats each other method, and on which its w is larger on every stable covariate than on the
biased ones. Each (setting, seed) is one unit of work; ``--jobs N`` runs N at a time in processes
of one torch thread each. It imports only ``sal_core``, numpy, torch and the standard library.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from concurrent.futures import Future, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import machine_line, now, set_threads
from bench.paper import executor
from sal_core import get_algorithm
from sal_core.losses import Task
from sal_core.synthetic import Setting, anti_causal, selection_bias

DEFAULT_OUTPUT = Path("docs/mlp-results.md")
MLP: dict[str, Any] = {"kind": "mlp", "hidden": [64], "activation": "relu"}
LINEAR: dict[str, Any] = {"kind": "linear"}
METHODS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("ERM-MLP", "erm", MLP),
    ("IRM-MLP", "irm", MLP),
    ("SAL-MLP", "sal", MLP),
    ("SAL-linear", "sal", LINEAR),
)
SAL_MLP = "SAL-MLP"


@dataclass(frozen=True)
class MLPSetting:
    label: str
    family: str  # "selection" or "anti-causal"
    kwargs: tuple[tuple[str, Any], ...]

    @property
    def task(self) -> Task:
        return "classification" if dict(self.kwargs).get("task") == "classification" else "regression"

    def make(self, seed: int, n_test: int) -> Setting:
        kwargs = dict(self.kwargs)
        if self.family == "anti-causal":
            return anti_causal(seed=seed, n_test=n_test, **kwargs)
        return selection_bias(seed=seed, n_test=n_test, **kwargs)


SETTINGS: tuple[MLPSetting, ...] = (
    MLPSetting("selection bias S1, r = 1.7", "selection", (("n", 2000), ("p", 10), ("r", 1.7))),
    MLPSetting("anti-causal S1", "anti-causal", (("scenario", 1),)),
    MLPSetting(
        "non-linear selection bias, β = 5", "selection", (("beta", 5.0), ("n", 2000), ("p", 10), ("r", 1.7))
    ),
    MLPSetting(
        "classification selection bias, r = 1.7",
        "selection",
        (("n", 2000), ("p", 10), ("r", 1.7), ("task", "classification")),
    ),
)


@dataclass
class Unit:
    """One (setting, seed): every method's test Mean_Error and Std_Error, SAL-MLP's w, seconds per fit."""

    label: str
    seed: int
    mean_error: dict[str, float]
    std_error: dict[str, float]
    seconds: dict[str, float]
    w_protects_stable: bool | None  # SAL-MLP: every stable covariate's w above every biased one's


def test_errors(fit: Any, setting: Setting) -> list[float]:
    """RMSE (regression) or error rate (classification) per test environment."""
    errors = []
    for env in setting.test:
        pred = np.asarray(fit.predict(env.X), dtype=np.float64)
        if setting.task == "classification":
            errors.append(float(np.mean(pred != env.y)))
        else:
            errors.append(float(np.sqrt(np.mean((pred - env.y) ** 2))))
    return errors


def biased_covariates(spec: MLPSetting, setting: Setting) -> list[int]:
    """V_b (the first biased column after S) under selection bias; every V under the anti-causal shift."""
    if spec.family == "selection":
        return [len(setting.stable)]
    return [i for i in range(len(setting.feature_names)) if i not in setting.stable]


def run_unit(spec: MLPSetting, seed: int, n_test: int) -> Unit:
    setting = spec.make(seed, n_test)
    unit = Unit(spec.label, seed, {}, {}, {}, None)
    for name, algorithm, model in METHODS:
        learner = get_algorithm(algorithm)(task=spec.task, model=model, seed=seed)
        started = time.perf_counter()
        fit = learner.fit(setting.train)
        unit.seconds[name] = time.perf_counter() - started
        errors = test_errors(fit, setting)
        unit.mean_error[name] = statistics.fmean(errors)
        unit.std_error[name] = statistics.pstdev(errors)
        if name == SAL_MLP and fit.covariate_weights is not None:
            w = np.asarray(fit.covariate_weights, dtype=np.float64)
            biased = biased_covariates(spec, setting)
            unit.w_protects_stable = bool(w[setting.stable].min() > w[biased].max())
    return unit


def run(seeds: Sequence[int], settings: Sequence[MLPSetting], n_test: int, jobs: int) -> list[Unit]:
    units: list[Unit] = []
    with executor(jobs) as pool:
        futures: dict[Future[Unit], tuple[str, int]] = {}
        for spec in settings:
            for seed in seeds:
                futures[pool.submit(run_unit, spec, seed, n_test)] = (spec.label, seed)
        for done, future in enumerate(as_completed(futures), start=1):
            unit = future.result()
            units.append(unit)
            print(f"  [{done}/{len(futures)}] {unit.label}, seed {unit.seed}", file=sys.stderr, flush=True)
    return units


def _mean_std(values: Sequence[float]) -> str:
    mean = statistics.fmean(values)
    spread = statistics.stdev(values) if len(values) > 1 else 0.0
    return f"{mean:.3f} ± {spread:.3f}"


def wins(units: Sequence[Unit], other: str) -> int:
    """Seeds on which SAL-MLP's Mean_Error is strictly below ``other``'s."""
    return sum(u.mean_error[SAL_MLP] < u.mean_error[other] for u in units)


def render(units: Sequence[Unit], settings: Sequence[MLPSetting], *, command: str, machine: str) -> str:
    names = [name for name, _, _ in METHODS]
    lines = [
        "# MLP rows: ERM, IRM and SAL with the same network",
        "",
        f"`{command}` — {now()}; {machine}.",
        "",
        "Every method at library defaults on `" + str(MLP).replace("'", '"') + "`; SAL-linear is the "
        "linear model's SAL, for reference. Test Mean_Error (RMSE, or error rate for classification) "
        "and Std_Error over the test environments, mean ± std over seeds.",
        "",
        "| setting | seeds | " + " | ".join(f"{n} Mean_Error" for n in names) + " | SAL-MLP Std_Error |",
        "|---|---:|" + "---:|" * (len(names) + 1),
    ]
    by_label = {spec.label: [u for u in units if u.label == spec.label] for spec in settings}
    for spec in settings:
        group = sorted(by_label[spec.label], key=lambda u: u.seed)
        if not group:
            continue
        cells = [_mean_std([u.mean_error[n] for u in group]) for n in names]
        std = _mean_std([u.std_error[SAL_MLP] for u in group])
        lines.append(f"| {spec.label} | {len(group)} | " + " | ".join(cells) + f" | {std} |")
    lines += [
        "",
        "| setting | SAL-MLP below ERM-MLP | below IRM-MLP | below SAL-linear | worst SAL-MLP / ERM-MLP "
        "(seed) | w: stable above biased | median seconds per fit (ERM / IRM / SAL-MLP / SAL-linear) |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for spec in settings:
        group = by_label[spec.label]
        if not group:
            continue
        n = len(group)
        protected = [u.w_protects_stable for u in group if u.w_protects_stable is not None]
        seconds = " / ".join(f"{statistics.median(u.seconds[m] for u in group):.1f}" for m in names)
        worst = max(group, key=lambda u: u.mean_error[SAL_MLP] / u.mean_error["ERM-MLP"])
        ratio = worst.mean_error[SAL_MLP] / worst.mean_error["ERM-MLP"]
        lines.append(
            f"| {spec.label} | {wins(group, 'ERM-MLP')}/{n} | {wins(group, 'IRM-MLP')}/{n} | "
            f"{wins(group, 'SAL-linear')}/{n} | {ratio:.2f} ({worst.seed}) | {sum(protected)}/{len(protected)} "
            f"| {seconds} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.paper_mlp", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=10, help="seeds per setting (default 10: seeds 0..9)")
    parser.add_argument("--jobs", type=int, default=1, help="(setting, seed) units at once (default 1)")
    parser.add_argument("--quick", action="store_true", help="1 seed, small test sets: a smoke test")
    parser.add_argument(
        "--output", type=Path, default=DEFAULT_OUTPUT, help=f"report (default {DEFAULT_OUTPUT})"
    )
    args = parser.parse_args(argv)
    if args.seeds < 1 or args.jobs < 1:
        parser.error("--seeds and --jobs must be >= 1")
    set_threads(1)
    command = " ".join(["python -m bench.paper_mlp", *(sys.argv[1:] if argv is None else argv)])
    seeds = range(1 if args.quick else args.seeds)
    units = run(list(seeds), SETTINGS, 200 if args.quick else 2000, args.jobs)
    report = render(units, SETTINGS, command=command, machine=machine_line("cpu"))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(report)
    print(report)


if __name__ == "__main__":
    main()
