"""Every query the API and the worker make. Functions take a Session and never commit:
the caller commits once at its boundary (end of request, end of task step)."""

from __future__ import annotations

import base64
import datetime as dt
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from sqlalchemy import CursorResult, and_, delete, func, or_, select, update
from sqlalchemy.orm import Session

from app.db.models import Dataset, Job, JobResult, JobStatus, utcnow

T = TypeVar("T", Dataset, Job)


class InvalidCursor(ValueError):
    pass


@dataclass(frozen=True)
class Page(Generic[T]):
    items: list[T]
    next_cursor: str | None


def _encode_cursor(created_at: dt.datetime, id_: str) -> str:
    raw = json.dumps([created_at.isoformat(), id_]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_cursor(cursor: str) -> tuple[dt.datetime, str]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        created, id_ = json.loads(raw)
        when = dt.datetime.fromisoformat(created)
        if when.tzinfo is None or not isinstance(id_, str):
            raise ValueError
        return when, id_
    except (ValueError, TypeError, json.JSONDecodeError):
        raise InvalidCursor("cursor is not one this service issued") from None


def _page(session: Session, model: type[T], filters: list[Any], limit: int, cursor: str | None) -> Page[T]:
    """Newest first, keyset-paginated on (created_at, id)."""
    stmt = select(model).where(*filters)
    if cursor is not None:
        when, id_ = _decode_cursor(cursor)
        stmt = stmt.where(or_(model.created_at < when, and_(model.created_at == when, model.id < id_)))
    rows = list(session.scalars(stmt.order_by(model.created_at.desc(), model.id.desc()).limit(limit + 1)))
    more = len(rows) > limit
    rows = rows[:limit]
    return Page(rows, _encode_cursor(rows[-1].created_at, rows[-1].id) if more and rows else None)


# --- datasets ---------------------------------------------------------------------------------


def get_dataset(session: Session, dataset_id: str) -> Dataset | None:
    return session.get(Dataset, dataset_id)


def get_dataset_by_sha256(session: Session, sha256: str) -> Dataset | None:
    return session.scalar(select(Dataset).where(Dataset.sha256 == sha256))


def add_dataset(session: Session, dataset: Dataset) -> Dataset:
    session.add(dataset)
    session.flush()
    return dataset


def list_datasets(session: Session, *, limit: int, cursor: str | None) -> Page[Dataset]:
    return _page(session, Dataset, [], limit, cursor)


def dataset_sha256(session: Session, dataset_id: str) -> str | None:
    return session.scalar(select(Dataset.sha256).where(Dataset.id == dataset_id))


def dataset_bytes(session: Session, dataset_id: str) -> bytes | None:
    return session.scalar(select(Dataset.data).where(Dataset.id == dataset_id))


def active_jobs_using(session: Session, dataset_id: str) -> int:
    return session.scalar(
        select(func.count()).select_from(Job).where(Job.dataset_id == dataset_id, Job.status.in_(JobStatus.ACTIVE))
    ) or 0


def delete_dataset(session: Session, dataset_id: str) -> None:
    # Finished jobs keep their results; their dataset_id becomes null.
    session.execute(update(Job).where(Job.dataset_id == dataset_id).values(dataset_id=None))
    session.execute(delete(Dataset).where(Dataset.id == dataset_id))


# --- jobs -------------------------------------------------------------------------------------


def add_job(session: Session, job: Job) -> Job:
    session.add(job)
    session.flush()
    return job


def get_job(session: Session, job_id: str) -> Job | None:
    return session.get(Job, job_id)


def list_jobs(
    session: Session,
    *,
    limit: int,
    cursor: str | None,
    status: str | None = None,
    algorithm: str | None = None,
    dataset_id: str | None = None,
) -> Page[Job]:
    filters = []
    if status is not None:
        filters.append(Job.status == status)
    if algorithm is not None:
        filters.append(Job.algorithm == algorithm)
    if dataset_id is not None:
        filters.append(Job.dataset_id == dataset_id)
    return _page(session, Job, filters, limit, cursor)


def get_result(session: Session, job_id: str) -> dict[str, Any] | None:
    return session.scalar(select(JobResult.result).where(JobResult.job_id == job_id))


def get_results(session: Session, job_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    if not job_ids:
        return {}
    rows = session.execute(select(JobResult.job_id, JobResult.result).where(JobResult.job_id.in_(job_ids)))
    return {job_id: result for job_id, result in rows}


def get_weights(session: Session, job_id: str) -> tuple[bytes, str] | None:
    row = session.execute(
        select(JobResult.weights, JobResult.weights_sha256).where(JobResult.job_id == job_id)
    ).first()
    return None if row is None else (row[0], row[1])


def _rowcount(result: Any) -> int:
    assert isinstance(result, CursorResult)
    return result.rowcount


def claim_job(session: Session, job_id: str) -> bool:
    """queued -> running, only if still queued: a duplicate delivery claims nothing."""
    result = session.execute(
        update(Job)
        .where(Job.id == job_id, Job.status == JobStatus.QUEUED)
        .values(status=JobStatus.RUNNING, started_at=utcnow(), progress_step=0)
    )
    return _rowcount(result) == 1


def report_progress(session: Session, job_id: str, step: int, total: int) -> bool:
    """Record progress; False when the job is no longer running (cancelled or taken over)."""
    result = session.execute(
        update(Job)
        .where(Job.id == job_id, Job.status == JobStatus.RUNNING)
        .values(progress_step=step, progress_total=total)
    )
    return _rowcount(result) == 1


def finish_job(session: Session, job_id: str, result: dict[str, Any], weights: bytes, weights_sha256: str) -> bool:
    """running -> succeeded with its one result row; nothing if the job left `running` meanwhile."""
    updated = session.execute(
        update(Job)
        .where(Job.id == job_id, Job.status == JobStatus.RUNNING)
        .values(status=JobStatus.SUCCEEDED, finished_at=utcnow(), progress_step=Job.progress_total)
    )
    if _rowcount(updated) != 1:
        return False
    session.add(JobResult(job_id=job_id, result=result, weights=weights, weights_sha256=weights_sha256))
    session.flush()
    return True


def fail_job(session: Session, job_id: str, error: dict[str, str], *, from_status: Sequence[str]) -> bool:
    result = session.execute(
        update(Job)
        .where(Job.id == job_id, Job.status.in_(from_status))
        .values(status=JobStatus.FAILED, finished_at=utcnow(), error=error)
    )
    return _rowcount(result) == 1
