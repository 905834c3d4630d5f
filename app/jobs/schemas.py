"""The job domain's request and response bodies (POST/GET /jobs and below): one pydantic model
per role. Field names are public API; the routes in app.api.routes.jobs serve them."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

from app.jobs.result import JobResult, RoundResult, Summary

Task = Literal["regression", "classification"]
Device = Literal["auto", "cpu", "cuda"]
Status = Literal["queued", "running", "succeeded", "failed", "cancelled"]
# A tag is one word: letters, digits and _ . : = / + - (so "team=vision" or "paper:table2").
Tag = Annotated[str, StringConstraints(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:=/+-]+$")]
JobName = Annotated[str, StringConstraints(min_length=1, max_length=255, strip_whitespace=True)]
MAX_TAGS = 20
ERROR_MESSAGE_CHARS = 200  # of a job's error message in a list


def _no_tags(tags: Any) -> Any:
    return [] if tags is None else tags


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


# --- jobs -------------------------------------------------------------------------------------


class ModelConfig(Strict):
    kind: Literal["linear", "mlp"] = "linear"
    hidden: list[int] | None = Field(default=None, description="Hidden layer widths (mlp only).")
    activation: Literal["relu", "tanh", "gelu"] | None = Field(
        default=None, description="mlp only; default relu."
    )

    def to_mapping(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True)


class ValidationSpec(Strict):
    """Data held out for model selection (the result then has a ``validation`` block)."""

    fraction: float | None = Field(
        default=None,
        gt=0,
        le=0.5,
        description="Hold out this seeded share of every training environment's rows.",
    )
    environments: list[str] | None = Field(
        default=None, description="Hold out these whole environments (neither trained nor tested on)."
    )


class JobCreate(Strict):
    dataset_id: str
    algorithm: str = Field(description="A name from GET /algorithms.")
    task: Task | None = Field(
        default=None,
        description="Default: classification where every label of the dataset is 0 or 1 (as a true/false "
        "or two-valued text target is read), else regression.",
    )
    train_environments: list[str] = Field(min_length=1)
    test_environments: list[str] | None = Field(
        default=None, description="Default: every environment not trained on."
    )
    params: dict[str, Any] = Field(default_factory=dict, description="Per algorithm; see GET /algorithms.")
    model: ModelConfig = Field(default_factory=ModelConfig)
    seed: int = Field(default=0, ge=0, le=2**63 - 1)
    device: Device = "auto"
    validation: ValidationSpec | None = Field(
        default=None, description="Validation data for model selection."
    )
    name: JobName | None = Field(default=None, description="What you call this run (searched by ?q=).")
    tags: list[Tag] = Field(
        default_factory=list,
        max_length=MAX_TAGS,
        description="Words to find it by (?tag=); each at most once.",
    )
    description: str | None = Field(default=None, max_length=4000, description="Free text (searched by ?q=).")


class JobUpdate(Strict):
    """PATCH /jobs/{id}: the fields given replace the job's; the others stay."""

    name: JobName | None = None
    tags: list[Tag] | None = Field(default=None, max_length=MAX_TAGS)
    description: str | None = Field(default=None, max_length=4000)


class Progress(BaseModel):
    step: int
    total: int | None


class JobError(BaseModel):
    type: str
    message: str


class DeviceRecord(BaseModel):
    """Where a job runs: asked for, chosen when it was submitted (app.jobs.placement), and the
    device its worker resolved that to when it took the job."""

    requested: Device
    chosen: Literal["cpu", "cuda"] | None = Field(
        description='Chosen at submit time ("auto" by the cost rule in docs/operations.md); null on '
        "jobs submitted before placements, which their worker resolves."
    )
    reason: str | None = Field(description="Why ``chosen``, in one sentence.")
    ran_on: str | None = Field(
        description='The worker\'s device ("cpu", "cuda:0"); null until a worker took it.'
    )


class Reproducibility(BaseModel):
    """Everything needed to run the job again and get the same numbers."""

    dataset_sha256: str | None
    algorithm: str
    task: Task
    seed: int
    params: dict[str, Any]
    model: dict[str, Any]
    train_environments: list[str]
    test_environments: list[str]
    validation: dict[str, Any] | None
    versions: dict[str, str] | None = Field(description="torch, numpy, sal-service and python on the worker.")
    hostname: str | None


class Attempt(BaseModel):
    number: int
    started_at: dt.datetime
    worker: str = Field(description="hostname:pid of the worker process that ran it.")


class JobPublic(BaseModel):
    id: str
    name: str | None = None
    tags: list[str] = Field(default_factory=list)
    description: str | None = None
    status: Status
    progress: Progress
    created_at: dt.datetime
    started_at: dt.datetime | None
    finished_at: dt.datetime | None
    error: JobError | None
    algorithm: str
    task: Task
    params: dict[str, Any]
    model: dict[str, Any]
    seed: int
    device: DeviceRecord
    queue: str = Field(
        description="The queue the job waits on; only workers listening there run it (a CUDA job waits for a GPU worker)."
    )
    dataset_id: str | None
    train_environments: list[str]
    test_environments: list[str]
    result: JobResult | None = Field(
        description="When succeeded; also when cancelled while running (the partial fit, history up to the stop)."
    )
    attempts: list[Attempt] = Field(
        default_factory=list, description="Each time a worker took the job: a retry follows a lost worker."
    )
    cancel_requested: bool = Field(
        default=False, description="A cancel was asked for; a running job stops at its next checkpoint."
    )
    validation: dict[str, Any] | None = None
    sweep_id: str | None = None
    rerun_of: str | None = None
    reproducibility: Reproducibility | None = None

    _tags = field_validator("tags", mode="before")(_no_tags)


class JobSummary(BaseModel):
    """A job as GET /jobs lists it: ids, status, progress, timestamps and the test summary, under
    1 KB whatever the fit. The full result is on GET /jobs/{id}; its rounds on GET /jobs/{id}/history."""

    id: str
    name: str | None = None
    tags: list[str] = Field(default_factory=list)
    status: Status
    progress: Progress
    created_at: dt.datetime
    started_at: dt.datetime | None
    finished_at: dt.datetime | None
    error: JobError | None = Field(
        description="Its message cut to 200 characters; the whole on GET /jobs/{id}."
    )
    algorithm: str
    task: Task
    seed: int
    device: Device
    dataset_id: str | None
    sweep_id: str | None
    rerun_of: str | None
    cancel_requested: bool
    n_attempts: int = Field(description="How many times a worker took the job.")
    summary: Summary | None = Field(description="The result's test summary, once there is a result.")
    duration_s: float | None = Field(description="The fit's duration, once there is a result.")

    _tags = field_validator("tags", mode="before")(_no_tags)

    @field_validator("error", mode="before")
    @classmethod
    def _cut(cls, error: Any) -> Any:
        """A list item stays small: a long error message is cut (the whole on GET /jobs/{id})."""
        message = str(error.get("message", "")) if isinstance(error, dict) else ""
        if len(message) > ERROR_MESSAGE_CHARS:
            return {**error, "message": message[: ERROR_MESSAGE_CHARS - 1] + "…"}
        return error


class RoundMetrics(BaseModel):
    """The latest outer round of a running fit, as the worker last wrote it."""

    risk: float | None = Field(
        default=None, description="The round's training objective (the algorithm's risk)."
    )
    w: dict[str, float] | None = Field(
        default=None,
        description="SAL's covariate weights by feature, when the dataset has at most 50 features.",
    )


class JobEventData(BaseModel):
    """The ``data`` of a ``status`` or ``progress`` event of GET /jobs/{id}/events (``final``
    carries a JobSummary)."""

    status: Status
    progress: Progress
    metrics: RoundMetrics | None = Field(description="The latest round's metrics, while the fit runs.")
    attempt: int
    cancel_requested: bool


class JobsPublic(BaseModel):
    items: list[JobSummary]
    next_cursor: str | None


JobSort = Literal[
    "-created_at", "created_at", "name", "-name", "mean_error", "-mean_error", "std_error", "-std_error",
    "worst_error", "-worst_error", "duration_s", "-duration_s",
]  # fmt: skip


class JobsQuery(BaseModel):
    """GET /jobs's query: a page (``limit``, ``cursor``), the filters, each narrowing the list, and
    the order (FastAPI's query parameter model: one parameter per field)."""

    limit: int = Field(default=50, ge=1, le=500)
    cursor: str | None = Field(default=None, description="next_cursor of the previous page")
    status: Status | None = None
    algorithm: str | None = None
    dataset_id: str | None = None
    sweep_id: str | None = None
    q: str | None = Field(
        default=None, max_length=255, description="A substring of the name or description (any case)."
    )
    tag: list[str] | None = Field(default=None, description="Jobs with every one of these tags.")
    param: list[str] | None = Field(
        default=None, description="name=value: jobs whose parameter equals it (repeat)."
    )
    max_mean_error: float | None = Field(
        default=None, description="Jobs whose test Mean_Error is at most this."
    )
    sort: JobSort = Field(
        default="-created_at", description="Sort key, '-' for descending; jobs without that metric come last."
    )


class JobsComparison(BaseModel):
    """Jobs side by side (GET /jobs/compare): each list has one entry per job, in ``jobs`` order;
    null where a job has no such value."""

    jobs: list[JobSummary]
    params: dict[str, list[Any]] = Field(description="Every parameter any of the jobs set.")
    differing_params: list[str] = Field(description="The parameters whose values are not all equal.")
    metric: str | None = Field(description="The metric of ``environments`` (the first result's).")
    environments: dict[str, list[float | None]] = Field(description="Each environment's error per job.")
    covariate_weights: dict[str, list[float | None]] = Field(description="SAL's w per covariate per job.")
    coefficients: dict[str, list[float | None]] = Field(
        description="θ per covariate per job (linear models)."
    )


class HistoryPage(BaseModel):
    """Rounds of a job's stored history, ``from`` a position in it (0 is the first round kept)."""

    items: list[RoundResult]
    total: int = Field(description="Rounds stored (a long history is thinned: see its round numbers).")
    next_from: int | None = Field(description="``from`` of the next page; null after the last round.")


class PredictRequest(Strict):
    X: list[list[float]] | None = Field(
        default=None, description="Rows of covariates in feature_names order."
    )
    rows: list[dict[str, float | str | None]] | None = Field(
        default=None,
        description="Rows as {feature: value}; a text column one-hot encoded (the dataset's "
        "text_features) may be given as {column: its value} instead of its indicator features, and a "
        "column with missing cells in the dataset (its missing_features) as {column: null}.",
    )


class PredictResponse(BaseModel):
    predictions: list[float]
    probabilities: list[float] | None = Field(default=None, description="P(y = 1) per row (classification).")
    labels: list[str] | None = Field(
        default=None,
        description="The predicted label as the dataset's text target wrote it (classification on a text "
        "target: its target_labels[prediction]).",
    )


class InputEncoding(BaseModel):
    """How the uploaded table's columns became the model's features (app.datasets.encoding), to
    prepare rows for an exported model as ``POST /jobs/{id}/predict`` prepares named rows."""

    text_features: dict[str, list[str]] = Field(
        description="Each text column one-hot encoded: its values, sorted; the first is the reference "
        "(no feature), each other value v the feature '<column>=v' (1.0 on its rows)."
    )
    missing_features: dict[str, float | None] = Field(
        description="Each column with missing cells: the feature '<column> is missing' is 1.0 on a "
        "row whose cell is missing, and a numeric column's missing cell holds the value given (null "
        "for text)."
    )
    target_labels: list[str] | None = Field(
        description="A label target's two values (text, or two whole numbers other than 0 and 1): the first is "
        "prediction 0, the second 1."
    )


class WeightsJSON(BaseModel):
    format_version: str
    job_id: str | None
    algorithm: str | None
    task: Task
    model: dict[str, Any]
    feature_names: list[str]
    standardizer: dict[str, list[float]]
    state: dict[str, Any]
    coefficients: dict[str, float] | None
    intercept: float | None
    covariate_weights: dict[str, float] | None
    encoding: InputEncoding | None = Field(
        default=None, description="How the dataset's columns became feature_names; null once it is deleted."
    )
