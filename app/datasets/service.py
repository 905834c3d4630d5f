"""Datasets below the routes: store a table content-addressed under its tenant."""

from __future__ import annotations

import uuid

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.datasets import tables
from app.db import repository as repo
from app.db.models import Dataset


def store(session: Session, tenant_id: str, table: tables.Table, name: str) -> tuple[Dataset, bool]:
    """The tenant's dataset with this table's content, stored (and committed) unless it already
    was; True when it is new."""
    sha = table.sha256()
    existing = repo.get_dataset_by_sha256(session, sha, tenant_id=tenant_id)
    if existing is not None:
        return existing, False
    data = table.to_parquet()
    dataset = Dataset(
        id=str(uuid.uuid4()),
        tenant_id=tenant_id,
        name=name,
        sha256=sha,
        n_rows=table.n_rows,
        feature_names=list(table.feature_names),
        target=table.target,
        environments=table.summary(),
        size_bytes=len(data),
        data=data,
    )
    try:
        repo.add_dataset(session, dataset)
        session.commit()
    except IntegrityError:
        # The same content was stored concurrently: return that one.
        session.rollback()
        existing = repo.get_dataset_by_sha256(session, sha, tenant_id=tenant_id)
        if existing is None:
            raise
        return existing, False
    return dataset, True
