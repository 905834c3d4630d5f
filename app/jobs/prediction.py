"""POST /jobs/{id}/predict below the route: rows in, the model's predictions out, every row checked
first (shape, names, finite, the datasets' magnitude bound) with a 422 that names the field."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

import numpy as np
from sqlalchemy.orm import Session

from app.datasets.encoding import missing_name
from app.datasets.tables import MAX_ABS_VALUE
from app.db import repository as repo
from app.errors import UnprocessableEntity
from app.jobs import artifacts
from app.jobs import service as jobs_service
from app.jobs.schemas import PredictRequest, PredictResponse
from sal_core import FittedModel

__all__ = ["ModelCache", "predict"]


class ModelCache(Protocol):
    """Unpacked models by job id (app.cache.LRUCache), shared by every tenant."""

    def get(self, key: str) -> FittedModel | None: ...

    def put(self, key: str, value: FittedModel) -> None: ...


def rows_of(
    body: PredictRequest,
    names: list[str],
    text_features: Mapping[str, Sequence[str]] | None = None,
    missing_features: Mapping[str, float | None] | None = None,
) -> tuple[np.ndarray, str]:
    """The request's rows as an (n, len(names)) float64 array, and the field they came in. A named
    row may give a one-hot encoded text column (``text_features``: column -> its values, the first
    the reference) by its value, which becomes the column's indicators; and a column with missing
    cells in the dataset (``missing_features``: column -> the fill of a numeric one, None for text)
    as null, which sets its ``"<column> is missing"`` feature (0 where it has a value)."""
    if (body.X is None) == (body.rows is None):
        raise UnprocessableEntity.on("X", "give exactly one of X or rows")
    if body.X is not None:
        for i, row in enumerate(body.X):
            if len(row) != len(names):
                raise UnprocessableEntity.on(
                    f"X[{i}]", f"each row needs {len(names)} values ({', '.join(names)})"
                )
        X, field = np.asarray(body.X, dtype=np.float64).reshape(len(body.X), len(names)), "X"
    else:
        assert body.rows is not None
        missing = missing_features or {}
        numbers = [
            _numbers(_filled(_expanded(named, text_features or {}, missing, i), missing, i), names, i)
            for i, named in enumerate(body.rows)
        ]
        X = np.asarray([[row[n] for n in names] for row in numbers], dtype=np.float64)
        X, field = X.reshape(len(body.rows), len(names)), "rows"
    if not np.all(np.isfinite(X)):
        raise UnprocessableEntity.on(field, "values must be finite numbers")
    if X.size and float(np.max(np.abs(X))) > MAX_ABS_VALUE:
        raise UnprocessableEntity.on(
            field, f"values must be at most {MAX_ABS_VALUE:g} in magnitude, as in datasets"
        )
    return X, field


Cell = float | str | None


def _expanded(
    named: Mapping[str, Cell],
    text_features: Mapping[str, Sequence[str]],
    missing_features: Mapping[str, float | None],
    i: int,
) -> dict[str, Cell]:
    """A named row with each text column given by its value (or null, where the dataset had missing
    cells in it) replaced by that column's indicators."""
    row = dict(named)
    for column, levels in text_features.items():
        if column not in row:
            continue
        cell = row.pop(column)
        has_missing = column in missing_features
        if cell is None and not has_missing:
            raise UnprocessableEntity.on(
                f"rows[{i}].{column}",
                f"{column!r} had no missing cell in the dataset; give one of {list(levels)}",
            )
        value = None if cell is None else str(cell)
        if value is not None and value not in levels:
            raise UnprocessableEntity.on(
                f"rows[{i}].{column}",
                f"{value!r} is not a value of {column!r} in the dataset; it has {list(levels)}",
            )
        indicators = {f"{column}={level}": float(value == level) for level in levels[1:]}
        if has_missing:
            indicators[missing_name(column)] = float(value is None)
        for feature, indicator in indicators.items():
            if feature in row:
                raise UnprocessableEntity.on(
                    f"rows[{i}].{feature}", f"give {column!r} by its value or by its features, not both"
                )
            row[feature] = indicator
    return row


def _filled(row: dict[str, Cell], missing_features: Mapping[str, float | None], i: int) -> dict[str, Cell]:
    """A named row with each numeric column that had missing cells in the dataset given its
    ``"<column> is missing"`` feature (where the row does not give it), and null replaced by the
    dataset's fill."""
    for column, fill in missing_features.items():
        if fill is None or column not in row:
            continue
        indicator = missing_name(column)
        if row[column] is None:
            if indicator in row:
                raise UnprocessableEntity.on(
                    f"rows[{i}].{indicator}",
                    f"give {column!r} as null or its {indicator!r} feature, not both",
                )
            row[column], row[indicator] = fill, 1.0
        else:
            row.setdefault(indicator, 0.0)
    return row


def _numbers(row: Mapping[str, Cell], names: list[str], i: int) -> dict[str, float]:
    """A named row checked: exactly the features, each a number."""
    missing = [n for n in names if n not in row]
    extra = sorted(set(row) - set(names))
    if missing or extra:
        raise UnprocessableEntity.on(
            f"rows[{i}].{(missing or extra)[0]}",
            f"rows need exactly the features {names}; missing {missing}, unknown {extra}",
        )
    numbers: dict[str, float] = {}
    for name in names:
        cell = row[name]
        if cell is None:
            raise UnprocessableEntity.on(
                f"rows[{i}].{name}",
                "must be a number (null only for a column the dataset had missing cells in)",
            )
        if isinstance(cell, str):
            raise UnprocessableEntity.on(f"rows[{i}].{name}", "must be a number")
        numbers[name] = float(cell)
    return numbers


def predict(
    session: Session, job_id: str, tenant_id: str, body: PredictRequest, cache: ModelCache
) -> PredictResponse:
    """Predict with a succeeded job's model (409 for any other job)."""
    job = jobs_service.get_job(session, job_id, tenant_id)  # before the cache, which is every tenant's
    model = cache.get(job_id)
    if model is None:
        model = artifacts.unpack(jobs_service.weights(session, job))
        cache.put(job_id, model)
    # The dataset's encoding matters to named rows (text by value) and to a classifier's labels only.
    needed = body.rows is not None or model.task == "classification"
    dataset = (
        repo.get_dataset(session, job.dataset_id, tenant_id=tenant_id)
        if needed and job.dataset_id is not None
        else None
    )
    X, field = (
        rows_of(body, list(model.feature_names))
        if dataset is None
        else rows_of(body, list(model.feature_names), dataset.text_features, dataset.missing_features)
    )
    predictions = model.predict(X)
    probabilities = model.predict_proba(X) if model.task == "classification" else None
    if not np.all(np.isfinite(predictions)):
        # The one rule for non-finite numbers (app.jobs.result): said, never sent as nulls.
        raise UnprocessableEntity.on(field, "the model's predictions overflow for these values; rescale them")
    names = None if dataset is None or model.task != "classification" else dataset.target_labels
    return PredictResponse(
        predictions=predictions.tolist(),
        probabilities=None if probabilities is None else probabilities.tolist(),
        labels=None if names is None else [names[int(p)] for p in predictions],
    )
