"""POST/GET/DELETE /datasets: multi-environment tables, content-addressed per tenant (the same
content from two tenants is two datasets). Another tenant's dataset is a 404, like a missing one."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import JSONResponse

from app.api import dataset_create, etag
from app.api.deps import PrincipalDep, SessionDep, SettingsDep, UploadGateDep
from app.api.errors import responses
from app.api.idempotency import IdempotencyKeyHeader
from app.datasets import public as datasets_public
from app.datasets import references
from app.datasets import service as datasets_service
from app.datasets.schemas import DatasetPublic, DatasetsPublic

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
    gate: UploadGateDep,
    principal: PrincipalDep,
    idempotency_key: IdempotencyKeyHeader = None,
) -> DatasetPublic | JSONResponse:
    """Upload a CSV or Parquet file (multipart) or a JSON body. Content-addressed: the same table
    uploaded again returns the stored dataset with status 200. With an ``Idempotency-Key`` a retry
    returns the first response."""
    created = await dataset_create.from_request(
        request, session, settings, gate, principal.tenant_id, idempotency_key
    )
    return dataset_create.answer(created, response)


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
    response: Response,
    session: SessionDep,
    settings: SettingsDep,
    gate: UploadGateDep,
    principal: PrincipalDep,
) -> DatasetPublic | JSONResponse:
    """Register Parquet files already in a bucket (``s3://bucket/prefix``, read with the service's
    S3 settings) as a dataset. The files' footers are checked first (columns, types, rows, the
    environment column): a bad reference is a 422 before any row is read."""
    created = await dataset_create.register_reference(session, settings, gate, principal.tenant_id, body)
    return dataset_create.answer(created, response)


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
