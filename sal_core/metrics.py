"""Per-environment errors and the paper's summaries over a set of test environments.

Pure functions on numpy arrays. Regression reports MSE, RMSE and MAE; classification reports
log-loss, accuracy and the paper's confidence Conf = E[max(p, 1 - p)]. Over test environments the
paper reports Mean_Error (the mean) and Std_Error (the *sample* standard deviation, ddof = 1); we
add the worst environment. RMSE is the regression summary metric (the magnitudes of the paper's
tables are RMSE on its own generators) and the error rate 1 - accuracy the classification one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from sal_core.data import Environment
from sal_core.exceptions import InvalidDataError, InvalidParameterError
from sal_core.fitted import FittedModel
from sal_core.losses import Task

# Probabilities are clipped this far from 0 and 1 so that one confident mistake costs a large but
# finite log-loss (about 34.5 nats) instead of inf.
_PROBABILITY_EPS = 1e-15

_SUMMARY_METRICS: dict[str, str] = {"regression": "rmse", "classification": "error_rate"}


def _pair(y_true: ArrayLike, y_pred: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    a = np.asarray(y_true, dtype=np.float64).reshape(-1)
    b = np.asarray(y_pred, dtype=np.float64).reshape(-1)
    if a.shape != b.shape:
        raise InvalidDataError(f"y_true has {a.shape[0]} rows but the prediction has {b.shape[0]}")
    if a.size == 0:
        raise InvalidDataError("cannot compute metrics on an empty environment")
    return a, b


def regression_metrics(y_true: ArrayLike, y_pred: ArrayLike) -> dict[str, float]:
    """MSE, RMSE and MAE of predictions ``y_pred`` (n,) against targets ``y_true`` (n,)."""
    y, pred = _pair(y_true, y_pred)
    residual = y - pred
    mse = float(np.mean(residual**2))
    return {"mse": mse, "rmse": math.sqrt(mse), "mae": float(np.mean(np.abs(residual)))}


def classification_metrics(y_true: ArrayLike, p_one: ArrayLike) -> dict[str, float]:
    """Log-loss (nats), accuracy and confidence of P(y = 1) = ``p_one`` (n,) for labels in {0, 1}.

    A row is predicted 1 when p ≥ 0.5, as ``FittedModel.predict`` does (logit ≥ 0).
    Confidence is the paper's Conf = mean of max(p, 1 - p): 0.5 for a classifier that always
    says "don't know", 1.0 for one that is always certain (right or wrong).
    """
    y, p = _pair(y_true, p_one)
    if not np.all(np.isin(y, (0.0, 1.0))):
        raise InvalidDataError("classification labels must be 0 or 1")
    if np.any((p < 0.0) | (p > 1.0)) or not np.all(np.isfinite(p)):
        raise InvalidDataError("probabilities must lie in [0, 1]")
    clipped = np.clip(p, _PROBABILITY_EPS, 1.0 - _PROBABILITY_EPS)
    log_loss = -np.mean(y * np.log(clipped) + (1.0 - y) * np.log1p(-clipped))
    accuracy = np.mean((p >= 0.5) == (y == 1.0))
    confidence = np.mean(np.maximum(p, 1.0 - p))
    return {"log_loss": float(log_loss), "accuracy": float(accuracy), "confidence": float(confidence)}


def environment_metrics(model: FittedModel, env: Environment) -> dict[str, float]:
    """The task's metrics for ``model`` on one environment's raw covariates and targets."""
    if model.task == "classification":
        return classification_metrics(env.y, model.predict_proba(env.X))
    return regression_metrics(env.y, model.predict(env.X))


def summary_metric(task: Task | str) -> str:
    """The default metric summarised over environments: "rmse" (regression), "error_rate" (classification)."""
    try:
        return _SUMMARY_METRICS[task]
    except KeyError:
        raise InvalidParameterError(
            f"task must be 'regression' or 'classification', got {task!r}", field="task"
        ) from None


def error_of(metrics: Mapping[str, float], metric: str) -> float:
    """Read one error (lower is better) from a metrics dict; "error_rate" is 1 - accuracy."""
    if metric == "error_rate" and "accuracy" in metrics:
        return 1.0 - float(metrics["accuracy"])
    if metric in ("accuracy", "confidence"):
        # Higher is better for these; summarising them as errors would pick the best as "worst".
        raise InvalidParameterError(
            f"{metric!r} is not an error; use 'error_rate' or 'log_loss'", field="metric"
        )
    if metric not in metrics:
        valid = sorted({*metrics, "error_rate"} if "accuracy" in metrics else set(metrics))
        raise InvalidParameterError(f"unknown metric {metric!r}; choose one of {valid}", field="metric")
    return float(metrics[metric])


@dataclass(frozen=True)
class Summary:
    """One metric over a set of environments: the paper's Mean_Error and Std_Error, and the worst."""

    metric: str
    mean_error: float
    std_error: float
    worst_error: float
    worst_environment: str


def summarize(errors: Mapping[str, float], metric: str) -> Summary:
    """Summarise per-environment errors {name: error}.

    Mean_Error = (1/|E|) Σ_e L^e and Std_Error = sqrt(Σ_e (L^e - Mean_Error)² / (|E| - 1)), the
    paper's formulas; Std_Error is 0.0 for a single environment. The worst is the largest error.
    """
    if not errors:
        raise InvalidDataError("cannot summarise an empty set of environments", field="environments")
    names = list(errors)
    values = np.array([float(errors[name]) for name in names], dtype=np.float64)
    std = float(np.std(values, ddof=1)) if values.size > 1 else 0.0
    worst = int(np.argmax(values))
    return Summary(
        metric=metric,
        mean_error=float(np.mean(values)),
        std_error=std,
        worst_error=float(values[worst]),
        worst_environment=names[worst],
    )


def evaluate(
    model: FittedModel, environments: Sequence[Environment], metric: str | None = None
) -> tuple[dict[str, dict[str, float]], Summary]:
    """Metrics per environment {name: {metric: value}} and the summary of ``metric`` over them.

    ``metric`` defaults to :func:`summary_metric` of the model's task.
    """
    chosen = metric if metric is not None else summary_metric(model.task)
    per_env = {env.name: environment_metrics(model, env) for env in environments}
    if len(per_env) != len(environments):
        raise InvalidDataError("environment names must be unique", field="environments")
    errors = {name: error_of(values, chosen) for name, values in per_env.items()}
    return per_env, summarize(errors, chosen)


@dataclass(frozen=True)
class PairedDifference:
    """One model's Mean_Error minus a reference model's over the same environments, with the standard
    error of that difference."""

    metric: str
    difference: float
    standard_error: float
    reference_error: float  # the reference's Mean_Error over the same environments


def paired_difference(
    model: FittedModel, reference: FittedModel, environments: Sequence[Environment]
) -> PairedDifference:
    """Mean_Error(``model``) − Mean_Error(``reference``) in the task's summary metric, and its
    standard error over the environments' rows.

    Both models score the same rows, so the noise of the difference comes from the per-row
    differences (paired). Per environment, the error rate is a mean of 0/1 losses; RMSE is the square
    root of a mean of squared errors, linearised at each model's MSE (the delta method,
    :func:`paired_rmse_difference`). Mean_Error averages the environments, independent samples.
    """
    if model.task != reference.task:
        raise InvalidParameterError(
            f"cannot compare a {model.task} model with a {reference.task} one", field="reference"
        )
    if not environments:
        raise InvalidDataError("cannot compare models on no environments", field="environments")
    if model.task == "regression":
        sums = [_squared_error_sums(model, reference, env) for env in environments]
        return paired_rmse_difference(*(np.array(column) for column in zip(*sums, strict=True)))
    difference, variance, reference_error = 0.0, 0.0, 0.0
    for env in environments:
        y = np.asarray(env.y, dtype=np.float64).reshape(-1)
        wrong = [(m.predict(env.X) != y).astype(np.float64) for m in (model, reference)]
        difference += float(np.mean(wrong[0]) - np.mean(wrong[1]))
        reference_error += float(np.mean(wrong[1]))
        per_row = wrong[0] - wrong[1]
        if per_row.size > 1:
            variance += float(np.var(per_row, ddof=1)) / per_row.size
    n = len(environments)
    return PairedDifference("error_rate", difference / n, math.sqrt(variance) / n, reference_error / n)


def _squared_error_sums(
    model: FittedModel, reference: FittedModel, env: Environment
) -> tuple[float, float, float, float, float, float]:
    y = np.asarray(env.y, dtype=np.float64).reshape(-1)
    r2, s2 = ((m.predict(env.X) - y) ** 2 for m in (model, reference))
    return (
        float(y.size),
        float(r2.sum()),
        float((r2**2).sum()),
        float(s2.sum()),
        float((s2**2).sum()),
        float((r2 * s2).sum()),
    )


def paired_rmse_difference(
    n: ArrayLike, sq: ArrayLike, quad: ArrayLike, ref_sq: ArrayLike, ref_quad: ArrayLike, cross: ArrayLike
) -> PairedDifference:
    """:func:`paired_difference` for RMSE from per-environment sums over the rows (so that a pass over
    a table's chunks can add them up): row counts ``n``, Σr², Σr⁴ of the model's residuals r, Σs², Σs⁴
    of the reference's s, and Σr²s². Per environment the per-row term of the difference is
    d = r²/(2·RMSE) − s²/(2·RMSE_ref); its sample variance over n gives the environment's share."""
    n_, sq_, quad_, ref_sq_, ref_quad_, cross_ = (
        np.asarray(v, dtype=np.float64) for v in (n, sq, quad, ref_sq, ref_quad, cross)
    )
    rmse, ref_rmse = np.sqrt(sq_ / n_), np.sqrt(ref_sq_ / n_)
    # 1/(2·RMSE), 0 where every residual is 0 (the term r²/(2·RMSE) is then 0 on every row); each
    # product is taken with the sums first, so a tiny RMSE never squares its inverse into ∞ · 0
    a, b = (np.divide(0.5, e, out=np.zeros_like(e), where=e > 0.0) for e in (rmse, ref_rmse))
    total = a * sq_ - b * ref_sq_
    squares = (a * quad_) * a + (b * ref_quad_) * b - 2.0 * ((a * cross_) * b)
    spread = np.maximum(squares - total * total / n_, 0.0) / np.maximum(n_ - 1.0, 1.0)
    variance = np.where(n_ > 1, spread / n_, 0.0)
    k = n_.size
    return PairedDifference(
        "rmse", float(np.mean(rmse - ref_rmse)), float(np.sqrt(variance.sum())) / k, float(np.mean(ref_rmse))
    )


__all__ = [
    "PairedDifference",
    "Summary",
    "classification_metrics",
    "environment_metrics",
    "error_of",
    "evaluate",
    "paired_difference",
    "paired_rmse_difference",
    "regression_metrics",
    "summarize",
    "summary_metric",
]
