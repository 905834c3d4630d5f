"""Datasets as the API shows them, read by id or a page at a time; validated from the row
(``from_attributes``). Another tenant's dataset is a 404, like a missing one."""

from __future__ import annotations

from sqlalchemy.orm import Session

from app.datasets.schemas import DatasetPublic, DatasetsPublic, DatasetSummary
from app.db import repository as repo
from app.db.models import Dataset
from app.errors import NotFound, UnprocessableEntity

__all__ = ["dataset_public", "get_dataset", "list_datasets"]


def dataset_public(dataset: Dataset, warnings: list[str] | None = None) -> DatasetPublic:
    public = DatasetPublic.model_validate(dataset, from_attributes=True)
    public.warnings = list(warnings or [])
    return public


def get_dataset(session: Session, dataset_id: str, tenant_id: str) -> DatasetPublic:
    dataset = repo.get_dataset(session, dataset_id, tenant_id=tenant_id)
    if dataset is None:
        raise NotFound(f"no dataset {dataset_id}")
    return dataset_public(dataset)


def list_datasets(session: Session, tenant_id: str, limit: int, cursor: str | None) -> DatasetsPublic:
    """A page of the tenant's datasets, newest first, each a summary."""
    try:
        page = repo.list_datasets(session, tenant_id=tenant_id, limit=limit, cursor=cursor)
    except repo.InvalidCursor as exc:
        raise UnprocessableEntity.on("cursor", str(exc)) from None
    return DatasetsPublic(
        items=[DatasetSummary.model_validate(d, from_attributes=True) for d in page.items],
        next_cursor=page.next_cursor,
    )
