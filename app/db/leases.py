"""Queries for crash recovery: a running job's lease, and what the reaper finds and fixes.

Every change is a conditional UPDATE on what the reader saw (status, attempt, an expired lease),
so any number of reapers in any number of workers may run at once: exactly one of them wins each
change. Like ``app.db.repository``, functions take a Session and never commit.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, or_, select, update
from sqlalchemy.orm import Session

from app.db.models import Job, JobStatus


def _changed(result: Any) -> bool:
    return bool(getattr(result, "rowcount", 0) == 1)


def renew_lease(session: Session, job_id: str, attempt: int, now: dt.datetime, lease_s: float) -> bool:
    """The heartbeat: False once the job is not this attempt's running job any more."""
    result = session.execute(
        update(Job)
        .where(Job.id == job_id, Job.status == JobStatus.RUNNING, Job.attempt == attempt)
        .values(lease_expires_at=now + dt.timedelta(seconds=lease_s))
    )
    return _changed(result)


@dataclass(frozen=True)
class Expired:
    """A running job whose worker is gone: its lease expired or, with ``holder_gone``, its
    holder is provably dead (see worker.leases.holder_gone)."""

    id: str
    attempt: int
    queue: str
    started_at: dt.datetime | None
    cancel_requested: bool
    holder_gone: bool = False
    sweep_id: str | None = None  # a sweep's trial is sent again at the bulk priority


def expired_leases(session: Session, now: dt.datetime, *, lease_s: float, limit: int = 100) -> list[Expired]:
    """Running jobs whose worker stopped renewing their lease (a row claimed before leases
    existed counts from its start)."""
    rows = session.execute(
        select(Job.id, Job.attempt, Job.queue, Job.started_at, Job.cancel_requested_at, Job.sweep_id)
        .where(
            Job.status == JobStatus.RUNNING,
            or_(
                Job.lease_expires_at < now,
                and_(Job.lease_expires_at.is_(None), Job.started_at < now - dt.timedelta(seconds=lease_s)),
            ),
        )
        .limit(limit)
    )
    return [Expired(r[0], r[1], r[2], r[3], r[4] is not None, sweep_id=r[5]) for r in rows]


def _still_expired(job: Expired, now: dt.datetime) -> list[Any]:
    where = [Job.id == job.id, Job.status == JobStatus.RUNNING, Job.attempt == job.attempt]
    if not job.holder_gone:
        where.append(or_(Job.lease_expires_at < now, Job.lease_expires_at.is_(None)))
    return where


def holder(session: Session, job_id: str) -> tuple[Expired, str] | None:
    """A running job and the worker ("host:pid") of its current attempt; None if not running."""
    job = session.get(Job, job_id, populate_existing=True)
    if job is None or job.status != JobStatus.RUNNING or not job.attempts:
        return None
    expired = Expired(
        job.id,
        job.attempt,
        job.queue,
        job.started_at,
        job.cancel_requested_at is not None,
        holder_gone=True,
        sweep_id=job.sweep_id,
    )
    return expired, str(job.attempts[-1].get("worker", ""))


def queued_on(
    session: Session, queues: list[str], older_than: dt.datetime, *, limit: int = 100
) -> list[tuple[str, str, dt.datetime | None, str | None]]:
    """Queued jobs on ``queues`` last sent before ``older_than``, oldest first:
    (id, queue, enqueued_at, sweep_id)."""
    rows = session.execute(
        select(Job.id, Job.queue, Job.enqueued_at, Job.sweep_id)
        .where(Job.status == JobStatus.QUEUED, Job.queue.in_(queues), Job.enqueued_at < older_than)
        .order_by(Job.created_at)
        .limit(limit)
    )
    return [(r[0], r[1], r[2], r[3]) for r in rows]


def requeue_expired(session: Session, job: Expired, now: dt.datetime) -> bool:
    """running -> queued for another attempt; the caller sends the id again after committing."""
    result = session.execute(
        update(Job)
        .where(*_still_expired(job, now))
        .values(status=JobStatus.QUEUED, lease_expires_at=None, enqueued_at=now, progress_step=0)
    )
    return _changed(result)


def end_expired(
    session: Session, job: Expired, now: dt.datetime, status: str, error: dict[str, str] | None
) -> bool:
    """running -> a terminal status (failed with ``error``, or cancelled)."""
    result = session.execute(
        update(Job)
        .where(*_still_expired(job, now))
        .values(status=status, finished_at=now, lease_expires_at=None, error=error)
    )
    return _changed(result)


def unclaimed(
    session: Session, older_than: dt.datetime, *, limit: int = 100
) -> list[tuple[str, str, dt.datetime | None, str | None]]:
    """Queued jobs sent before ``older_than`` that no worker claimed: (id, queue, enqueued_at, sweep_id)."""
    rows = session.execute(
        select(Job.id, Job.queue, Job.enqueued_at, Job.sweep_id)
        .where(
            Job.status == JobStatus.QUEUED,
            or_(Job.enqueued_at < older_than, and_(Job.enqueued_at.is_(None), Job.created_at < older_than)),
        )
        .order_by(Job.created_at)
        .limit(limit)
    )
    return [(r[0], r[1], r[2], r[3]) for r in rows]


def mark_resent(session: Session, job_id: str, seen: dt.datetime | None, now: dt.datetime) -> bool:
    """Take the re-send of a queued job: only one reaper wins it for each ``enqueued_at`` seen."""
    same = Job.enqueued_at.is_(None) if seen is None else Job.enqueued_at == seen
    result = session.execute(
        update(Job).where(Job.id == job_id, Job.status == JobStatus.QUEUED, same).values(enqueued_at=now)
    )
    return _changed(result)
