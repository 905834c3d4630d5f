"""POST/GET /jobs, cancellation, the learned weights and predictions. Every lookup is the
caller's tenant's: another tenant's job is a 404, like a missing one."""

from __future__ import annotations

import logging
from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import JSONResponse
from sqlalchemy.orm import Session

from app.api import etag, job_create
from app.api.deps import PrincipalDep, QueueDep, SessionDep, SettingsDep, in_session
from app.api.errors import responses
from app.api.idempotency import IdempotencyKeyHeader
from app.jobs import prediction
from app.jobs import service as jobs_service
from app.jobs.public import job_public
from app.jobs.schemas import (
    HistoryPage,
    JobCreate,
    JobPublic,
    JobsComparison,
    JobsPublic,
    JobsQuery,
    JobUpdate,
    PredictRequest,
    PredictResponse,
)

log = logging.getLogger(__name__)
router = APIRouter(prefix="/jobs", tags=["jobs"])
WEIGHTS_JSON = "application/vnd.sal.weights+json"


@router.post(
    "",
    operation_id="create_job",
    status_code=202,
    response_model=JobPublic,
    responses=responses(401, 409, 422, 429, 503),
)
def create_job(
    body: JobCreate,
    response: Response,
    session: SessionDep,
    queue: QueueDep,
    principal: PrincipalDep,
    settings: SettingsDep,
    idempotency_key: IdempotencyKeyHeader = None,
) -> JobPublic | JSONResponse:
    """Validate and queue a training job; poll GET /jobs/{id} (the Location header) for its result.

    With an ``Idempotency-Key`` a retry returns the first response instead of a second job. More
    than ``max_active_jobs_per_tenant`` queued plus running jobs is a 429 with Retry-After."""
    created = job_create.create(session, queue, settings, principal.tenant_id, body, idempotency_key)
    if isinstance(created, JobPublic):
        response.headers["Location"] = f"/jobs/{created.id}"
    return created


@router.get("", operation_id="list_jobs", response_model=JobsPublic, responses=responses(422))
def list_jobs(
    query: Annotated[JobsQuery, Query()], session: SessionDep, principal: PrincipalDep, settings: SettingsDep
) -> Response:
    """Newest first (or by ``sort``), each job as a summary (under 1 KB; the full result is on
    GET /jobs/{id}). A page holds fewer than ``limit`` jobs when they would pass
    ``max_response_bytes`` (follow next_cursor)."""
    body = jobs_service.list_jobs_json(
        session, principal.tenant_id, query, max_bytes=settings.max_response_bytes
    )
    return Response(content=body, media_type="application/json")


@router.get(
    "/compare", operation_id="compare_jobs", response_model=JobsComparison, responses=responses(401, 404, 422)
)
def compare_jobs(
    session: SessionDep,
    principal: PrincipalDep,
    ids: Annotated[list[str], Query(min_length=2, max_length=20, description="Two to twenty job ids.")],
) -> JobsComparison:
    """Jobs side by side: parameters (and which differ), test summary, error per environment,
    w and θ per covariate, one column per job."""
    return jobs_service.compare(session, ids, principal.tenant_id)


@router.patch(
    "/{job_id}", operation_id="update_job", response_model=JobPublic, responses=responses(401, 404, 422)
)
def update_job(job_id: str, body: JobUpdate, session: SessionDep, principal: PrincipalDep) -> JobPublic:
    """Rename, retag or redescribe a job: the fields given replace its own."""
    job = jobs_service.update_job(session, job_id, principal.tenant_id, body.model_dump(exclude_unset=True))
    return job_public(job, None)


@router.delete("/{job_id}", operation_id="delete_job", status_code=204, responses=responses(401, 404, 409))
def delete_job(job_id: str, session: SessionDep, principal: PrincipalDep) -> Response:
    """Delete a finished job and its result. A queued or running job is a 409 (cancel it first),
    as is a sweep's trial."""
    jobs_service.delete_job(session, job_id, principal.tenant_id)
    return Response(status_code=204)


@router.get(
    "/{job_id}",
    operation_id="get_job",
    response_model=JobPublic,
    responses={304: {"description": "Unchanged since the ETag in If-None-Match"}, **responses(401, 404)},
)
async def get_job(job_id: str, request: Request, principal: PrincipalDep) -> Response:
    """The job and, for the statuses that carry one, its full result. Carries an ``ETag``: with
    ``If-None-Match`` an unchanged job is a 304 with no body (its result is not even read)."""
    return await in_session(request, _public_job, job_id, principal.tenant_id, request)


def _public_job(session: Session, job_id: str, tenant_id: str, request: Request) -> Response:
    """The job as JSON bytes, made in the thread pool: a large result never stalls the event
    loop (returned as a Response, FastAPI does not serialise it again)."""
    job = jobs_service.get_job(session, job_id, tenant_id)
    tag = etag.etag_of(job_public(job, None).model_dump_json().encode())
    if etag.matches(request, tag):
        return etag.not_modified(tag)
    body = job_public(job, jobs_service.result_of(session, job)).model_dump_json()
    return etag.json_response(body, tag)


@router.get(
    "/{job_id}/history",
    operation_id="get_job_history",
    response_model=HistoryPage,
    responses=responses(401, 404, 422),
)
def get_job_history(
    job_id: str,
    session: SessionDep,
    principal: PrincipalDep,
    from_: Annotated[int, Query(alias="from", ge=0, description="Position of the first round")] = 0,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> HistoryPage:
    """The rounds of the job's fit (risk, loss per environment, w), a page at a time: empty until
    the job has a result."""
    return jobs_service.history_page(session, job_id, principal.tenant_id, from_, limit)


@router.post(
    "/{job_id}/cancel",
    operation_id="cancel_job",
    response_model=JobPublic,
    responses={
        202: {"model": JobPublic, "description": "Running: it stops at its next progress checkpoint"},
        **responses(401, 404, 409),
    },
)
def cancel_job(job_id: str, response: Response, session: SessionDep, principal: PrincipalDep) -> JobPublic:
    """A queued job is cancelled at once (200). A running job is asked to stop (202,
    ``cancel_requested``): it ends ``cancelled`` at its next progress checkpoint, keeping the
    partial result. A finished job never changes: 409."""
    job, cancelled = jobs_service.cancel_job(session, job_id, principal.tenant_id)
    response.status_code = 200 if cancelled else 202
    return job_public(job, None)


@router.get(
    "/{job_id}/weights",
    operation_id="get_job_weights",
    response_model=None,
    response_class=Response,
    responses={
        200: {
            # Both bodies are documented (so responses conform to the document); the JSON one has
            # its own +json media type, which sorts after application/octet-stream, so a
            # generated client (which takes the first known type) still hands back the bytes.
            "description": f"safetensors bytes; with format=json, a WeightsJSON document ({WEIGHTS_JSON})",
            "content": {
                "application/octet-stream": {"schema": {"type": "string", "format": "binary"}},
                WEIGHTS_JSON: {"schema": {"$ref": "#/components/schemas/WeightsJSON"}},
            },
        },
        **responses(401, 404, 409, 422),
    },
)
def get_job_weights(
    job_id: str,
    session: SessionDep,
    principal: PrincipalDep,
    format: Annotated[
        Literal["safetensors", "json"], Query(description="safetensors (default) or json")
    ] = "safetensors",
) -> Response:
    """θ, w, feature names, standardisation and model config. Load the safetensors file with
    ``FittedModel.from_tensors`` (see app/artifacts.py) to predict exactly as the service does."""
    if format == "json":
        document = jobs_service.weights_json(session, job_id, principal.tenant_id)
        return Response(document.model_dump_json(), media_type=WEIGHTS_JSON)
    return Response(
        jobs_service.weights(session, jobs_service.get_job(session, job_id, principal.tenant_id)),
        media_type="application/octet-stream",
        headers={"Content-Disposition": f'attachment; filename="job-{job_id}.safetensors"'},
    )


@router.post(
    "/{job_id}/predict",
    operation_id="predict",
    response_model=PredictResponse,
    responses=responses(401, 404, 409, 422),
)
def predict(
    job_id: str, body: PredictRequest, request: Request, session: SessionDep, principal: PrincipalDep
) -> PredictResponse:
    """Predict with a succeeded job's model from ``X`` (rows in feature order) or ``rows`` (dicts)."""
    return prediction.predict(session, job_id, principal.tenant_id, body, request.app.state.models)
