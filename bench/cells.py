"""One cell of a paper table: every method on every seed of one setting.

Regression cells (selection bias, anti-causal) follow :mod:`bench.protocol`; the confidence cell
fits SAL and WDRL at a fixed penalty on all training rows (no selection: the radius is the
experiment's variable).
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bench.protocol import (
    ORACLE,
    Protocol,
    environment_metrics,
    fit_method,
    fit_oracle,
    registered,
)
from sal_core import get_algorithm
from sal_core.data import split_environments
from sal_core.metrics import evaluate, summarize
from sal_core.synthetic import Setting


@dataclass
class SeedResult:
    """One seed of a regression cell: per-environment RMSE and the test summary of every method."""

    seed: int
    rmse: dict[str, dict[str, float]]  # method -> environment -> RMSE
    mean_error: dict[str, float]  # over the test environments
    std_error: dict[str, float]
    params: dict[str, dict[str, Any]]  # the chosen hyper-parameters
    sal_w: np.ndarray | None  # (p,) SAL's covariate weights


@dataclass
class RegressionCell:
    label: str
    methods: list[str]  # the registered ones, then the oracle
    seeds: list[SeedResult]
    stable: list[int]
    biased: list[int]  # the covariates whose tie to Y shifts: V_b (selection bias), V (anti-causal)
    feature_names: list[str]
    seconds: float
    key: float | None = None  # the setting's varied parameter (r for selection bias)

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
    params = {name: fitted.params for name, fitted in fits.items()}
    return SeedResult(seed, rmse, mean_error, std_error, params, w)


def regression_cell(
    label: str,
    make_setting: Callable[[int], Setting],
    seeds: Sequence[int],
    methods: Sequence[str],
    protocol: Protocol,
    *,
    biased: Callable[[Setting], list[int]],
    report_train: bool = False,
    key: float | None = None,
) -> RegressionCell:
    started = time.perf_counter()
    available = registered(methods)
    results, setting = [], None
    for seed in seeds:
        setting = make_setting(seed)
        results.append(regression_seed(setting, seed, available, protocol, report_train=report_train))
        log(f"  {label}: seed {seed} done ({time.perf_counter() - started:.0f} s)")
    assert setting is not None, "a cell needs at least one seed"
    return RegressionCell(
        label=label,
        methods=[*available, ORACLE],
        seeds=results,
        stable=list(setting.stable),
        biased=biased(setting),
        feature_names=list(setting.feature_names),
        seconds=time.perf_counter() - started,
        key=key,
    )


def radius_to_lambda(radius: float) -> float:
    """Our algorithms are in Lagrangian form: the price λ of transport cost for a ball of radius ρ is 1/ρ."""
    return 1.0 / radius


def confidence_cell(
    radius: float,
    make_setting: Callable[[int], Setting],
    seeds: Sequence[int],
    protocol: Protocol,
    methods: Sequence[str] = ("wdrl", "sal"),
) -> ConfidenceCell:
    """Accuracy and confidence, averaged over the test environments, of each method at λ = 1/ρ."""
    started = time.perf_counter()
    lam = radius_to_lambda(radius)
    cell = ConfidenceCell(radius, lam)
    for seed in seeds:
        setting = make_setting(seed)
        for name in registered(methods):
            params = {**protocol.fixed.get(name, {}), "lambda_": lam}
            fit = get_algorithm(name)(params, task="classification", seed=seed).fit(setting.train)
            per_env, _ = evaluate(fit.model, setting.test)
            cell.runs.setdefault(name, []).append(
                {
                    "accuracy": statistics.fmean(v["accuracy"] for v in per_env.values()),
                    "confidence": statistics.fmean(v["confidence"] for v in per_env.values()),
                    "rho_hat": fit.certificate.rho_hat if fit.certificate is not None else float("nan"),
                }
            )
        log(f"  radius {radius:g}: seed {seed} done ({time.perf_counter() - started:.0f} s)")
    cell.seconds = time.perf_counter() - started
    return cell
