"""Every query about sweeps. Like app.db.repository: functions take a Session and never commit."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from app.db import repository as repo
from app.db.models import Job, JobStatus, Sweep, SweepStatus, utcnow

STATUSES: tuple[str, ...] = tuple(s.value for s in JobStatus)  # a sweep's trials, counted by status


def add_sweep(session: Session, sweep: Sweep, jobs: Sequence[Job]) -> Sweep:
    session.add(sweep)
    session.flush()
    session.add_all(jobs)
    session.flush()
    return sweep


def get_sweep(session: Session, sweep_id: str, *, tenant_id: str) -> Sweep | None:
    """Another tenant's sweep is None, exactly like a missing one."""
    sweep = session.get(Sweep, sweep_id)
    return sweep if sweep is not None and sweep.tenant_id == tenant_id else None


def list_sweeps(session: Session, *, tenant_id: str, limit: int, cursor: str | None) -> repo.Page[Sweep]:
    return repo._page(session, Sweep, [Sweep.tenant_id == tenant_id], limit, cursor)


def progress(session: Session, sweep_ids: Sequence[str]) -> dict[str, dict[str, int]]:
    """{sweep_id: {status: trials}} with every status present."""
    out = {sid: dict.fromkeys(STATUSES, 0) for sid in sweep_ids}
    if not sweep_ids:
        return out
    rows = session.execute(
        select(Job.sweep_id, Job.status, func.count())
        .where(Job.sweep_id.in_(sweep_ids))
        .group_by(Job.sweep_id, Job.status)
    )
    for sweep_id, status, count in rows:
        out[str(sweep_id)][status] = int(count)
    return out


def trials(session: Session, sweep_id: str) -> list[Job]:
    return list(session.scalars(select(Job).where(Job.sweep_id == sweep_id).order_by(Job.created_at, Job.id)))


def finish(session: Session, sweep_id: str, status: str, leaderboard: dict[str, Any] | None) -> bool:
    """running -> succeeded/failed with its leaderboard, once (a concurrent GET computes the same)."""
    result = session.execute(
        update(Sweep)
        .where(Sweep.id == sweep_id, Sweep.status == SweepStatus.RUNNING)
        .values(status=status, leaderboard=leaderboard, finished_at=utcnow())
    )
    return repo._rowcount(result) == 1


def cancel(session: Session, sweep_id: str) -> bool:
    """running -> cancelled, and its trials with it as ``POST /jobs/{id}/cancel`` does: a queued
    trial is cancelled at once, a running one is asked to stop at its next progress checkpoint."""
    result = session.execute(
        update(Sweep)
        .where(Sweep.id == sweep_id, Sweep.status == SweepStatus.RUNNING)
        .values(status=SweepStatus.CANCELLED, finished_at=utcnow())
    )
    if repo._rowcount(result) != 1:
        return False
    now = utcnow()
    session.execute(
        update(Job)
        .where(Job.sweep_id == sweep_id, Job.status == JobStatus.QUEUED)
        .values(status=JobStatus.CANCELLED, finished_at=now, cancel_requested_at=now)
    )
    session.execute(
        update(Job)
        .where(Job.sweep_id == sweep_id, Job.status == JobStatus.RUNNING, Job.cancel_requested_at.is_(None))
        .values(cancel_requested_at=now)
    )
    return True
