"""Queries of the transactional outbox (see app.jobs.outbox). Like ``app.db.repository``,
functions take a Session and never commit; each change is conditional on what the reader saw,
so any number of relays may run at once."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from app.db.models import OutboxRow


def add(session: Session, job_id: str, queue: str, priority: int, now: dt.datetime) -> None:
    session.add(
        OutboxRow(
            job_id=job_id, queue=queue, priority=priority, attempts=0, next_attempt_at=now, created_at=now
        )
    )


def due(
    session: Session,
    now: dt.datetime,
    *,
    job_ids: Sequence[str] | None = None,
    queues: Sequence[str] | None = None,
    limit: int = 100,
) -> list[tuple[str, str, int, int]]:
    """Rows whose next attempt is due, oldest first: (job_id, queue, priority, attempts); only
    ``job_ids``' or only those bound for ``queues`` where given."""
    stmt = select(OutboxRow.job_id, OutboxRow.queue, OutboxRow.priority, OutboxRow.attempts).where(
        OutboxRow.next_attempt_at <= now
    )
    if job_ids is not None:
        stmt = stmt.where(OutboxRow.job_id.in_(job_ids))
    if queues is not None:
        stmt = stmt.where(OutboxRow.queue.in_(queues))
    rows = session.execute(stmt.order_by(OutboxRow.created_at).limit(limit))
    return [(r[0], r[1], r[2], r[3]) for r in rows]


def take(session: Session, job_id: str, seen_attempts: int, retry_at: dt.datetime) -> bool:
    """Take one delivery attempt: only one relay wins it for each ``attempts`` seen; the row is
    due again at ``retry_at`` unless the send succeeds and ``sent`` deletes it."""
    result = session.execute(
        update(OutboxRow)
        .where(OutboxRow.job_id == job_id, OutboxRow.attempts == seen_attempts)
        .values(attempts=seen_attempts + 1, next_attempt_at=retry_at)
    )
    return bool(getattr(result, "rowcount", 0) == 1)


def sent(session: Session, job_id: str) -> None:
    session.execute(delete(OutboxRow).where(OutboxRow.job_id == job_id))


def pending(session: Session) -> int:
    return len(session.scalars(select(OutboxRow.job_id).limit(10_000)).all())
