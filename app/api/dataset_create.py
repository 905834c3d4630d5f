"""Storing an uploaded table as a dataset, shared by ``POST /datasets`` and the commit of a
resumable upload (``/datasets/uploads``): the same limits, the same idempotency, the same answer."""

from __future__ import annotations

from fastapi.responses import JSONResponse
from sqlalchemy.orm import Session

from app.api import idempotency
from app.api.errors import UnprocessableEntity
from app.datasets import public as datasets_public
from app.datasets import service as datasets_service
from app.datasets import tables
from app.datasets.schemas import DatasetPublic
from app.datasets.streaming import StagedTable
from app.settings import Settings

__all__ = ["check_limits", "create"]


def check_limits(table: tables.Table | StagedTable, settings: Settings, multipart: bool) -> None:
    if table.n_rows > settings.max_rows:
        field = "file" if multipart else "environments"
        raise UnprocessableEntity.on(
            field, f"{table.n_rows} rows; datasets are limited to {settings.max_rows} (max_rows)"
        )
    if len(table.feature_names) > settings.max_features:
        field = "features" if multipart else "feature_names"
        raise UnprocessableEntity.on(
            field,
            f"{len(table.feature_names)} features; datasets are limited to {settings.max_features} (max_features)",
        )


def create(
    session: Session,
    tenant_id: str,
    table: tables.Table | StagedTable,
    name: str,
    key: str | None,
    settings: Settings,
) -> tuple[DatasetPublic, int] | JSONResponse:
    """Store the table (or find it) under the tenant; with an Idempotency-Key, once."""
    with idempotency.claim(
        session,
        tenant_id,
        key,
        "create_dataset",
        [table.sha256(), name],
        in_flight_s=settings.idempotency_in_flight_s,
    ) as claimed:
        if claimed.replay is not None:
            return claimed.replay
        dataset, created = datasets_service.store(session, tenant_id, table, name, settings=settings)
        public = datasets_public.dataset_public(
            dataset, datasets_service.upload_warnings(table, dataset, name, created)
        )
        status = 201 if created else 200
        claimed.complete(status, public.model_dump(mode="json"), f"/datasets/{dataset.id}")
        session.commit()
    return public, status
