"""/datasets/uploads: a file sent in parts that survives a cut connection, committed into a dataset
as ``POST /datasets`` creates one (the protocol: :mod:`app.datasets.resumable`). Another tenant's
upload is a 404, like a missing one."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Request, Response
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from app.api import dataset_create
from app.api.deps import DeclaredLengthDep, PrincipalDep, SessionDep, SettingsDep, UploadGateDep
from app.api.errors import responses
from app.api.idempotency import IdempotencyKeyHeader
from app.datasets import resumable
from app.datasets.schemas import DatasetPublic, UploadCommit, UploadCreate, UploadPublic

router = APIRouter(prefix="/datasets/uploads", tags=["datasets"])

_PART_BODY = {
    "requestBody": {
        "required": True,
        "content": {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}},
    }
}


UploadOffset = Annotated[
    int, Header(alias="Upload-Offset", ge=0, description="Where this part starts: the upload's offset.")
]
UploadChecksum = Annotated[
    str | None,
    Header(
        alias="Upload-Checksum",
        description="'sha256 <base64 digest of this part>': a part that differs is dropped (422).",
    ),
]


def _public(upload: resumable.Upload, response: Response | None = None) -> UploadPublic:
    if response is not None:
        response.headers["Upload-Offset"] = str(upload.offset)
        response.headers["Upload-Length"] = str(upload.size)
        response.headers["Cache-Control"] = "no-store"
    return UploadPublic.model_validate({k: getattr(upload, k) for k in UploadPublic.model_fields})


@router.post(
    "",
    operation_id="create_upload",
    status_code=201,
    response_model=UploadPublic,
    responses=responses(401, 409, 413, 422),
)
async def create_upload(
    body: UploadCreate, request: Request, response: Response, settings: SettingsDep, principal: PrincipalDep
) -> UploadPublic:
    """Open a resumable upload of ``size`` bytes; send it with ``PATCH`` in parts, then ``commit``.
    The tenant's dataset quota is checked now, before any byte is sent."""
    await run_in_threadpool(request.app.state.uploads.check_quota, principal.tenant_id)
    upload = await run_in_threadpool(
        resumable.open_upload, settings, principal.tenant_id, body.size, body.sha256, body.filename
    )
    response.headers["Location"] = f"/datasets/uploads/{upload.id}"
    return _public(upload, response)


@router.get(
    "/{upload_id}", operation_id="get_upload", response_model=UploadPublic, responses=responses(401, 404)
)
def get_upload(
    upload_id: str, response: Response, settings: SettingsDep, principal: PrincipalDep
) -> UploadPublic:
    """Where the upload stands: resume with the part that starts at ``offset``."""
    return _public(resumable.get(settings, principal.tenant_id, upload_id), response)


@router.head("/{upload_id}", include_in_schema=False)
def head_upload(upload_id: str, settings: SettingsDep, principal: PrincipalDep) -> Response:
    """tus' HEAD: the offset in ``Upload-Offset``, no body."""
    response = Response(status_code=200)
    _public(resumable.get(settings, principal.tenant_id, upload_id), response)
    return response


@router.patch(
    "/{upload_id}",
    operation_id="append_upload",
    response_model=UploadPublic,
    responses=responses(401, 404, 409, 413, 422),
    openapi_extra=_PART_BODY,
)
async def append_upload(
    upload_id: str,
    request: Request,
    response: Response,
    settings: SettingsDep,
    principal: PrincipalDep,
    upload_offset: UploadOffset,
    size: DeclaredLengthDep,
    upload_checksum: UploadChecksum = None,
) -> UploadPublic | Response:
    """Append the body at ``Upload-Offset``, which must equal the upload's offset (else a 409 that
    names it). A part cut off midway keeps the bytes that arrived: ask ``GET`` (or ``HEAD``) for the
    offset and send the rest from there."""
    part = request.stream()
    upload = await resumable.append(
        settings, principal.tenant_id, upload_id, upload_offset, part, upload_checksum, size
    )
    if upload is None:  # the client is gone: nobody reads an answer
        return Response(status_code=204)
    return _public(upload, response)


@router.post(
    "/{upload_id}/commit",
    operation_id="commit_upload",
    status_code=201,
    response_model=DatasetPublic,
    responses={
        200: {"model": DatasetPublic, "description": "The same content was already stored"},
        **responses(401, 404, 409, 422),
    },
)
async def commit_upload(
    upload_id: str,
    body: UploadCommit,
    response: Response,
    session: SessionDep,
    settings: SettingsDep,
    gate: UploadGateDep,
    principal: PrincipalDep,
    idempotency_key: IdempotencyKeyHeader = None,
) -> DatasetPublic | JSONResponse:
    """Parse the complete file into a dataset, with the checks, content id and answers of
    ``POST /datasets`` (201, or 200 for content already stored). A file whose bytes differ from
    the declared ``sha256`` is a 422 and the upload is removed; nothing is stored."""
    created = await dataset_create.commit_upload(
        session, settings, gate, principal.tenant_id, upload_id, body, idempotency_key
    )
    return dataset_create.answer(created, response)


@router.delete(
    "/{upload_id}", operation_id="delete_upload", status_code=204, responses=responses(401, 404, 409)
)
def delete_upload(upload_id: str, settings: SettingsDep, principal: PrincipalDep) -> Response:
    """Abandon the upload and remove its bytes."""
    resumable.delete(settings, principal.tenant_id, upload_id)
    return Response(status_code=204)


__all__ = ["router"]
