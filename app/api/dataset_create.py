"""Storing an uploaded table as a dataset, below the routes of ``POST /datasets`` (a multipart
file or a JSON body), ``POST /datasets/references`` and the commit of a resumable upload
(``/datasets/uploads``): the same limits, the same idempotency, the same answer. Each upload first
passes the process's ``UploadGate`` (app.datasets.uploads): the tenant's quota, then a parse slot.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import ValidationError
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData, UploadFile

from app.api import idempotency
from app.api.deps import declared_length
from app.api.errors import PayloadTooLarge, UnprocessableEntity
from app.datasets import public as datasets_public
from app.datasets import references, resumable, streaming, tables
from app.datasets import service as datasets_service
from app.datasets.schemas import DatasetCreate, DatasetPublic, UploadCommit
from app.datasets.streaming import StagedTable
from app.datasets.uploads import UploadGate
from app.settings import Settings

__all__ = [
    "answer",
    "check_limits",
    "commit_upload",
    "create",
    "from_request",
    "limits_of",
    "register_reference",
]

Created = tuple[DatasetPublic, int] | JSONResponse  # the dataset and 201 or 200, or a replay


def limits_of(settings: Settings) -> tables.Limits:
    """A file's shape, checked before it is decoded. A file may carry columns it does not use
    (features= picks some): twice max_features, plus target and environment; max_cells bounds
    what decoding costs."""
    return tables.Limits(
        max_rows=settings.max_rows, max_columns=2 * settings.max_features + 2, max_cells=settings.max_cells
    )


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
) -> Created:
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


def answer(created: Created, response: Response) -> DatasetPublic | JSONResponse:
    """The route's answer: the dataset with its status and Location, or the replayed response."""
    if isinstance(created, JSONResponse):
        return created
    public, response.status_code = created
    response.headers["Location"] = f"/datasets/{public.id}"
    return public


@asynccontextmanager
async def _admitted(gate: UploadGate, tenant_id: str) -> AsyncIterator[None]:
    """The tenant's dataset quota (409), then one of the process's parse slots (429, 503)."""
    await run_in_threadpool(gate.check_quota, tenant_id)
    async with gate.slot(tenant_id):
        yield


async def from_request(
    request: Request, session: Session, settings: Settings, gate: UploadGate, tenant_id: str, key: str | None
) -> Created:
    """POST /datasets: parse either body form, check its limits, store it."""
    async with _admitted(gate, tenant_id):
        table, name = await read_upload(
            request, settings.max_upload_bytes, limits_of(settings), settings.upload_chunk_bytes
        )
        try:
            check_limits(table, settings, request.headers.get("content-type", "").startswith("multipart/"))
            return await run_in_threadpool(create, session, tenant_id, table, name, key, settings)
        finally:
            if isinstance(table, StagedTable):
                await run_in_threadpool(table.close)


async def register_reference(
    session: Session, settings: Settings, gate: UploadGate, tenant_id: str, body: references.DatasetReference
) -> Created:
    """POST /datasets/references: Parquet files already in a bucket, checked, then stored."""
    async with _admitted(gate, tenant_id):
        dataset, created, warnings = await run_in_threadpool(
            references.register, session, tenant_id, body, settings
        )
    return datasets_public.dataset_public(dataset, warnings), 201 if created else 200


async def commit_upload(
    session: Session,
    settings: Settings,
    gate: UploadGate,
    tenant_id: str,
    upload_id: str,
    body: UploadCommit,
    key: str | None,
) -> Created:
    """POST /datasets/uploads/{id}/commit: the complete file, parsed and stored as POST /datasets
    stores one."""
    async with _admitted(gate, tenant_id):
        return await run_in_threadpool(_commit, session, settings, tenant_id, upload_id, body, key)


def _commit(
    session: Session, settings: Settings, tenant_id: str, upload_id: str, body: UploadCommit, key: str | None
) -> Created:
    with resumable.locked(settings, tenant_id, upload_id, "upload_id") as upload:
        if upload.dataset_id is not None:  # committed before (the answer may have been lost)
            return datasets_public.get_dataset(session, upload.dataset_id, tenant_id), 200
        with resumable.commit_file(settings, upload) as file:
            staged = streaming.parse_file(
                file,
                filename=upload.filename,
                target=body.target,
                environment=body.environment,
                features=body.features,
                limits=limits_of(settings),
                chunk_bytes=settings.upload_chunk_bytes,
            )
        name = tables.check_text((body.name or upload.filename or "dataset")[:255], "name")
        try:
            check_limits(staged, settings, multipart=True)
            created = create(session, tenant_id, staged, name, key, settings)
        finally:
            staged.close()
        # Only a dataset stored (or found) ends the upload: a 422 on the columns can be committed
        # again with other fields, without sending the file again.
        if not isinstance(created, JSONResponse):
            resumable.committed(settings, upload, created[0].id)
    return created


async def read_upload(
    request: Request, max_bytes: int, limits: tables.Limits | None = None, chunk_bytes: int = 4 << 20
) -> tuple[tables.Table | StagedTable, str]:
    """Parse either body form into the canonical table; returns it with the default name. A
    file's shape is checked against ``limits`` before it is decoded; a file is parsed
    ``chunk_bytes`` at a time into a table staged on disk (the caller closes it)."""
    declared = declared_length(request)
    if declared is not None and declared > max_bytes:
        raise PayloadTooLarge(f"uploads are limited to {max_bytes} bytes")
    content_type = request.headers.get("content-type", "")
    if content_type.startswith("multipart/form-data"):
        async with request.form(max_files=1, max_fields=10) as form:
            return await _read_form(form, max_bytes, limits, chunk_bytes)
    if content_type.startswith("application/json"):
        return await _read_json(request, max_bytes)
    raise UnprocessableEntity.on("body", "send multipart/form-data (a file) or application/json")


async def _read_form(
    form: FormData, max_bytes: int, limits: tables.Limits | None, chunk_bytes: int
) -> tuple[StagedTable, str]:
    upload = form.get("file")
    if not isinstance(upload, UploadFile):
        raise UnprocessableEntity.on("file", "a CSV or Parquet file is required in the 'file' field")
    fields = {}
    for key in ("target", "environment"):
        value = form.get(key)
        if not isinstance(value, str) or not value:
            raise UnprocessableEntity.on(key, f"form field '{key}' (a column name) is required")
        fields[key] = value
    features_raw = form.get("features")
    features = None
    if isinstance(features_raw, str) and features_raw.strip():
        features = [f.strip() for f in features_raw.split(",") if f.strip()]
    if upload.size is not None and upload.size > max_bytes:  # spooled to disk by the parser
        raise PayloadTooLarge(f"uploads are limited to {max_bytes} bytes")
    filename = upload.filename
    name_raw = form.get("name")
    name = name_raw if isinstance(name_raw, str) and name_raw else (filename or "dataset")
    staged = await run_in_threadpool(
        streaming.parse_file,
        upload.file,
        filename=filename,
        target=fields["target"],
        environment=fields["environment"],
        features=features,
        limits=limits,
        chunk_bytes=chunk_bytes,
    )
    return staged, tables.check_text(name[:255], "name")


async def _read_json(request: Request, max_bytes: int) -> tuple[tables.Table, str]:
    body = await request.body()
    if len(body) > max_bytes:
        raise PayloadTooLarge(f"uploads are limited to {max_bytes} bytes")
    try:  # a large body parses for seconds: not on the event loop
        spec = await run_in_threadpool(DatasetCreate.model_validate_json, body)
    except ValidationError as exc:
        raise RequestValidationError(exc.errors(include_url=False)) from None
    table = await run_in_threadpool(
        tables.from_arrays,
        spec.feature_names,
        spec.target,
        [(e.name, e.X, e.y) for e in spec.environments],
    )
    return table, tables.check_text(spec.name, "name")
