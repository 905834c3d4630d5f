"""The paper's evaluation protocol: hyper-parameters chosen on a validation split of the training data.

Every training environment is split at random into a training part (80% of its rows) and a
validation part (20%), so the validation set is drawn i.i.d. from the training environments, as the
paper says. Each baseline is fitted on the training parts once per point of its declared grid
(``params_type.search_space()``) and the point with the lowest pooled validation error is kept: the
model reported is the one trained on the training parts (DomainBed's "training-domain validation";
no refit). Every method, SAL and the oracle included, trains on the same training parts, so all see
the same rows. SAL and WDRL use their library defaults and are never tuned here: both default to
``lambda_="auto"``, which chooses λ inside the fit from the training environments alone (the worst
training environment's held-out error; see :mod:`sal_core.lambda_selection`), so a grid search on top
would second-guess the method's own selection. The other baselines search their grids.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sal_core import ALGORITHMS, Environment, FitResult, SalError, get_algorithm
from sal_core.losses import Task
from sal_core.metrics import classification_metrics, evaluate, regression_metrics

METHODS: tuple[str, ...] = ("erm", "lasso", "ridge", "wdrl", "irm", "sal")
"""The paper's six methods, in the order of its tables."""

ORACLE = "oracle"
UNTUNED = frozenset({"sal", "wdrl"})  # methods run at library defaults; every other one searches its grid


@dataclass(frozen=True)
class Protocol:
    """How methods are fitted. ``fixed`` pins parameters outside the search (e.g. IRM's steps)."""

    validation_fraction: float = 0.2
    fixed: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def candidates(self, name: str) -> list[dict[str, Any]]:
        """Every point of the method's declared grid, merged with its fixed parameters."""
        fixed = dict(self.fixed.get(name, {}))
        space = {} if name in UNTUNED else get_algorithm(name).params_type.search_space()
        space = {k: v for k, v in space.items() if k not in fixed}
        keys = sorted(space)
        return [
            {**fixed, **dict(zip(keys, values, strict=True))}
            for values in itertools.product(*(space[k] for k in keys))
        ]


@dataclass(frozen=True)
class Fitted:
    """A method's model chosen by the protocol, with what it was chosen from."""

    fit: FitResult
    params: dict[str, Any]
    validation_error: float
    columns: tuple[int, ...] | None = None  # covariates the model sees (the oracle's subset); None = all


def registered(methods: Sequence[str]) -> list[str]:
    """The methods that ``sal_core.ALGORITHMS`` provides, in order."""
    return [m for m in methods if m in ALGORITHMS]


def select_columns(envs: Sequence[Environment], columns: Sequence[int]) -> list[Environment]:
    return [Environment(e.name, e.X[:, list(columns)], e.y) for e in envs]


def pooled_error(fit: FitResult, envs: Sequence[Environment], task: Task) -> float:
    """Validation error on the pooled rows: MSE (regression) or log-loss (classification)."""
    X = np.concatenate([e.X for e in envs])
    y = np.concatenate([e.y for e in envs])
    if task == "classification":
        return classification_metrics(y, fit.model.predict_proba(X))["log_loss"]
    return regression_metrics(y, fit.predict(X))["mse"]


def fit_method(
    name: str,
    train: Sequence[Environment],
    valid: Sequence[Environment],
    *,
    task: Task,
    seed: int,
    protocol: Protocol,
) -> Fitted:
    """Fit every candidate on ``train`` and keep the one with the lowest error on ``valid``."""
    best: Fitted | None = None
    for params in protocol.candidates(name):
        try:
            fit = get_algorithm(name)(params, task=task, seed=seed).fit(train)
        except SalError:  # e.g. a penalty the data cannot support; the grid moves on
            continue
        error = pooled_error(fit, valid, task)
        if not math.isfinite(error):
            continue
        if best is None or error < best.validation_error:
            best = Fitted(fit, params, error)
    if best is None:
        raise RuntimeError(f"{name}: no point of its grid gave a finite validation error")
    return best


def fit_oracle(
    train: Sequence[Environment],
    valid: Sequence[Environment],
    stable: Sequence[int],
    *,
    task: Task,
    seed: int,
) -> Fitted:
    """ERM on the stable covariates only: the best a method can do when P(Y | S) is invariant."""
    cols = tuple(stable)
    fit = get_algorithm("erm")(task=task, seed=seed).fit(select_columns(train, cols))
    return Fitted(fit, {}, pooled_error(fit, select_columns(valid, cols), task), columns=cols)


def environment_metrics(fitted: Fitted, envs: Sequence[Environment]) -> dict[str, dict[str, float]]:
    """Per-environment metrics {name: {metric: value}} of a chosen model."""
    if fitted.columns is not None:
        envs = select_columns(envs, fitted.columns)
    per_env, _ = evaluate(fitted.fit.model, envs)
    return per_env
