"""POST/GET/DELETE /datasets: multi-environment tables, content-addressed per tenant (the same
content from two tenants is two datasets). Another tenant's dataset is a 404, like a missing one."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import JSONResponse
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

from app.api import etag
from app.api.dataset_create import check_limits as _check_limits
from app.api.dataset_create import create as _create
from app.api.deps import PrincipalDep, SessionDep, SettingsDep
from app.api.errors import PayloadTooLarge, UnprocessableEntity, responses
from app.api.idempotency import IdempotencyKeyHeader
from app.datasets import public as datasets_public
from app.datasets import references, streaming, tables
from app.datasets import service as datasets_service
from app.datasets.schemas import DatasetCreate, DatasetPublic, DatasetsPublic
from app.datasets.streaming import StagedTable

router = APIRouter(prefix="/datasets", tags=["datasets"])

_UPLOAD_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {"schema": {"$ref": "#/components/schemas/DatasetUpload"}},
            "application/json": {"schema": {"$ref": "#/components/schemas/DatasetCreate"}},
        },
    }
}


async def _read_upload(
    request: Request, max_bytes: int, limits: tables.Limits | None = None, chunk_bytes: int = 4 << 20
) -> tuple[tables.Table | StagedTable, str]:
    """Parse either body form into the canonical table; returns it with the default name. A
    file's shape is checked against ``limits`` before it is decoded; a file is parsed
    ``chunk_bytes`` at a time into a table staged on disk (the caller closes it)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > max_bytes:
        raise PayloadTooLarge(f"uploads are limited to {max_bytes} bytes")
    content_type = request.headers.get("content-type", "")
    if content_type.startswith("multipart/form-data"):
        async with request.form(max_files=1, max_fields=10) as form:
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
    if content_type.startswith("application/json"):
        body = await request.body()
        if len(body) > max_bytes:
            raise PayloadTooLarge(f"uploads are limited to {max_bytes} bytes")
        try:  # a large body parses for seconds: not on the event loop
            spec = await run_in_threadpool(DatasetCreate.model_validate_json, body)
        except ValidationError as exc:
            from fastapi.exceptions import RequestValidationError

            raise RequestValidationError(exc.errors(include_url=False)) from None
        table = await run_in_threadpool(
            tables.from_arrays,
            spec.feature_names,
            spec.target,
            [(e.name, e.X, e.y) for e in spec.environments],
        )
        return table, tables.check_text(spec.name, "name")
    raise UnprocessableEntity.on("body", "send multipart/form-data (a file) or application/json")


@router.post(
    "",
    operation_id="create_dataset",
    status_code=201,
    response_model=DatasetPublic,
    responses={
        200: {"model": DatasetPublic, "description": "The same content was already stored"},
        **responses(401, 409, 413, 422),
    },
    openapi_extra=_UPLOAD_BODY,
)
async def create_dataset(
    request: Request,
    response: Response,
    session: SessionDep,
    settings: SettingsDep,
    principal: PrincipalDep,
    idempotency_key: IdempotencyKeyHeader = None,
) -> DatasetPublic | JSONResponse:
    """Upload a CSV or Parquet file (multipart) or a JSON body. Content-addressed: the same table
    uploaded again returns the stored dataset with status 200. With an ``Idempotency-Key`` a retry
    returns the first response."""
    # A file may carry columns it does not use (features= picks some): twice max_features, plus
    # target and environment, before it is decoded; max_cells bounds what decoding costs.
    limits = tables.Limits(
        max_rows=settings.max_rows, max_columns=2 * settings.max_features + 2, max_cells=settings.max_cells
    )
    gate = request.app.state.uploads  # app.datasets.uploads: a slot, and the tenant's quota
    await run_in_threadpool(gate.check_quota, principal.tenant_id)
    async with gate.slot(principal.tenant_id):
        table, name = await _read_upload(
            request, settings.max_upload_bytes, limits, settings.upload_chunk_bytes
        )
        try:
            _check_limits(table, settings, request.headers.get("content-type", "").startswith("multipart/"))
            created = await run_in_threadpool(
                _create, session, principal.tenant_id, table, name, idempotency_key, settings
            )
        finally:
            if isinstance(table, StagedTable):
                await run_in_threadpool(table.close)
    if isinstance(created, JSONResponse):
        return created
    public, response.status_code = created
    response.headers["Location"] = f"/datasets/{public.id}"
    return public


@router.post(
    "/references",
    operation_id="register_dataset_reference",
    status_code=201,
    response_model=DatasetPublic,
    responses={
        200: {"model": DatasetPublic, "description": "The same content was already stored"},
        **responses(401, 409, 422, 503),
    },
)
async def register_dataset_reference(
    body: references.DatasetReference,
    request: Request,
    response: Response,
    session: SessionDep,
    settings: SettingsDep,
    principal: PrincipalDep,
) -> DatasetPublic:
    """Register Parquet files already in a bucket (``s3://bucket/prefix``, read with the service's
    S3 settings) as a dataset. The files' footers are checked first (columns, types, rows, the
    environment column): a bad reference is a 422 before any row is read."""
    gate = request.app.state.uploads
    await run_in_threadpool(gate.check_quota, principal.tenant_id)
    async with gate.slot(principal.tenant_id):
        dataset, created, warnings = await run_in_threadpool(
            references.register, session, principal.tenant_id, body, settings
        )
    public = datasets_public.dataset_public(dataset, warnings)
    response.status_code = 201 if created else 200
    response.headers["Location"] = f"/datasets/{public.id}"
    return public


@router.get("", operation_id="list_datasets", response_model=DatasetsPublic, responses=responses(401, 422))
def list_datasets(
    session: SessionDep,
    principal: PrincipalDep,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    cursor: Annotated[str | None, Query(description="next_cursor of the previous page")] = None,
) -> DatasetsPublic:
    return datasets_public.list_datasets(session, principal.tenant_id, limit, cursor)


@router.get(
    "/{dataset_id}",
    operation_id="get_dataset",
    response_model=DatasetPublic,
    responses={304: {"description": "Unchanged since the ETag in If-None-Match"}, **responses(401, 404)},
)
def get_dataset(dataset_id: str, request: Request, session: SessionDep, principal: PrincipalDep) -> Response:
    """The dataset's description (never its rows). Carries an ``ETag``; with ``If-None-Match`` a
    304."""
    body = datasets_public.get_dataset(session, dataset_id, principal.tenant_id).model_dump_json()
    tag = etag.etag_of(body.encode())
    return etag.not_modified(tag) if etag.matches(request, tag) else etag.json_response(body, tag)


@router.delete(
    "/{dataset_id}", operation_id="delete_dataset", status_code=204, responses=responses(401, 404, 409)
)
def delete_dataset(
    dataset_id: str,
    session: SessionDep,
    principal: PrincipalDep,
    settings: SettingsDep,
    cascade: Annotated[
        bool, Query(description="Also delete the finished jobs (and sweeps) on it, with their results.")
    ] = False,
) -> Response:
    """Delete a dataset nobody uses. Jobs on it make this a 409 naming them (their reruns would
    need it), unless ``cascade=true`` deletes them too; queued or running jobs always do."""
    datasets_service.delete(session, dataset_id, principal.tenant_id, cascade=cascade, settings=settings)
    return Response(status_code=204)


__all__ = ["router"]
