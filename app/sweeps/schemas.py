"""The sweep domain's request and response bodies (/sweeps). Field names are public API."""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from app.jobs.schemas import Device, ModelConfig, Strict, Task

Selection = Literal["train_env_validation", "train_env_worst", "leave_one_env_out", "oracle"]
SweepStatus = Literal["running", "succeeded", "failed", "cancelled"]


class Range(Strict):
    low: float
    high: float
    log: bool = Field(default=False, description="Draw log-uniformly (low > 0).")
    integer: bool = Field(default=False, description="Round each draw to an integer.")


class AlgorithmSearch(Strict):
    """How one algorithm's trials are chosen. ``{}``: the default grid from sal_core."""

    grid: dict[str, list[Any]] | None = Field(default=None, description="Every combination of these values.")
    random: dict[str, list[Any] | Range] | None = Field(
        default=None,
        description="Draw n_trials points: a list is a choice, a range (log-)uniform; {} samples the default grid.",
    )
    n_trials: int | None = Field(default=None, ge=1, le=1000, description="Points drawn by random search.")
    params: dict[str, Any] = Field(default_factory=dict, description="Fixed in every trial (not searched).")


class SweepCreate(Strict):
    dataset_id: str
    task: Task | None = Field(
        default=None,
        description="Default: classification where every label of the dataset is 0 or 1 (as a true/false "
        "or two-valued text target is read), else regression.",
    )
    train_environments: list[str] = Field(min_length=1)
    test_environments: list[str] | None = Field(
        default=None, description="Default: every environment not trained on."
    )
    algorithms: dict[str, AlgorithmSearch] = Field(min_length=1, description="Algorithm name -> its search.")
    seeds: list[int] = Field(default=[0], min_length=1, max_length=100)
    selection: Selection = "train_env_validation"
    validation_fraction: float = Field(
        default=0.2,
        gt=0,
        le=0.5,
        description="train_env_validation / train_env_worst: share of each training environment held out "
        "(train_env_worst selects by the worst held-out environment's error instead of the pooled one).",
    )
    search_seed: int = Field(default=0, ge=0, description="Seeds random search.")
    model: ModelConfig = Field(default_factory=ModelConfig)
    device: Device = "auto"

    @field_validator("seeds")
    @classmethod
    def _distinct(cls, seeds: list[int]) -> list[int]:
        if len(set(seeds)) != len(seeds) or any(s < 0 for s in seeds):
            raise ValueError("seeds must be distinct non-negative integers")
        return seeds


class SweepProgress(BaseModel):
    total: int
    queued: int
    running: int
    succeeded: int
    failed: int
    cancelled: int
    done: int = Field(description="Trials in a terminal state.")


class MeanStd(BaseModel):
    mean: float
    std: float


class CandidateScore(BaseModel):
    params: dict[str, Any]
    score: float | None = Field(
        description="Selection error averaged over seeds; null if a trial did not succeed."
    )


class LeaderboardRow(BaseModel):
    rank: int
    algorithm: str
    selected_params: dict[str, Any]
    searched_params: dict[str, Any] = Field(
        description="The selected values of the parameters the search varied."
    )
    selection_score: float
    seeds: list[int]
    jobs: list[str] = Field(description="The selected candidate's reported job per seed.")
    metric: str
    mean_error: MeanStd
    std_error: MeanStd
    worst_error: MeanStd
    worst_environment: str | None
    environments: dict[str, MeanStd] = Field(description="Test error per environment, mean ± std over seeds.")
    coefficients: dict[str, float] | None = Field(description="θ per covariate, averaged over seeds.")
    covariate_weights: dict[str, float] | None = Field(description="w per covariate, averaged over seeds.")
    candidates: list[CandidateScore]
    failed_trials: int


class Leaderboard(BaseModel):
    selection: Selection
    oracle: bool = Field(
        description="True when selected on test error: an upper bound, not a fair comparison."
    )
    selection_metric: str
    note: str | None
    algorithms: list[LeaderboardRow]
    unselected: dict[str, str] = Field(description="Algorithms without a selectable candidate, and why.")


class SweepPublic(BaseModel):
    id: str
    status: SweepStatus
    selection: Selection
    oracle: bool
    dataset_id: str | None
    task: Task
    train_environments: list[str]
    test_environments: list[str]
    seeds: list[int]
    algorithms: dict[str, list[dict[str, Any]]] = Field(
        description="Each algorithm's candidates, defaults filled in."
    )
    progress: SweepProgress
    leaderboard: Leaderboard | None
    created_at: dt.datetime
    finished_at: dt.datetime | None


class SweepSummary(BaseModel):
    """A sweep as GET /sweeps lists it, under 1 KB whatever its search: ids, status and progress.
    Its candidates, environments, seeds and leaderboard are on GET /sweeps/{id}."""

    id: str
    status: SweepStatus = Field(
        description="As last stored: a sweep whose trials have all finished says so (and gets its "
        "leaderboard) once it is read by id."
    )
    selection: Selection
    oracle: bool
    dataset_id: str | None
    task: Task
    algorithms: list[str] = Field(description="The algorithms searched.")
    n_seeds: int
    progress: SweepProgress
    created_at: dt.datetime
    finished_at: dt.datetime | None


class SweepsPublic(BaseModel):
    items: list[SweepSummary]
    next_cursor: str | None
