"""Deletion that deletes: a sweep with its trials, or a whole tenant, and every row derived from
them (results, weights, outbox rows, idempotency records), in explicit statements rather than
trusting every database to cascade. Like ``app.db.repository``, functions take a Session and
never commit; each returns {table: rows deleted}."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import ColumnElement, delete, func, literal, or_, select
from sqlalchemy.orm import Session

from app.db.models import (
    JOB_ACTIVE,
    ApiKey,
    Dataset,
    IdempotencyKey,
    Job,
    JobResultRow,
    OutboxRow,
    Sweep,
    Tenant,
)

__all__ = ["active_jobs", "delete_sweep", "erase_tenant", "forget_dataset", "forget_jobs"]


def _rows(result: object) -> int:
    return int(getattr(result, "rowcount", 0) or 0)


def active_jobs(session: Session, *where: ColumnElement[bool]) -> int:
    """Queued or running jobs matching ``where``: deleting them under a worker is refused."""
    return int(
        session.scalar(select(func.count()).select_from(Job).where(Job.status.in_(JOB_ACTIVE), *where)) or 0
    )


def _delete_jobs(session: Session, *where: ColumnElement[bool]) -> dict[str, int]:
    ids = select(Job.id).where(*where)
    return {
        "job_results": _rows(session.execute(delete(JobResultRow).where(JobResultRow.job_id.in_(ids)))),
        "outbox": _rows(session.execute(delete(OutboxRow).where(OutboxRow.job_id.in_(ids)))),
        "jobs": _rows(session.execute(delete(Job).where(*where))),
    }


def _forget_locations(session: Session, tenant_id: str, locations: Sequence[str]) -> int:
    """Idempotency records whose response created one of ``locations``."""
    if not locations:
        return 0
    return _rows(
        session.execute(
            delete(IdempotencyKey).where(
                IdempotencyKey.tenant_id == tenant_id, IdempotencyKey.location.in_(list(locations))
            )
        )
    )


def forget_jobs(session: Session, tenant_id: str, job_ids: Sequence[str]) -> int:
    """Before the jobs are deleted: the idempotency records that created them (their stored answer
    holds the job's names and environments)."""
    return _forget_locations(session, tenant_id, [f"/jobs/{i}" for i in job_ids])


def forget_dataset(session: Session, tenant_id: str, dataset_id: str, *, with_jobs: bool) -> int:
    """Before the dataset is deleted: the idempotency record of its upload and, ``with_jobs`` (a
    cascade), those of the jobs and sweeps on it."""
    made = [IdempotencyKey.location == f"/datasets/{dataset_id}"]
    if with_jobs:
        jobs = select(literal("/jobs/") + Job.id).where(Job.dataset_id == dataset_id)
        sweeps = select(literal("/sweeps/") + Sweep.id).where(Sweep.dataset_id == dataset_id)
        made += [IdempotencyKey.location.in_(jobs), IdempotencyKey.location.in_(sweeps)]
    return _rows(
        session.execute(delete(IdempotencyKey).where(IdempotencyKey.tenant_id == tenant_id, or_(*made)))
    )


def delete_sweep(session: Session, sweep: Sweep) -> dict[str, int]:
    """The sweep, its trial jobs with their results and outbox rows, and the idempotency records
    that point at any of them."""
    trial_ids = list(session.scalars(select(Job.id).where(Job.sweep_id == sweep.id)))
    locations = [f"/sweeps/{sweep.id}", *(f"/jobs/{i}" for i in trial_ids)]
    counts = {"idempotency_keys": _forget_locations(session, sweep.tenant_id, locations)}
    counts |= _delete_jobs(session, Job.sweep_id == sweep.id)
    counts["sweeps"] = _rows(session.execute(delete(Sweep).where(Sweep.id == sweep.id)))
    return counts


def erase_tenant(session: Session, tenant_id: str) -> dict[str, int]:
    """Every row of the tenant: jobs (results, outbox), sweeps, datasets, idempotency records,
    API keys, and the tenant itself."""
    counts = _delete_jobs(session, Job.tenant_id == tenant_id)
    for name, model in (
        ("sweeps", Sweep),
        ("datasets", Dataset),
        ("idempotency_keys", IdempotencyKey),
        ("api_keys", ApiKey),
    ):
        counts[name] = _rows(session.execute(delete(model).where(model.tenant_id == tenant_id)))
    counts["tenants"] = _rows(session.execute(delete(Tenant).where(Tenant.id == tenant_id)))
    return counts
