"""Cells of the paper's tables, computed seed by seed so that seeds can run in parallel processes.

A regression cell (selection bias, anti-causal) is every method on every seed of one setting,
following :mod:`bench.protocol`; the confidence cell fits SAL and WDRL at a fixed penalty on all
training rows (no selection: the radius is the experiment's variable). The unit of work is one
(cell, seed): :func:`regression_unit` and :func:`confidence_unit` are top-level functions of plain,
picklable arguments, so :mod:`bench.paper` can hand them to a process pool and assemble the cells
with :func:`assemble_regression` and :func:`assemble_confidence`.
"""

from __future__ import annotations

import math
import statistics
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from bench.protocol import (
    ORACLE,
    UNTUNED,
    Fitted,
    Protocol,
    environment_metrics,
    fit_method,
    fit_oracle,
    registered,
)
from sal_core import get_algorithm
from sal_core.data import split_environments
from sal_core.metrics import evaluate, summarize
from sal_core.synthetic import Setting, anti_causal, selection_bias

Family = Literal["selection", "anti-causal"]


@dataclass(frozen=True)
class CellSpec:
    """One regression cell: which generator, with which arguments, and how it is labelled."""

    family: Family
    scenario: int
    label: str
    key: Any  # the column's varied parameter: r (selection Scenario 1), (κ, n) (Scenarios 2-3), None
    generator: tuple[tuple[str, Any], ...]  # keyword arguments of the generator, as sorted items

    def make_setting(self, seed: int) -> Setting:
        kwargs = dict(self.generator)
        if self.family == "selection":
            return selection_bias(seed=seed, **kwargs)
        return anti_causal(scenario=self.scenario, seed=seed, **kwargs)

    def biased(self, setting: Setting) -> list[int]:
        """The covariates whose tie to Y shifts: V_b (the first n_b columns of V) or all of V."""
        if self.family == "selection":
            n_b = int(dict(self.generator).get("n_b", 1))
            return list(range(len(setting.stable), len(setting.stable) + n_b))
        return [i for i in range(len(setting.feature_names)) if i not in setting.stable]


def selection_setting(
    seed: int, *, r: float, n_test: int, task: str = "regression", **kwargs: Any
) -> Setting:
    """The selection-bias setting of one seed (a module-level function: the process pool pickles it)."""
    return selection_bias(r=r, seed=seed, n_test=n_test, task=task, **kwargs)


def generator_items(**kwargs: Any) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted(kwargs.items()))


@dataclass
class SeedResult:
    """One seed of a regression cell: per-environment RMSE and the test summary of every method."""

    seed: int
    rmse: dict[str, dict[str, float]]  # method -> environment -> RMSE
    mean_error: dict[str, float]  # over the test environments
    std_error: dict[str, float]
    params: dict[str, dict[str, Any]]  # the chosen hyper-parameters (grid point, or λ chosen inside the fit)
    sal_w: np.ndarray | None  # (p,) SAL's covariate weights


@dataclass
class RegressionCell:
    label: str
    methods: list[str]  # the registered ones, then the oracle
    seeds: list[SeedResult]
    stable: list[int]
    biased: list[int]  # the covariates whose tie to Y shifts: V_b (selection bias), V (anti-causal)
    feature_names: list[str]
    seconds: float  # fit time summed over seeds (each seed in one single-threaded process)
    key: Any = None  # the setting's varied parameter (r, or (κ, n))
    family: Family = "selection"
    scenario: int = 1

    def summary(self, method: str, stat: str = "mean_error") -> tuple[float, float]:
        """Mean and sample std over seeds of a method's Mean_Error or Std_Error."""
        return mean_std([getattr(s, stat)[method] for s in self.seeds])

    def env_rmse(self, method: str, env: str) -> tuple[float, float]:
        return mean_std([s.rmse[method][env] for s in self.seeds])

    def w_protects_stable(self) -> list[bool]:
        """Per seed: is SAL's w larger on every stable covariate than on every biased one?"""
        return [
            bool(s.sal_w[self.stable].min() > s.sal_w[self.biased].max())
            for s in self.seeds
            if s.sal_w is not None
        ]


@dataclass
class ConfidenceCell:
    """SAL and WDRL at one radius: accuracy, confidence and certified ρ̂ per seed."""

    radius: float
    lambda_: float
    runs: dict[str, list[dict[str, float]]] = field(default_factory=dict)  # method -> per seed
    seconds: float = 0.0

    def summary(self, method: str, key: str) -> tuple[float, float]:
        return mean_std([run[key] for run in self.runs[method]])


def mean_std(values: Sequence[float]) -> tuple[float, float]:
    """Mean and sample standard deviation (ddof = 1; 0 for one value)."""
    vals = [float(v) for v in values]
    return statistics.fmean(vals), statistics.stdev(vals) if len(vals) > 1 else 0.0


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def auto_choice(fitted: Fitted) -> dict[str, Any]:
    """What a method at library defaults chose inside its fit (λ = "auto"), as a short record."""
    selection = fitted.fit.selection
    if selection is None or selection.lambda_ is None:
        return dict(fitted.params)
    relative = selection.lambda_.chosen_candidate.relative
    name = "lambda_ (auto)"
    if relative is None or (isinstance(relative, float) and math.isinf(relative)):
        return {name: "off: ERM"}
    return {name: f"{float(relative):g}·base"}


def regression_seed(
    setting: Setting, seed: int, methods: Sequence[str], protocol: Protocol, *, report_train: bool
) -> SeedResult:
    """Every method (and the oracle) on one seed; RMSE on the test (and, if asked, training) environments."""
    train, valid = split_environments(setting.train, protocol.validation_fraction, seed)
    fits = {m: fit_method(m, train, valid, task="regression", seed=seed, protocol=protocol) for m in methods}
    fits[ORACLE] = fit_oracle(train, valid, setting.stable, task="regression", seed=seed)
    envs = [*setting.train, *setting.test] if report_train else list(setting.test)
    test_names = [e.name for e in setting.test]
    rmse, mean_error, std_error = {}, {}, {}
    for name, fitted in fits.items():
        per_env = environment_metrics(fitted, envs)
        rmse[name] = {env: values["rmse"] for env, values in per_env.items()}
        summary = summarize({env: rmse[name][env] for env in test_names}, "rmse")
        mean_error[name], std_error[name] = summary.mean_error, summary.std_error
    sal = fits.get("sal")
    w = None if sal is None or sal.fit.covariate_weights is None else np.asarray(sal.fit.covariate_weights)
    params = {name: auto_choice(f) if name in UNTUNED else f.params for name, f in fits.items()}
    return SeedResult(seed, rmse, mean_error, std_error, params, w)


@dataclass
class RegressionUnit:
    """What one (cell, seed) returns from its process."""

    result: SeedResult
    stable: list[int]
    biased: list[int]
    feature_names: list[str]
    seconds: float


def regression_unit(
    spec: CellSpec,
    seed: int,
    methods: Sequence[str],
    protocol: Protocol,
    extra: Mapping[str, Any] | None = None,
) -> RegressionUnit:
    """One seed of one regression cell. ``extra`` overrides generator arguments (small sizes in tests)."""
    started = time.perf_counter()
    if extra:
        spec = CellSpec(
            spec.family,
            spec.scenario,
            spec.label,
            spec.key,
            generator_items(**{**dict(spec.generator), **extra}),
        )
    setting = spec.make_setting(seed)
    result = regression_seed(
        setting, seed, registered(methods), protocol, report_train=spec.family == "anti-causal"
    )
    return RegressionUnit(
        result,
        list(setting.stable),
        spec.biased(setting),
        list(setting.feature_names),
        time.perf_counter() - started,
    )


def assemble_regression(
    spec: CellSpec, methods: Sequence[str], units: Sequence[RegressionUnit]
) -> RegressionCell:
    assert units, "a cell needs at least one seed"
    units = sorted(units, key=lambda u: u.result.seed)
    return RegressionCell(
        label=spec.label,
        methods=[*registered(methods), ORACLE],
        seeds=[u.result for u in units],
        stable=units[0].stable,
        biased=units[0].biased,
        feature_names=units[0].feature_names,
        seconds=sum(u.seconds for u in units),
        key=spec.key,
        family=spec.family,
        scenario=spec.scenario,
    )


def radius_to_lambda(radius: float) -> float:
    """Our algorithms are in Lagrangian form: the price λ of transport cost for a ball of radius ρ is 1/ρ."""
    return 1.0 / radius


@dataclass
class ConfidenceUnit:
    seed: int
    runs: dict[str, dict[str, float]]  # method -> accuracy, confidence, ρ̂
    seconds: float


def confidence_unit(
    radius: float,
    make_setting: Callable[[int], Setting],
    seed: int,
    protocol: Protocol,
    methods: Sequence[str] = ("wdrl", "sal"),
) -> ConfidenceUnit:
    """Accuracy and confidence, averaged over the test environments, of each method at λ = 1/ρ."""
    started = time.perf_counter()
    lam = radius_to_lambda(radius)
    setting = make_setting(seed)
    runs = {}
    for name in registered(methods):
        params = {**protocol.fixed.get(name, {}), "lambda_": lam}
        fit = get_algorithm(name)(params, task="classification", seed=seed).fit(setting.train)
        per_env, _ = evaluate(fit.model, setting.test)
        runs[name] = {
            "accuracy": statistics.fmean(v["accuracy"] for v in per_env.values()),
            "confidence": statistics.fmean(v["confidence"] for v in per_env.values()),
            "rho_hat": fit.certificate.rho_hat if fit.certificate is not None else float("nan"),
        }
    return ConfidenceUnit(seed, runs, time.perf_counter() - started)


def assemble_confidence(radius: float, units: Sequence[ConfidenceUnit]) -> ConfidenceCell:
    cell = ConfidenceCell(radius, radius_to_lambda(radius))
    for unit in sorted(units, key=lambda u: u.seed):
        for name, values in unit.runs.items():
            cell.runs.setdefault(name, []).append(values)
    cell.seconds = sum(u.seconds for u in units)
    return cell
