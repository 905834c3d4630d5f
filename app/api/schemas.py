"""Bodies of the service's own endpoints (GET /algorithms, health). Each domain's bodies live in
that domain: app.jobs.schemas, app.datasets.schemas, app.sweeps.schemas."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from sal_core import Algorithm


class ParamPublic(BaseModel):
    # One hyper-parameter as sal_core declares it (sal_core.params.ParamSpec); a docstring here
    # would become the schema's description.
    model_config = ConfigDict(from_attributes=True)

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

    @classmethod
    def of(cls, name: str, algorithm: type[Algorithm]) -> AlgorithmPublic:  # type: ignore[type-arg]
        """A registered algorithm with its parameters, defaults, ranges and docs."""
        return cls(
            name=name,
            summary=algorithm.summary,
            min_environments=algorithm.min_environments,
            linear_only=algorithm.linear_only,
            params=[ParamPublic.model_validate(spec) for spec in algorithm.params_type.describe()],
        )


class Health(BaseModel):
    status: Literal["ok"]


class Readiness(BaseModel):
    database: Literal["ok"]
    broker: Literal["ok"]
