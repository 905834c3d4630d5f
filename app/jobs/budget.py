"""A job's work budget: outer rounds × inner steps, known from its resolved parameters before it
runs, so one request cannot hold a worker for its whole time limit (``rounds=100000,
theta_steps=1000000`` is 1e11 steps).

    work(job)                          = rounds (1 without) × the largest of steps / theta_steps (1 without)
    work > max_job_work                -> 422 naming the parameters (a sweep's trials too)
    the tenant's queued and running    -> 429 with Retry-After: its backlog of work is full
    single jobs' work + this one's > max_tenant_work

``rounds="auto"`` counts as its largest schedule (800, SAL's exact path).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import JOB_ACTIVE, Job
from app.errors import TooManyRequests, UnprocessableEntity
from app.settings import Settings

__all__ = ["check", "check_job", "work"]

AUTO_ROUNDS = 800
STEP_PARAMS = ("steps", "theta_steps")


def _count(value: Any, auto: int) -> int:
    if isinstance(value, bool):
        return 1
    if isinstance(value, int):
        return max(value, 1)
    return auto if value is not None else 1


def work(params: Mapping[str, Any]) -> int:
    """The job's steps in total (see the module docstring)."""
    rounds = _count(params.get("rounds"), AUTO_ROUNDS)
    steps = max((_count(params.get(name), 1) for name in STEP_PARAMS), default=1)
    return rounds * steps


def check_job(params: Mapping[str, Any], limit: int, where: Callable[[str], str] | None = None) -> int:
    """The job's work; over ``limit`` a 422 on ``params.rounds`` (or the step parameter given).
    Every job is held to it, a sweep's trials too: ``where`` maps the parameter to the field of
    the request it came from."""
    need = work(params)
    if need > limit:
        named = [n for n in ("rounds", *STEP_PARAMS) if n in params]
        name = named[0] if named else "rounds"
        raise UnprocessableEntity.on(
            where(name) if where is not None else f"params.{name}",
            f"rounds x steps is {need}; one job may do {limit} (max_job_work): lower rounds or steps",
        )
    return need


def check(session: Session, settings: Settings, tenant_id: str, params: Mapping[str, Any]) -> None:
    """422 if the job alone is over ``max_job_work``; 429 if it would take the tenant's active
    single jobs over ``max_tenant_work``."""
    need = check_job(params, settings.max_job_work)
    rows = session.scalars(
        select(Job.params).where(
            Job.tenant_id == tenant_id, Job.status.in_(JOB_ACTIVE), Job.sweep_id.is_(None)
        )
    )
    queued = sum(work(p or {}) for p in rows)
    if queued + need > settings.max_tenant_work:
        raise TooManyRequests(
            f"this tenant's queued and running jobs hold {queued} steps of work and this one adds {need}; "
            f"a tenant may have {settings.max_tenant_work} (max_tenant_work): retry when some have finished",
            retry_after_s=settings.retry_after_s,
        )
