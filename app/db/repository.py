"""Every query the API and the worker make. Functions take a Session and never commit:
the caller commits once at its boundary (end of request, end of task step).

Lookups the API makes take the caller's ``tenant_id`` (required, keyword-only): another tenant's
row is None, exactly like a missing one. The worker, which acts for every tenant, passes None.
Tenants, keys and idempotency records are in ``app.db.tenancy``; leases and the reaper's queries
in ``app.db.leases``."""

from __future__ import annotations

import base64
import datetime as dt
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from sqlalchemy import CursorResult, String, and_, delete, func, or_, select, update
from sqlalchemy import cast as sa_cast
from sqlalchemy.orm import Session

from app.db.models import (
    JOB_ACTIVE,
    Dataset,
    Job,
    JobResultRow,
    JobStatus,
    OutboxRow,
    Sweep,
    Tenant,
    utcnow,
)

T = TypeVar("T", Dataset, Job, Sweep)


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
        # In UTC here, as the column is compared: 0001-01-01T00:00+14:00 has no UTC datetime.
        return when.astimezone(dt.UTC), id_
    except (ValueError, TypeError, OverflowError, json.JSONDecodeError):
        raise InvalidCursor("cursor is not one this service issued") from None


def cursor_after(row: Dataset | Job | Sweep) -> str:
    """The cursor of the page that starts after ``row`` (for a page cut short)."""
    return _encode_cursor(row.created_at, row.id)


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


def get_dataset(session: Session, dataset_id: str, *, tenant_id: str | None) -> Dataset | None:
    dataset = session.get(Dataset, dataset_id)
    if dataset is None or (tenant_id is not None and dataset.tenant_id != tenant_id):
        return None
    return dataset


def get_dataset_by_sha256(session: Session, sha256: str, *, tenant_id: str) -> Dataset | None:
    return session.scalar(select(Dataset).where(Dataset.tenant_id == tenant_id, Dataset.sha256 == sha256))


def add_dataset(session: Session, dataset: Dataset) -> Dataset:
    session.add(dataset)
    session.flush()
    return dataset


def list_datasets(session: Session, *, tenant_id: str, limit: int, cursor: str | None) -> Page[Dataset]:
    return _page(session, Dataset, [Dataset.tenant_id == tenant_id], limit, cursor)


def dataset_sha256(session: Session, dataset_id: str) -> str | None:
    return session.scalar(select(Dataset.sha256).where(Dataset.id == dataset_id))


def dataset_location(session: Session, dataset_id: str) -> tuple[str | None, str | None, bytes | None] | None:
    """Where the dataset's table is: (storage, storage_key, data), see app.datasets.objects."""
    row = session.execute(
        select(Dataset.storage, Dataset.storage_key, Dataset.data).where(Dataset.id == dataset_id)
    ).one_or_none()
    return None if row is None else (row[0], row[1], row[2])


def active_jobs_using(session: Session, dataset_id: str) -> int:
    return (
        session.scalar(
            select(func.count())
            .select_from(Job)
            .where(Job.dataset_id == dataset_id, Job.status.in_(JOB_ACTIVE))
        )
        or 0
    )


def jobs_using(session: Session, dataset_id: str, limit: int = 10) -> tuple[list[str], int]:
    """Up to ``limit`` ids of the jobs on the dataset (newest first) and how many there are."""
    ids = list(
        session.scalars(
            select(Job.id)
            .where(Job.dataset_id == dataset_id)
            .order_by(Job.created_at.desc(), Job.id.desc())
            .limit(limit)
        )
    )
    count = session.scalar(select(func.count()).select_from(Job).where(Job.dataset_id == dataset_id)) or 0
    return ids, count


def delete_dataset(session: Session, dataset_id: str, *, with_jobs: bool = False) -> None:
    """Delete the dataset; ``with_jobs`` deletes its jobs, their results and its sweeps too (the
    caller has checked none is active). Without it, jobs that remain keep a null dataset_id."""
    if with_jobs:
        delete_jobs(session, list(session.scalars(select(Job.id).where(Job.dataset_id == dataset_id))))
        session.execute(delete(Sweep).where(Sweep.dataset_id == dataset_id))
    session.execute(update(Job).where(Job.dataset_id == dataset_id).values(dataset_id=None))
    session.execute(delete(Dataset).where(Dataset.id == dataset_id))


# --- jobs -------------------------------------------------------------------------------------


def add_job(session: Session, job: Job) -> Job:
    session.add(job)
    session.flush()
    return job


def get_job(session: Session, job_id: str, *, tenant_id: str | None) -> Job | None:
    job = session.get(Job, job_id)
    if job is None or (tenant_id is not None and job.tenant_id != tenant_id):
        return None
    return job


def active_jobs_of(session: Session, tenant_id: str, *, sweep_trials: bool = False) -> int:
    """Queued plus running jobs of a tenant: its own jobs and reruns, or (``sweep_trials``) its
    sweeps' trials, two budgets. The tenant row stays locked until the caller commits
    (on SQLite: the database's write lock), so concurrent POST /jobs of one tenant count one after
    another and a cap holds exactly."""
    if session.get_bind().dialect.name == "sqlite":
        # SQLite ignores FOR UPDATE, and a read does not begin its transaction: a no-op write takes
        # the database's one write lock first, so concurrent counts happen one after another.
        session.execute(update(Tenant).where(Tenant.id == tenant_id).values(name=Tenant.name))
    else:
        # FOR NO KEY UPDATE: inserts that reference the tenant (its datasets, jobs) take key-share
        # locks on its row, which this does not block.
        session.execute(select(Tenant.id).where(Tenant.id == tenant_id).with_for_update(key_share=True))
    return (
        session.scalar(
            select(func.count())
            .select_from(Job)
            .where(
                Job.tenant_id == tenant_id,
                Job.status.in_(JOB_ACTIVE),
                Job.sweep_id.is_not(None) if sweep_trials else Job.sweep_id.is_(None),
            )
        )
        or 0
    )


# GET /jobs?sort=: a key, newest first within equal values; "-" sorts descending. Metrics come
# from the stored result's test summary; jobs without one sort last either way.
JOB_SORTS = ("created_at", "name", "mean_error", "std_error", "worst_error", "duration_s")
_METRIC_SORTS = ("mean_error", "std_error", "worst_error")


@dataclass(frozen=True)
class JobFilter:
    """GET /jobs's filters: each given one narrows the list."""

    status: str | None = None
    algorithm: str | None = None
    dataset_id: str | None = None
    sweep_id: str | None = None
    q: str | None = None  # a substring of the name or the description, any case
    tags: Sequence[str] = ()  # every one of them
    params: Sequence[tuple[str, Any]] = ()  # (name, value): params[name] == value
    max_mean_error: float | None = None


def _param_equals(name: str, value: Any) -> Any:
    field = Job.params[name]
    if isinstance(value, bool):
        return field.as_boolean() == value
    if isinstance(value, int | float):
        return field.as_float() == float(value)
    return field.as_string() == str(value)


def _summary_value(key: str) -> Any:
    if key == "duration_s":
        return JobResultRow.result["duration_s"].as_float()
    return JobResultRow.result["summary"][key].as_float()


def list_jobs(
    session: Session,
    *,
    tenant_id: str,
    limit: int,
    cursor: str | None,
    status: str | None = None,
    algorithm: str | None = None,
    dataset_id: str | None = None,
    where: JobFilter | None = None,
    sort: str = "-created_at",
) -> Page[Job]:
    """The tenant's jobs matching ``where`` (or the three simple filters), sorted by ``sort``
    (``JOB_SORTS``, "-" for descending). Newest first is keyset-paginated; other sorts page by
    position (their cursor says which sort it belongs to)."""
    f = where or JobFilter(status=status, algorithm=algorithm, dataset_id=dataset_id)
    filters: list[Any] = [Job.tenant_id == tenant_id]
    for column, value in (
        (Job.status, f.status),
        (Job.algorithm, f.algorithm),
        (Job.dataset_id, f.dataset_id),
        (Job.sweep_id, f.sweep_id),
    ):
        if value is not None:
            filters.append(column == value)
    if f.q:
        pattern = f.q.lower()
        filters.append(
            or_(
                func.lower(Job.name).contains(pattern, autoescape=True),
                func.lower(Job.description).contains(pattern, autoescape=True),
            )
        )
    for tag in f.tags:  # tags are words without quotes, so '"tag"' matches one whole element
        filters.append(sa_cast(Job.tags, String).contains(f'"{tag}"', autoescape=True))
    filters.extend(_param_equals(name, value) for name, value in f.params)
    by_result = [] if f.max_mean_error is None else [_summary_value("mean_error") <= f.max_mean_error]
    if sort == "-created_at":
        if by_result:
            filters.append(Job.id.in_(select(JobResultRow.job_id).where(*by_result)))
        return _page(session, Job, filters, limit, cursor)
    needs_result = bool(by_result) or sort.lstrip("-") in (*_METRIC_SORTS, "duration_s")
    return _sorted_page(session, [*filters, *by_result], limit, cursor, sort, needs_result)


def _sorted_page(
    session: Session, filters: list[Any], limit: int, cursor: str | None, sort: str, with_result: bool
) -> Page[Job]:
    key = sort.lstrip("-")
    if key not in JOB_SORTS:
        raise InvalidCursor(f"sort must be one of {', '.join(JOB_SORTS)}, each optionally with a leading '-'")
    offset = 0
    if cursor is not None:
        try:
            raw = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
            if not isinstance(raw, list) or raw[0] != sort or not isinstance(raw[1], int) or raw[1] < 0:
                raise ValueError
            offset = raw[1]
        except (ValueError, TypeError, IndexError, json.JSONDecodeError):
            raise InvalidCursor("cursor is not one this service issued for this sort") from None
    stmt = select(Job)
    if with_result:
        stmt = stmt.outerjoin(JobResultRow, JobResultRow.job_id == Job.id)
    column = Job.name if key == "name" else Job.created_at if key == "created_at" else _summary_value(key)
    order = column.desc() if sort.startswith("-") else column.asc()
    stmt = stmt.where(*filters).order_by(order.nulls_last(), Job.created_at.desc(), Job.id.desc())
    rows = list(session.scalars(stmt.offset(offset).limit(limit + 1)))
    more = len(rows) > limit
    token = base64.urlsafe_b64encode(json.dumps([sort, offset + limit]).encode()).decode().rstrip("=")
    return Page(rows[:limit], token if more else None)


def delete_jobs(session: Session, job_ids: Sequence[str]) -> None:
    """Delete the jobs with their results and undelivered outbox rows."""
    if not job_ids:
        return
    session.execute(delete(JobResultRow).where(JobResultRow.job_id.in_(job_ids)))
    session.execute(delete(OutboxRow).where(OutboxRow.job_id.in_(job_ids)))
    session.execute(delete(Job).where(Job.id.in_(job_ids)))


def get_result_document(session: Session, job_id: str) -> dict[str, Any] | None:
    """The job's stored result document as written (the job service reads it as a JobResult)."""
    return session.scalar(select(JobResultRow.result).where(JobResultRow.job_id == job_id))


def get_result_documents(session: Session, job_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    if not job_ids:
        return {}
    rows = session.execute(
        select(JobResultRow.job_id, JobResultRow.result).where(JobResultRow.job_id.in_(job_ids))
    )
    return {job_id: result for job_id, result in rows}


def get_summaries(session: Session, job_ids: Sequence[str]) -> dict[str, tuple[dict[str, Any] | None, float]]:
    """{job id: (the result's ``summary``, ``duration_s``)}, read out of the stored document by
    the database: a list of jobs never loads their histories."""
    if not job_ids:
        return {}
    rows = session.execute(
        select(
            JobResultRow.job_id,
            JobResultRow.result["summary"],
            JobResultRow.result["duration_s"].as_float(),
        ).where(JobResultRow.job_id.in_(job_ids))
    )
    return {job_id: (summary, duration) for job_id, summary, duration in rows}


def job_states(
    session: Session, job_ids: Sequence[str]
) -> dict[str, tuple[str, int, int | None, int, bool, dict[str, Any] | None]]:
    """{job id: (status, progress_step, progress_total, attempt, cancel requested, the latest
    round's metrics)}: what a watcher of the jobs sees change, in one query for every watched job."""
    if not job_ids:
        return {}
    rows = session.execute(
        select(
            Job.id,
            Job.status,
            Job.progress_step,
            Job.progress_total,
            Job.attempt,
            Job.cancel_requested_at.is_not(None),
            Job.progress_metrics,
        ).where(Job.id.in_(job_ids))
    )
    return {r[0]: (r[1], r[2], r[3], r[4], bool(r[5]), r[6]) for r in rows}


def get_weights(session: Session, job_id: str) -> tuple[bytes, str] | None:
    row = session.execute(
        select(JobResultRow.weights, JobResultRow.weights_sha256).where(JobResultRow.job_id == job_id)
    ).first()
    return None if row is None else (row[0], row[1])


def _rowcount(result: Any) -> int:
    assert isinstance(result, CursorResult)
    return result.rowcount


def _mine(job_id: str, attempt: int | None) -> list[Any]:
    """A running job, and (given an attempt) still the claim this worker made."""
    where = [Job.id == job_id, Job.status == JobStatus.RUNNING]
    if attempt is not None:
        where.append(Job.attempt == attempt)
    return where


def claim_job(session: Session, job_id: str, *, worker: str = "", lease_s: float = 60.0) -> int | None:
    """queued -> running, only if still queued: a duplicate delivery claims nothing. Returns the
    new attempt number (which fences this worker's later writes), recorded with its start and
    worker in ``attempts``; the lease runs ``lease_s`` from now."""
    now = utcnow()
    result = session.execute(
        update(Job)
        .where(Job.id == job_id, Job.status == JobStatus.QUEUED)
        .values(
            status=JobStatus.RUNNING,
            started_at=now,
            progress_step=0,
            progress_metrics=None,
            attempt=Job.attempt + 1,
            lease_expires_at=now + dt.timedelta(seconds=lease_s),
        )
    )
    if _rowcount(result) != 1:
        return None
    # The row is ours (locked on PostgreSQL, the one writer on SQLite) until the caller commits.
    job = session.get(Job, job_id, populate_existing=True)
    assert job is not None
    job.attempts = [*job.attempts, {"number": job.attempt, "started_at": now.isoformat(), "worker": worker}]
    session.flush()
    return job.attempt


def report_progress(
    session: Session,
    job_id: str,
    step: int,
    total: int,
    *,
    attempt: int | None = None,
    metrics: dict[str, Any] | None = None,
) -> bool:
    """Record progress and the latest round's ``metrics`` (replacing the previous round's);
    False when the fit should stop: the job is no longer running (cancelled while queued, or
    taken over after a lost lease) or a cancel was requested."""
    result = session.execute(
        update(Job)
        .where(*_mine(job_id, attempt), Job.cancel_requested_at.is_(None))
        .values(progress_step=step, progress_total=total, progress_metrics=metrics)
    )
    return _rowcount(result) == 1


def finish_job(
    session: Session,
    job_id: str,
    result: dict[str, Any],
    weights: bytes,
    weights_sha256: str,
    *,
    attempt: int | None = None,
) -> str | None:
    """running -> succeeded (or cancelled, when a cancel was requested: the partial result is kept)
    with its one result row; None if the job left `running` or another attempt owns it."""
    now = utcnow()
    for status, requested in ((JobStatus.SUCCEEDED, False), (JobStatus.CANCELLED, True)):
        pending = Job.cancel_requested_at.is_not(None) if requested else Job.cancel_requested_at.is_(None)
        # A cancelled fit keeps the step it stopped at; a finished one reached its total.
        step = Job.progress_step if requested else func.coalesce(Job.progress_total, Job.progress_step)
        updated = session.execute(
            update(Job)
            .where(*_mine(job_id, attempt), pending)
            .values(status=status, finished_at=now, lease_expires_at=None, progress_step=step)
        )
        if _rowcount(updated) == 1:
            session.add(
                JobResultRow(job_id=job_id, result=result, weights=weights, weights_sha256=weights_sha256)
            )
            session.flush()
            return status
    return None


def end_cancelled(session: Session, job_id: str, *, attempt: int | None = None) -> bool:
    """running with a cancel requested -> cancelled, with no result row: a fit stopped before it
    had a model to keep (a chunked fit cancelled in the passes before its solve). False if the job
    left `running`, another attempt owns it, or no cancel was requested."""
    result = session.execute(
        update(Job)
        .where(*_mine(job_id, attempt), Job.cancel_requested_at.is_not(None))
        .values(status=JobStatus.CANCELLED, finished_at=utcnow(), lease_expires_at=None)
    )
    return _rowcount(result) == 1


def fail_job(
    session: Session,
    job_id: str,
    error: dict[str, str],
    *,
    from_status: Sequence[str],
    attempt: int | None = None,
) -> bool:
    where = [Job.id == job_id, Job.status.in_(from_status)]
    if attempt is not None:
        where.append(Job.attempt == attempt)
    result = session.execute(
        update(Job)
        .where(*where)
        .values(status=JobStatus.FAILED, finished_at=utcnow(), error=error, lease_expires_at=None)
    )
    return _rowcount(result) == 1


def cancel_job(session: Session, job_id: str, *, tenant_id: str) -> tuple[Job | None, str]:
    """A queued job is cancelled at once ("cancelled"); a running one is asked to stop at its next
    progress checkpoint ("requested"); a finished one is left as it is ("unchanged")."""
    now = utcnow()
    mine = [Job.id == job_id, Job.tenant_id == tenant_id]
    done = session.execute(
        update(Job)
        .where(*mine, Job.status == JobStatus.QUEUED)
        .values(status=JobStatus.CANCELLED, finished_at=now, cancel_requested_at=now)
    )
    outcome = "cancelled"
    if _rowcount(done) != 1:
        session.execute(
            update(Job)
            .where(*mine, Job.status == JobStatus.RUNNING, Job.cancel_requested_at.is_(None))
            .values(cancel_requested_at=now)
        )
        outcome = "unchanged"
    job = session.get(Job, job_id, populate_existing=True)
    if job is None or job.tenant_id != tenant_id:
        return None, outcome
    if outcome == "unchanged" and job.status == JobStatus.RUNNING:
        outcome = "requested"
    return job, outcome


def record_runtime(session: Session, job_id: str, runtime: dict[str, Any]) -> None:
    """Where the job runs: the worker's resolved device and package versions (reproducibility)."""
    session.execute(update(Job).where(Job.id == job_id).values(runtime=runtime))
