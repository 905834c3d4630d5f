"""Erasing a tenant, for ``DELETE /admin/tenants/{name}`` and ``python -m app.admin tenants erase``.
Commits: the rows go in one transaction, then the dataset objects they pointed to."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.datasets import objects, resumable
from app.db import erase, tenancy
from app.db.models import DEFAULT_TENANT_NAME, Dataset, Job
from app.errors import Conflict, NotFound
from app.settings import Settings


def erase_tenant(session: Session, name: str, settings: Settings | None = None) -> dict[str, int]:
    """Erase the tenant ``name`` and commit, then its datasets' objects; {table: rows deleted}.
    404 for an unknown tenant, 409 for the default one and while its jobs run."""
    tenant_id = tenancy.tenant_id_of(session, name)
    if tenant_id is None:
        raise NotFound(f"no tenant {name!r}")
    if name == DEFAULT_TENANT_NAME:
        raise Conflict("the default tenant (single-user mode's) cannot be erased; delete its data instead")
    running = erase.active_jobs(session, Job.tenant_id == tenant_id, Job.status == "running")
    if running:
        raise Conflict(f"{running} of the tenant's jobs are running; cancel them first")
    stored = session.execute(
        select(Dataset.storage, Dataset.storage_key).where(
            Dataset.tenant_id == tenant_id, Dataset.storage.is_not(None)
        )
    ).all()
    counts = erase.erase_tenant(session, tenant_id)
    session.commit()
    if settings is not None:  # after the commit: a failure leaves an orphan object, never a dangling row
        for storage, key in stored:
            objects.remove(settings, storage, key)
        resumable.erase_tenant(settings, tenant_id)  # uploads not committed yet
    return counts
