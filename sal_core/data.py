"""Multi-environment tabular data and its standardisation."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from numpy.typing import NDArray

from sal_core.cross_fit import row_keys
from sal_core.exceptions import InvalidDataError

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class Environment:
    """Rows that share one data-generating distribution (a hospital, a year, a region).

    ``X`` has shape (n, p); ``y`` has shape (n,).
    """

    name: str
    X: FloatArray
    y: FloatArray

    def __post_init__(self) -> None:
        object.__setattr__(self, "X", np.asarray(self.X, dtype=np.float64))
        object.__setattr__(self, "y", np.asarray(self.y, dtype=np.float64))

    @property
    def n_rows(self) -> int:
        return int(self.X.shape[0]) if self.X.ndim >= 1 else 0


@dataclass(frozen=True)
class Standardizer:
    """Per-covariate affine map z = (x - mean) / scale, fitted on the pooled training rows."""

    mean: FloatArray
    scale: FloatArray

    @classmethod
    def fit(cls, X: FloatArray) -> Standardizer:
        mean = X.mean(axis=0)
        scale = X.std(axis=0)
        # A constant covariate carries no information; leave it unscaled instead of dividing by 0.
        scale = np.where(scale > 1e-12, scale, 1.0)
        return cls(mean=mean, scale=scale)

    @classmethod
    def fit_tensors(cls, Xs: Sequence[torch.Tensor]) -> Standardizer:
        """The same statistics from the environments' rows where they already are (a GPU, say):
        pooled mean and population std accumulated in float64 whatever the tensors' dtype, two passes
        (mean, then squared deviations), no concatenated copy. Agrees with :meth:`fit` to rounding."""
        n = sum(int(x.shape[0]) for x in Xs)
        mean = torch.stack([x.sum(0, dtype=torch.float64) for x in Xs]).sum(0) / n
        squares = torch.stack([((x.double() - mean) ** 2).sum(0) for x in Xs]).sum(0)
        scale = torch.sqrt(squares / n).cpu().numpy()
        scale = np.where(scale > 1e-12, scale, 1.0)
        return cls(mean=mean.cpu().numpy().astype(np.float64), scale=scale.astype(np.float64))

    def transform(self, X: FloatArray) -> FloatArray:
        return (np.asarray(X, dtype=np.float64) - self.mean) / self.scale

    def coefficients_to_original(self, coef: FloatArray, intercept: float) -> tuple[FloatArray, float]:
        """Map θᵀz + b back to the original units: returns (θ / scale, b - Σ θ·mean/scale)."""
        coef_orig = coef / self.scale
        return coef_orig, float(intercept - np.dot(coef_orig, self.mean))


def default_feature_names(p: int) -> list[str]:
    return [f"x{i}" for i in range(p)]


def validate_environments(
    environments: Sequence[Environment],
    *,
    min_environments: int,
    task: str,
    field_name: str = "environments",
) -> int:
    """Check shapes, finiteness, sizes and labels; return the number of covariates p."""
    if len(environments) < min_environments:
        raise InvalidDataError(
            f"this algorithm needs at least {min_environments} training environments, "
            f"got {len(environments)}",
            field=field_name,
        )
    names = [e.name for e in environments]
    if len(set(names)) != len(names):
        raise InvalidDataError(f"environment names must be unique, got {names}", field=field_name)
    p: int | None = None
    for env in environments:
        where = f"{field_name}[{env.name}]"
        if env.X.ndim != 2:
            raise InvalidDataError(f"X must be 2-D (n, p), got shape {env.X.shape}", field=where + ".X")
        if env.y.ndim != 1 or env.y.shape[0] != env.X.shape[0]:
            raise InvalidDataError(
                f"y must have shape ({env.X.shape[0]},) to match X, got {env.y.shape}",
                field=where + ".y",
            )
        if env.X.shape[0] < 2:
            raise InvalidDataError("each environment needs at least 2 rows", field=where)
        if p is None:
            p = int(env.X.shape[1])
        elif env.X.shape[1] != p:
            raise InvalidDataError(
                f"all environments must have the same {p} covariates, got {env.X.shape[1]}",
                field=where + ".X",
            )
        if not np.all(np.isfinite(env.X)):
            raise InvalidDataError("X contains NaN or infinite values", field=where + ".X")
        if not np.all(np.isfinite(env.y)):
            raise InvalidDataError("y contains NaN or infinite values", field=where + ".y")
        if task == "classification" and not np.all(np.isin(env.y, (0.0, 1.0))):
            raise InvalidDataError("classification labels must be 0 or 1", field=where + ".y")
    assert p is not None
    if p < 1:
        raise InvalidDataError("there must be at least one covariate", field=field_name)
    if task == "classification":
        labels = np.unique(np.concatenate([e.y for e in environments]))
        if len(labels) < 2:
            raise InvalidDataError(
                f"classification needs both labels among the training rows; every one is {labels[0]:g}",
                field=field_name,
            )
    return p


def in_canonical_order(
    environments: Sequence[Environment], feature_names: Sequence[str] | None = None
) -> list[Environment]:
    """The environments sorted by name, each one's rows sorted by their content: what a fit reads,
    so that neither the order in which the environments are listed nor the order of their rows
    changes a bit of it (every sum is then taken in one order).

    A row's place is its key of :func:`sal_core.cross_fit.row_keys` on the raw values, each
    covariate salted with its name (``feature_names``; x0, x1, ... where unnamed), so listing named
    covariates in another order leaves the rows' order as it was. Equal keys are equal rows (a
    64-bit hash: distinct rows share one with probability about n²/2⁶⁵), whose order changes
    nothing. An environment already in that order is passed on as it is, without a copy. The cost
    (measured: docs/sal.md, "Environments by name, rows by content") is one hash of every value and
    one sort of each environment's keys."""
    ordered: list[Environment] = []
    names = feature_names
    for env in sorted(environments, key=lambda e: e.name):
        if names is None:  # every environment has the same covariates (validate_environments)
            names = default_feature_names(env.X.shape[1])
        order = np.argsort(row_keys(env.X, env.y, names))
        if np.array_equal(order, np.arange(order.shape[0])):
            ordered.append(env)
        else:  # np.take gathers rows 4-5× faster than X[order]
            ordered.append(Environment(env.name, np.take(env.X, order, axis=0), np.take(env.y, order)))
    return ordered


SPLIT_STREAM = 0x5A1  # the second word of the split's seed, so it never shares a stream with a fit's


def split_environments(
    environments: Sequence[Environment], fraction: float, seed: int
) -> tuple[list[Environment], list[Environment]]:
    """Hold out ``fraction`` of each environment's rows at random: (training parts, validation parts).

    The paper's validation protocol (a validation set drawn i.i.d. from the training environments).
    Each part keeps its environment's name; at least one row is held out and at least two kept.
    Rows are drawn by position in the order given (the benchmarks' draws); a caller that must not
    depend on that order passes :func:`in_canonical_order`'s environments (the worker does).
    """
    rng = np.random.default_rng([seed, SPLIT_STREAM])
    train, valid = [], []
    for env in environments:
        order = rng.permutation(env.n_rows)
        n_valid = max(1, min(env.n_rows - 2, round(fraction * env.n_rows)))
        keep, hold = order[n_valid:], order[:n_valid]
        train.append(Environment(env.name, env.X[keep], env.y[keep]))
        valid.append(Environment(env.name, env.X[hold], env.y[hold]))
    return train, valid
