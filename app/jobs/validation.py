"""Validation data for model selection, drawn from the training environments (the paper's protocol).

Two ways a job can hold data out, both recorded on the job (``validation``):

* ``{"fraction": f}``: a seeded share ``f`` of every training environment's rows is held out; the
  model is fitted on the rest (DomainBed's "training-domain validation", no refit). The split is
  ``sal_core.data.split_environments``, the one the paper benchmark draws too, on the environments
  in ``sal_core.data.in_canonical_order`` (by name, rows by content), so the rows held out do not
  depend on the order of the file or of ``train_environments``.
* ``{"environments": [...]}``: whole environments, neither trained nor tested on (one fold of
  leave-one-environment-out).

The validation error is the pooled error over the held-out rows: MSE (regression) or log-loss
(classification), what ``train_env_validation`` compares; ``worst_error`` is the same metric on the
worst held-out environment, what ``train_env_worst`` compares (the criterion SAL's
``lambda_="auto"`` uses inside a job).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from sal_core import Environment, FittedModel
from sal_core.metrics import classification_metrics, environment_metrics, regression_metrics


def validation_metric(task: str) -> str:
    return "log_loss" if task == "classification" else "mse"


def pooled_error(model: FittedModel, envs: Sequence[Environment]) -> float:
    """MSE (regression) or log-loss (classification) over the rows of ``envs`` taken together."""
    X = np.concatenate([e.X for e in envs])
    y = np.concatenate([e.y for e in envs])
    if model.task == "classification":
        return classification_metrics(y, model.predict_proba(X))["log_loss"]
    return regression_metrics(y, model.predict(X))["mse"]


def validation_result(model: FittedModel, envs: Sequence[Environment]) -> dict[str, Any]:
    """The ``validation`` block of a job's result: the pooled error and each part's metrics."""
    metric = validation_metric(model.task)
    metrics = [environment_metrics(model, e) for e in envs]
    per_env = [{"name": e.name, "n_rows": e.n_rows, **m} for e, m in zip(envs, metrics, strict=True)]
    return {
        "metric": metric,
        "error": pooled_error(model, envs),
        "worst_error": max(m[metric] for m in metrics) if metrics else None,
        "n_rows": int(sum(e.n_rows for e in envs)),
        "environments": per_env,
    }
