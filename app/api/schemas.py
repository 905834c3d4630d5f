"""Request and response bodies: one pydantic model per role. Field names are public API."""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Task = Literal["regression", "classification"]
Device = Literal["auto", "cpu", "cuda"]
Status = Literal["queued", "running", "succeeded", "failed", "cancelled"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


# --- datasets ---------------------------------------------------------------------------------


class EnvironmentData(Strict):
    name: str = Field(min_length=1, max_length=255)
    X: list[list[float]] = Field(description="Rows of covariates, each with one value per feature.")
    y: list[float] = Field(description="One label per row.")


class DatasetCreate(Strict):
    """The JSON form of an upload."""

    name: str = Field(default="dataset", min_length=1, max_length=255)
    feature_names: list[str] = Field(min_length=1)
    target: str = Field(default="y", min_length=1, max_length=255)
    environments: list[EnvironmentData] = Field(min_length=1)


class DatasetUpload(BaseModel):
    """The multipart form of an upload (documented in OpenAPI; parsed by hand)."""

    file: bytes = Field(json_schema_extra={"format": "binary"}, description="A CSV or Parquet file.")
    target: str = Field(description="Name of the label column.")
    environment: str = Field(description="Name of the column that says which environment a row is from.")
    features: str | None = Field(default=None, description="Comma-separated feature columns; default: every other numeric column.")
    name: str | None = Field(default=None, description="A name for the dataset; default: the file name.")


class DatasetEnvironment(BaseModel):
    name: str
    n_rows: int


class DatasetPublic(BaseModel):
    id: str
    name: str
    sha256: str
    n_rows: int
    feature_names: list[str]
    target: str
    environments: list[DatasetEnvironment]
    created_at: dt.datetime


class DatasetsPublic(BaseModel):
    items: list[DatasetPublic]
    next_cursor: str | None


# --- jobs -------------------------------------------------------------------------------------


class ModelConfig(Strict):
    kind: Literal["linear", "mlp"] = "linear"
    hidden: list[int] | None = Field(default=None, description="Hidden layer widths (mlp only).")
    activation: Literal["relu", "tanh", "gelu"] | None = Field(default=None, description="mlp only; default relu.")

    def to_mapping(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True)


class JobCreate(Strict):
    dataset_id: str
    algorithm: str = Field(description="A name from GET /algorithms.")
    task: Task = "regression"
    train_environments: list[str] = Field(min_length=1)
    test_environments: list[str] | None = Field(default=None, description="Default: every environment not trained on.")
    params: dict[str, Any] = Field(default_factory=dict, description="Per algorithm; see GET /algorithms.")
    model: ModelConfig = Field(default_factory=ModelConfig)
    seed: int = Field(default=0, ge=0, le=2**63 - 1)
    device: Device = "auto"


class Progress(BaseModel):
    step: int
    total: int | None


class JobError(BaseModel):
    type: str
    message: str


class EnvironmentResult(BaseModel):
    """One environment's split and metrics: mse, rmse, mae (regression) or log_loss, accuracy,
    confidence (classification)."""

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, float] = Field(init=False)  # type: ignore[assignment]

    name: str
    split: Literal["train", "test"]
    n_rows: int


class Summary(BaseModel):
    metric: str
    mean_error: float
    std_error: float
    worst_error: float
    worst_environment: str | None = None


class CertificatePublic(BaseModel):
    rho_hat: float
    worst_case_risk: float


class JobResultPublic(BaseModel):
    environments: list[EnvironmentResult]
    summary: Summary | None
    coefficients: dict[str, float] | None
    intercept: float | None
    covariate_weights: dict[str, float] | None
    history: list[dict[str, Any]]
    certificate: CertificatePublic | None
    duration_s: float
    device: str


class JobPublic(BaseModel):
    id: str
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
    device: Device
    dataset_id: str | None
    train_environments: list[str]
    test_environments: list[str]
    result: JobResultPublic | None


class JobsPublic(BaseModel):
    items: list[JobPublic]
    next_cursor: str | None


class PredictRequest(Strict):
    X: list[list[float]] | None = Field(default=None, description="Rows of covariates in feature_names order.")
    rows: list[dict[str, float]] | None = Field(default=None, description="Rows as {feature: value}.")


class PredictResponse(BaseModel):
    predictions: list[float]
    probabilities: list[float] | None = Field(default=None, description="P(y = 1) per row (classification).")


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


# --- algorithms and health --------------------------------------------------------------------


class ParamPublic(BaseModel):
    name: str
    type: str
    default: Any
    doc: str
    low: float | None
    high: float | None
    choices: list[Any] | None
    grid: list[Any] | None


class AlgorithmPublic(BaseModel):
    name: str
    summary: str
    min_environments: int
    linear_only: bool
    params: list[ParamPublic]


class Health(BaseModel):
    status: Literal["ok"]


class Readiness(BaseModel):
    database: Literal["ok"]
    broker: Literal["ok"]
