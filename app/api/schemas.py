"""Bodies of the service's own endpoints (GET /algorithms, health). Each domain's bodies live in
that domain: app.jobs.schemas, app.datasets.schemas, app.sweeps.schemas."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel


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
