"""A job's result: one typed document, written by the worker and read by the API, the leaderboard
and the reports. Its JSON is what the ``job_results.result`` column stores and what
``GET /jobs/{id}`` shows.

Rows stored before this type stay readable (:meth:`JobResult.model_validate` is the tolerant
reader): a history row in any of its old shapes becomes a :class:`RoundResult` (see
``sal_core.history.Round.from_mapping``), and blocks added since (``validation``, ``selection``)
default to null.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Literal, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from sal_core.history import Round


class EnvironmentResult(BaseModel):
    """One environment's split and metrics: mse, rmse, mae (regression) or log_loss, accuracy,
    confidence (classification)."""

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, float] = Field(init=False)  # type: ignore[assignment]

    name: str
    split: Literal["train", "test"]
    n_rows: int

    def metrics(self) -> dict[str, float]:
        return dict(self.__pydantic_extra__)


class Summary(BaseModel):
    metric: str
    mean_error: float
    std_error: float
    worst_error: float
    worst_environment: str | None = None


class CertificatePublic(BaseModel):
    rho_hat: float
    worst_case_risk: float


class ValidationResult(BaseModel):
    metric: str = Field(
        description="mse (regression) or log_loss (classification), pooled over the held-out rows."
    )
    error: float
    worst_error: float | None = Field(
        default=None,
        description="The same metric on the worst held-out environment (what train_env_worst selects by); "
        "null in results stored before it existed.",
    )
    n_rows: int
    environments: list[dict[str, Any]]


class RoundResult(BaseModel):
    """One outer round of the fit (``sal_core.history.Round``); null where a number was not finite."""

    model_config = ConfigDict(title="Round")

    round: int
    risk: float | None = Field(
        description="What the algorithm minimises: SAL's stability risk, the penalised objective of "
        "ridge, lasso and IRM, ERM's pooled training loss."
    )
    env_losses: dict[str, float | None] = Field(description="Training loss per environment.")
    w: list[float | None] | None = Field(default=None, description="Covariate weights this round (SAL).")
    penalty: float | None = Field(default=None, description="Mean invariance penalty (IRM).")

    @classmethod
    def of(cls, r: Round) -> RoundResult:
        return cls.model_validate(r.to_dict())


# A result document stays bounded in bytes whatever the parameters (rounds, features,
# environments): its history keeps at most this many numbers (~20 bytes of JSON each, so about
# 2 MB), as evenly spaced rounds that always include the first and the last. A thinned history
# shows it in its ``round`` numbers.
HISTORY_NUMBERS = 100_000


class _RoundLike(Protocol):
    @property
    def env_losses(self) -> Mapping[str, Any]: ...
    @property
    def w(self) -> Sequence[Any] | None: ...


R = TypeVar("R", bound=_RoundLike)


def thin_history(history: Sequence[R], budget: int = HISTORY_NUMBERS) -> list[R]:
    """At most ``budget`` numbers of ``history`` (``Round`` s or ``RoundResult`` s): every round
    if they fit, else evenly spaced ones from the first to the last."""
    history = list(history)
    if not history:
        return history
    first = history[0]
    per_round = 2 + len(first.env_losses) + len(first.w or ())
    keep = max(2, budget // per_round)
    if len(history) <= keep:
        return history
    step = (len(history) - 1) / (keep - 1)
    return [history[round(i * step)] for i in range(keep)]


class JobResult(BaseModel):
    """What a fit learned and how it scored; the worker writes it, every reader reads it."""

    environments: list[EnvironmentResult]
    summary: Summary | None
    coefficients: dict[str, float] | None
    intercept: float | None
    covariate_weights: dict[str, float] | None
    history: list[RoundResult]
    certificate: CertificatePublic | None
    duration_s: float
    validation: ValidationResult | None = None
    selection: dict[str, Any] | None = Field(
        default=None, description="How the algorithm chose its λ, when it chose one itself."
    )

    @model_validator(mode="before")
    @classmethod
    def _old_rows(cls, data: Any) -> Any:
        """Read rows stored before history was typed (a row in any old shape becomes a Round) and
        before the job's one device record (their ``device`` and ``device_reason`` are the job's
        now: ``JobPublic.device``)."""
        if isinstance(data, Mapping) and ("device" in data or "device_reason" in data):
            data = {k: v for k, v in data.items() if k not in ("device", "device_reason")}
        if not isinstance(data, Mapping) or not data.get("history"):
            return data
        history = data["history"]
        if all(isinstance(h, RoundResult) or _current(h) for h in history):
            return data
        train = [
            str(e.get("name")) if isinstance(e, Mapping) else e.name
            for e in data.get("environments", [])
            if (e.get("split") if isinstance(e, Mapping) else e.split) == "train"
        ]
        rows = [
            h if isinstance(h, RoundResult) or _current(h) else Round.from_mapping(h, train, i).to_dict()
            for i, h in enumerate(history)
        ]
        return {**data, "history": rows}

    def test_environments(self) -> list[EnvironmentResult]:
        return [e for e in self.environments if e.split == "test"]

    def to_json(self) -> dict[str, Any]:
        """The stored JSON (non-finite numbers as null)."""
        return self.model_dump(mode="json")

    def non_finite_field(self) -> str | None:
        """The first score or learned number that is not finite ("summary.mean_error"), or None.

        The one rule for non-finite values: a result whose scores (environments, summary,
        validation) or model (coefficients, intercept, weights, certificate) overflowed is not
        stored; the job fails ``non_finite_result`` naming the field. Uploads bound every value
        (app.datasets.tables.MAX_ABS_VALUE) so that this needs a diverging fit. Only ``history``
        keeps nulls where a round's number was not finite: a diverging round is part of the record.
        """
        return _first_non_finite(self.model_dump(exclude={"history"}), "")


def _first_non_finite(value: Any, path: str) -> str | None:
    if isinstance(value, float):
        return None if math.isfinite(value) else path
    items: Any = (
        value.items() if isinstance(value, Mapping) else enumerate(value) if isinstance(value, list) else ()
    )
    for key, item in items:
        found = _first_non_finite(
            item, f"{path}[{key}]" if isinstance(key, int) else f"{path}.{key}".lstrip(".")
        )
        if found is not None:
            return found
    return None


_ROUND_KEYS = frozenset(RoundResult.model_fields)


def _current(row: Any) -> bool:
    """A row already in Round's shape (read as it is: GET /jobs/{id} reads many of them)."""
    return (
        isinstance(row, Mapping)
        and "risk" in row
        and isinstance(row.get("env_losses"), Mapping)
        and row.keys() <= _ROUND_KEYS
    )
