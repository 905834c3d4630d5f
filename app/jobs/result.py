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

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from sal_core.history import Round
from sal_core.metrics import PairedDifference


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


class ReferenceComparison(BaseModel):
    """The job's Mean_Error on its test environments against ERM's, fitted on the same training rows
    with the same task and linear model: did robustness pay off here, and how sure is that."""

    algorithm: str = Field(default="erm", description="The reference fitted beside the job.")
    metric: str = Field(description="The summary metric: rmse (regression) or error_rate (classification).")
    mean_error: float = Field(description="The reference's Mean_Error over the test environments.")
    difference: float = Field(
        description="This job's Mean_Error minus the reference's; negative: the job is better."
    )
    standard_error: float = Field(
        description="Standard error of the difference over the test rows, paired (both models score the "
        "same rows); a difference within about two of these is one the test rows cannot tell from noise."
    )

    @classmethod
    def of(cls, found: PairedDifference) -> ReferenceComparison | None:
        """The comparison, or None where a number is not finite: a reference that diverged must not
        fail the job it only comments on (:meth:`JobResult.non_finite_field`)."""
        if not all(math.isfinite(v) for v in (found.reference_error, found.difference, found.standard_error)):
            return None
        return cls(
            metric=found.metric, mean_error=found.reference_error, difference=found.difference,
            standard_error=found.standard_error,
        )  # fmt: skip


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


class _Stored(BaseModel):
    """A block whose JSON is written as it was read: the keys it was given (an old document's
    missing keys stay missing, its retired keys stay), so a stored result reads back unchanged."""

    model_config = ConfigDict(extra="allow")

    # No return annotation: the OpenAPI schema stays the model's (an annotated one would replace it).
    @model_serializer(mode="wrap")
    def _as_given(self, handler: SerializerFunctionWrapHandler):  # type: ignore[no-untyped-def]
        data = handler(self)
        given = self.model_fields_set | set(self.__pydantic_extra__ or {})
        return {k: v for k, v in data.items() if k in given} if isinstance(data, dict) else data


class SelectionCandidate(_Stored):
    """One λ candidate (``sal_core.lambda_selection.Candidate``); null where a number was not finite."""

    relative: float | None = Field(
        default=None, description="c in λ = c · base; null for the adversary switched off (ERM)."
    )
    lambda_: float | None = None
    score: float | None = Field(
        default=None, description="The worst training environment's out-of-sample error."
    )
    env_scores: dict[str, float | None] = Field(default_factory=dict)
    se: float | None = Field(
        default=None,
        description=(
            "Standard error of (score − the best candidate's score), paired on the same rows, with the "
            "environments' mean losses drawn jointly (the score is a maximum); absent in old results."
        ),
    )
    protection: float | None = Field(default=None, description="Σ log w of the fitted candidate.")
    variant: str | None = Field(default=None, description="Which w-path variant (SAL).")


class WEvidence(_Stored):
    """How sure w is (``sal_core.lambda_selection.WEvidence``): its range over the fold fits of the
    chosen λ, and which covariates the data determine."""

    low: list[float | None]
    high: list[float | None]
    determined: list[bool]
    note: str | None = None


class SeededW(_Stored):
    """An MLP's w, learned by SAL's exact linear path (``selection``) and then held fixed. Every
    field is optional, so that any other stored ``covariate_weights`` block reads (as given)."""

    source: str | None = None
    w: list[float | None] | None = None
    selection: Selection | None = None


class Homogeneity(_Stored):
    """The test that the training environments share their slopes (``sal_core.homogeneity.SlopesTest``):
    Chow's F, or for classification the likelihood ratio (χ² on ``df1``; ``df2`` null)."""

    test: str | None = None
    statistic: float | None = None
    df1: int | None = None
    df2: int | None = Field(default=None, description="Null for the likelihood-ratio (χ²) test.")
    p_value: float | None = Field(
        default=None, description="Small: the environments' slopes differ (evidence for robustness)."
    )
    shared_residual: float | None = Field(
        default=None,
        description="Chow's test: the share of the target's within-environment variance that one set of "
        "slopes for every environment leaves unexplained. Null for the likelihood-ratio test and in "
        "results stored before 2026-12-07.",
    )
    exact_law: bool | None = Field(
        default=None,
        description="The environments share one exact linear law (shared_residual at most 1e-6, on at "
        "least as many spare rows as coefficients): SAL keeps ERM there whatever p_value says.",
    )


class ErmEvidence(_Stored):
    """Where ERM came first: the evidence that a robust candidate beats it, against its bar
    (``sal_core.lambda_selection.ErmEvidence``)."""

    t: float | None = Field(
        default=None, description="How far the strongest robust candidate beat ERM, in standard errors."
    )
    bar: float | None = Field(
        default=None, description="What t had to exceed for a robust candidate to be chosen."
    )
    candidates: int | None = Field(
        default=None, description="How many robust candidates were compared with ERM."
    )


class Selection(_Stored):
    """How the algorithm chose its λ (``sal_core.lambda_selection.FitSelection``): the rule, every
    candidate's score, the choice and why; the held-out path's refit; the evidence on w. Results
    stored by older versions (other criteria, ``tolerance``, candidates without ``se``) read as stored."""

    parameter: str | None = None
    criterion: str | None = None
    scoring: str | None = None
    rows_scored: int | None = None
    rule: str | None = None
    z: float | None = None
    base: float | None = None
    candidates: list[SelectionCandidate] | None = None
    best: SelectionCandidate | None = None
    chosen: SelectionCandidate | None = None
    reason: str | None = None
    homogeneity: Homogeneity | None = Field(
        default=None, description="Do the training environments share one linear model? (exact path)"
    )
    cost_cap: float | None = Field(
        default=None,
        description="Where the slopes test found no evidence of a difference: the most a robust candidate "
        "may score above the best (relative); null where none applied.",
    )
    erm_first: bool | None = Field(
        default=None,
        description="Whether ERM was kept unless a candidate beat it by more than z standard errors (SAL's "
        "erm_first: by default where the slopes test found no evidence of a difference); null in results "
        "stored before it existed.",
    )
    null_score: float | None = Field(
        default=None,
        description="Where candidates are scored on one held-out fold (gradient path, networks): the score of a "
        "constant prediction (the base rate, the mean or the median); a robust candidate must score below it. "
        "Null on the exact path and in results stored before it existed.",
    )
    beats_erm: ErmEvidence | None = Field(
        default=None,
        description="Where ERM came first (erm_first): how far the strongest robust candidate beat ERM, in "
        "standard errors of its own difference to ERM (t), and the bar it had to clear (bar): the quantile "
        "of the largest of all robust candidates' standardised differences that keeps one z-standard-error "
        "comparison's level for the best of several (candidates). Null elsewhere and in results stored "
        "before it existed.",
    )
    erm_kept: bool | None = Field(
        default=None,
        description="Whether ERM was kept outright because the slopes test found the training environments "
        "alike, or because no training environment has a row per fold (SAL's erm_first='keep_where_alike'; the "
        "rule says which): no robust candidate could be chosen, so none was fitted and "
        "candidates lists ERM alone (with SAL's score_all, or in results stored before 2026-12-04, they were "
        "scored and reported, not chosen). Null in results stored before it existed.",
    )
    refit_score: float | None = None
    final_model: str | None = Field(
        default=None,
        description="What the model returned is, where not simply the chosen candidate refitted on all rows: "
        "linear SAL returns the mean of the chosen candidate's fold fits ('bagged: ...'; its w and rounds "
        "are the refit's); the held-out path says whether it kept its refit.",
    )
    covariate_weights: WEvidence | SeededW | None = Field(
        default=None,
        union_mode="left_to_right",  # w's evidence if it has low, high and determined; else SeededW
        description="Linear SAL: w's evidence; an MLP: where its w came from.",
    )

    def w_evidence(self) -> WEvidence | None:
        """w's range and determined flags: this fit's, or for an MLP the linear path's that learned w."""
        evidence = self.covariate_weights
        if isinstance(evidence, SeededW):
            evidence = None if evidence.selection is None else evidence.selection.covariate_weights
        return evidence if isinstance(evidence, WEvidence) else None


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
    selection: Selection | None = Field(
        default=None, description="How the algorithm chose its λ, when it chose one itself."
    )
    reference: ReferenceComparison | None = Field(
        default=None,
        description="The job against ERM on its test environments, with the paired standard error; "
        "null for ERM itself, for networks and for jobs without test environments.",
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
