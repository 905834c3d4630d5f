"""POST/GET /jobs, cancellation, the learned weights and predictions. Every lookup is the
caller's tenant's: another tenant's job is a 404, like a missing one."""

from __future__ import annotations

import logging
import uuid
from typing import Annotated, Literal

import numpy as np
from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import JSONResponse
from sqlalchemy.orm import Session

from app import artifacts, jobspec, reproducibility
from app.api import idempotency
from app.api.deps import PrincipalDep, QueueDep, SessionDep, SettingsDep, in_session
from app.api.errors import (
    Conflict,
    NotFound,
    ServiceUnavailable,
    TooManyRequests,
    UnprocessableEntity,
    responses,
)
from app.api.idempotency import IdempotencyKeyHeader
from app.api.schemas import (
    JobCreate,
    JobPublic,
    JobsPublic,
    PredictRequest,
    PredictResponse,
    Status,
    WeightsJSON,
)
from app.db import repository as repo
from app.db.models import Job, JobStatus, utcnow
from app.jobs.result import JobResult
from app.settings import Settings

log = logging.getLogger(__name__)
router = APIRouter(prefix="/jobs", tags=["jobs"])
WEIGHTS_JSON = "application/vnd.sal.weights+json"


def to_public(job: Job, result: JobResult | None) -> JobPublic:
    return JobPublic.model_validate(
        {
            "id": job.id,
            "status": job.status,
            "progress": {"step": job.progress_step, "total": job.progress_total},
            "created_at": job.created_at,
            "started_at": job.started_at,
            "finished_at": job.finished_at,
            "error": job.error,
            "algorithm": job.algorithm,
            "task": job.task,
            "params": job.params,
            "model": job.model,
            "seed": job.seed,
            "device": job.device,
            "dataset_id": job.dataset_id,
            "train_environments": job.train_environments,
            "test_environments": job.test_environments,
            "result": result,
            "attempts": job.attempts,
            "cancel_requested": job.cancel_requested_at is not None,
            "validation": job.validation,
            "sweep_id": job.sweep_id,
            "rerun_of": job.rerun_of,
            "reproducibility": reproducibility.record(job),
        }
    )


def _job_or_404(session: Session, job_id: str, tenant_id: str) -> Job:
    job = repo.get_job(session, job_id, tenant_id=tenant_id)
    if job is None:
        raise NotFound(f"no job {job_id}")
    return job


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
    tenant = principal.tenant_id
    if idempotency_key is not None:
        fp = idempotency.fingerprint("create_job", body.model_dump(mode="json"))
        replay = idempotency.begin(
            session, tenant, idempotency_key, fp, in_flight_s=settings.idempotency_in_flight_s
        )
        if replay is not None:
            return replay
    try:
        job = _add_job(body, session, queue, tenant, settings)
        public = to_public(job, None)
        if idempotency_key is not None:
            idempotency.complete(
                session, tenant, idempotency_key, 202, public.model_dump(mode="json"), f"/jobs/{job.id}"
            )
        session.commit()
    except Exception:
        if idempotency_key is not None:
            idempotency.forget(session, tenant, idempotency_key)
        raise
    # Only after the commit: a worker that receives the id must find the row.
    try:
        queue.enqueue(job.id, job.queue)
    except Exception as exc:
        log.exception("could not enqueue job %s", job.id)
        repo.fail_job(
            session, job.id, {"type": "enqueue_failed", "message": str(exc)}, from_status=[JobStatus.QUEUED]
        )
        if idempotency_key is not None:
            idempotency.forget(session, tenant, idempotency_key, completed_too=True)
        session.commit()
        raise ServiceUnavailable("the job could not be queued: the broker is unreachable") from None
    response.headers["Location"] = f"/jobs/{job.id}"
    return public


def _add_job(body: JobCreate, session: Session, queue: QueueDep, tenant_id: str, settings: Settings) -> Job:
    dataset = repo.get_dataset(session, body.dataset_id, tenant_id=tenant_id)
    if dataset is None:
        raise UnprocessableEntity.on("dataset_id", f"no dataset {body.dataset_id}")
    checked = jobspec.check_job(
        algorithm=body.algorithm,
        params=body.params,
        task=body.task,
        model=body.model.to_mapping(),
        seed=body.seed,
        train_environments=body.train_environments,
        test_environments=body.test_environments,
        dataset_environments=dataset.environments,
        validation=body.validation.model_dump(exclude_none=True) if body.validation else None,
    )
    active = repo.active_jobs_of(session, tenant_id)
    if active >= settings.max_active_jobs_per_tenant:
        raise TooManyRequests(
            f"{active} jobs are queued or running, the most one tenant may have; retry when some have finished",
            retry_after_s=settings.retry_after_s,
        )
    job = Job(
        id=str(uuid.uuid4()),
        tenant_id=tenant_id,
        dataset_id=dataset.id,
        status=JobStatus.QUEUED,
        algorithm=body.algorithm,
        task=body.task,
        params=checked.params,
        model=checked.model,
        seed=body.seed,
        device=body.device,
        queue=queue.queue_for(body.device),
        train_environments=list(body.train_environments),
        test_environments=checked.test_environments,
        progress_step=0,
        enqueued_at=utcnow(),
        attempts=[],
        validation=checked.validation,
        dataset_sha256=dataset.sha256,
    )
    return repo.add_job(session, job)


@router.get("", operation_id="list_jobs", response_model=JobsPublic, responses=responses(422))
def list_jobs(
    session: SessionDep,
    principal: PrincipalDep,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    cursor: Annotated[str | None, Query(description="next_cursor of the previous page")] = None,
    status: Status | None = None,
    algorithm: str | None = None,
    dataset_id: str | None = None,
) -> JobsPublic:
    """Newest first."""
    try:
        page = repo.list_jobs(
            session,
            tenant_id=principal.tenant_id,
            limit=limit,
            cursor=cursor,
            status=status,
            algorithm=algorithm,
            dataset_id=dataset_id,
        )
    except repo.InvalidCursor as exc:
        raise UnprocessableEntity.on("cursor", str(exc)) from None
    results = repo.get_results(session, [j.id for j in page.items if j.status in _WITH_RESULT])
    return JobsPublic(
        items=[to_public(j, results.get(j.id)) for j in page.items], next_cursor=page.next_cursor
    )


# A job cancelled while running keeps the result of its partial fit (history up to the stop).
_WITH_RESULT = (JobStatus.SUCCEEDED, JobStatus.CANCELLED)


@router.get("/{job_id}", operation_id="get_job", response_model=JobPublic, responses=responses(401, 404))
async def get_job(job_id: str, request: Request, principal: PrincipalDep) -> JobPublic:
    return await in_session(request, _public_job, job_id, principal.tenant_id)


def _public_job(session: Session, job_id: str, tenant_id: str) -> JobPublic:
    job = _job_or_404(session, job_id, tenant_id)
    result = repo.get_result(session, job_id) if job.status in _WITH_RESULT else None
    return to_public(job, result)


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
    job, outcome = repo.cancel_job(session, job_id, tenant_id=principal.tenant_id)
    session.commit()
    if job is None:
        raise NotFound(f"no job {job_id}")
    if outcome == "unchanged":
        raise Conflict(f"job {job_id} is {job.status}; a finished job cannot be cancelled")
    response.status_code = 200 if outcome == "cancelled" else 202
    return to_public(job, None)


def _weights_or_409(session: Session, job: Job) -> bytes:
    weights = repo.get_weights(session, job.id) if job.status == JobStatus.SUCCEEDED else None
    if weights is None:
        raise Conflict(f"job {job.id} is {job.status}; weights exist once it has succeeded")
    return weights[0]


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
    data = _weights_or_409(session, _job_or_404(session, job_id, principal.tenant_id))
    if format == "safetensors":
        return Response(
            data,
            media_type="application/octet-stream",
            headers={"Content-Disposition": f'attachment; filename="job-{job_id}.safetensors"'},
        )
    result = repo.get_result(session, job_id)
    document = WeightsJSON.model_validate(
        artifacts.to_json(artifacts.unpack(data), artifacts.metadata_of(data), result)
    )
    return Response(document.model_dump_json(), media_type=WEIGHTS_JSON)


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
    job = _job_or_404(session, job_id, principal.tenant_id)  # before the cache, which is every tenant's
    cache = request.app.state.models
    model = cache.get(job_id)
    if model is None:
        model = artifacts.unpack(_weights_or_409(session, job))
        cache.put(job_id, model)
    names = list(model.feature_names)
    if (body.X is None) == (body.rows is None):
        raise UnprocessableEntity.on("X", "give exactly one of X or rows")
    if body.X is not None:
        field = "X"
        for i, row in enumerate(body.X):
            if len(row) != len(names):
                raise UnprocessableEntity.on(
                    f"X[{i}]", f"each row needs {len(names)} values ({', '.join(names)})"
                )
        X = np.asarray(body.X, dtype=np.float64).reshape(len(body.X), len(names))
    else:
        field = "rows"
        assert body.rows is not None
        for i, named in enumerate(body.rows):
            missing = [n for n in names if n not in named]
            extra = sorted(set(named) - set(names))
            if missing or extra:
                bad = (missing or extra)[0]
                raise UnprocessableEntity.on(
                    f"rows[{i}].{bad}",
                    f"rows need exactly the features {names}; missing {missing}, unknown {extra}",
                )
        X = np.asarray([[row[n] for n in names] for row in body.rows], dtype=np.float64).reshape(
            len(body.rows), len(names)
        )
    if not np.all(np.isfinite(X)):
        raise UnprocessableEntity.on(field, "values must be finite numbers")
    predictions = model.predict(X).tolist()
    probabilities = model.predict_proba(X).tolist() if model.task == "classification" else None
    return PredictResponse(predictions=predictions, probabilities=probabilities)
