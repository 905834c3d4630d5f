"""POST/GET /jobs, cancellation, the learned weights and predictions. Every lookup is the
caller's tenant's: another tenant's job is a 404, like a missing one."""

from __future__ import annotations

import json
import logging
from typing import Annotated, Any, Literal

import numpy as np
from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import JSONResponse
from sqlalchemy.orm import Session

from app import metrics
from app.api import etag, idempotency
from app.api.deps import PrincipalDep, QueueDep, SessionDep, SettingsDep, in_session
from app.api.errors import (
    Conflict,
    NotFound,
    UnprocessableEntity,
    responses,
)
from app.api.idempotency import IdempotencyKeyHeader
from app.api.public import job_public, job_summary
from app.datasets.tables import MAX_ABS_VALUE
from app.db import repository as repo
from app.db.models import Job, JobStatus
from app.jobs import artifacts
from app.jobs import service as jobs_service
from app.jobs.schemas import (
    HistoryPage,
    JobCreate,
    JobPublic,
    JobsComparison,
    JobsPublic,
    JobUpdate,
    PredictRequest,
    PredictResponse,
    Status,
    WeightsJSON,
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
    stored: list[JobPublic] = []

    def record(job: Job) -> None:  # in the job's own commit: a retry replays this response
        stored.append(job_public(job, None))
        claimed.complete(202, stored[0].model_dump(mode="json"), f"/jobs/{job.id}")

    with idempotency.claim(
        session,
        principal.tenant_id,
        idempotency_key,
        "create_job",
        body.model_dump(mode="json"),
        in_flight_s=settings.idempotency_in_flight_s,
    ) as claimed:
        if claimed.replay is not None:
            return claimed.replay
        job = jobs_service.queue_job(
            session,
            queue,
            settings,
            principal.tenant_id,
            body,
            before_commit=record,
        )
    metrics.JOBS_SUBMITTED.labels(job.algorithm, job.device).inc()
    response.headers["Location"] = f"/jobs/{job.id}"
    return stored[0]


JobSort = Literal[
    "-created_at", "created_at", "name", "-name", "mean_error", "-mean_error", "std_error", "-std_error",
    "worst_error", "-worst_error", "duration_s", "-duration_s",
]  # fmt: skip


def _param_filters(raw: list[str]) -> list[tuple[str, Any]]:
    """``name=value`` pairs; the value is read as JSON where it parses (``lambda_=0.1``, ``x=true``)."""
    out: list[tuple[str, Any]] = []
    for item in raw:
        name, sep, text = item.partition("=")
        if not sep or not name:
            raise UnprocessableEntity.on("param", f"param takes name=value, got {item!r}")
        try:
            value = json.loads(text)
        except ValueError:
            value = text
        if not isinstance(value, str | int | float | bool):
            raise UnprocessableEntity.on("param", f"{name}: compare with a number, a word or true/false")
        out.append((name, value))
    return out


@router.get("", operation_id="list_jobs", response_model=JobsPublic, responses=responses(422))
def list_jobs(
    session: SessionDep,
    principal: PrincipalDep,
    settings: SettingsDep,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    cursor: Annotated[str | None, Query(description="next_cursor of the previous page")] = None,
    status: Status | None = None,
    algorithm: str | None = None,
    dataset_id: str | None = None,
    sweep_id: str | None = None,
    q: Annotated[
        str | None, Query(max_length=255, description="A substring of the name or description (any case).")
    ] = None,
    tag: Annotated[list[str] | None, Query(description="Jobs with every one of these tags.")] = None,
    param: Annotated[
        list[str] | None, Query(description="name=value: jobs whose parameter equals it (repeat).")
    ] = None,
    max_mean_error: Annotated[
        float | None, Query(description="Jobs whose test Mean_Error is at most this.")
    ] = None,
    sort: Annotated[
        JobSort, Query(description="Sort key, '-' for descending; jobs without that metric come last.")
    ] = "-created_at",
) -> Response:
    """Newest first (or by ``sort``), each job as a summary (under 1 KB; the full result is on
    GET /jobs/{id}). A page holds fewer than ``limit`` jobs when they would pass
    ``max_response_bytes`` (follow next_cursor)."""
    where = repo.JobFilter(
        status=status,
        algorithm=algorithm,
        dataset_id=dataset_id,
        sweep_id=sweep_id,
        q=q,
        tags=tag or [],
        params=_param_filters(param or []),
        max_mean_error=max_mean_error,
    )
    try:
        page = repo.list_jobs(
            session, tenant_id=principal.tenant_id, limit=limit, cursor=cursor, where=where, sort=sort
        )
    except repo.InvalidCursor as exc:
        raise UnprocessableEntity.on("cursor", str(exc)) from None
    summaries = jobs_service.summaries_of(session, page.items)
    # Serialised here, in the thread pool, not on the event loop; a page stops early (its
    # next_cursor after the last job it holds) once it would pass max_response_bytes.
    items: list[bytes] = []
    size = 0
    next_cursor = page.next_cursor
    for i, job in enumerate(page.items):
        item = job_summary(job, *summaries.get(job.id, (None, None))).model_dump_json().encode()
        if items and size + len(item) > settings.max_response_bytes:
            next_cursor = repo.cursor_after(page.items[i - 1])
            break
        items.append(item)
        size += len(item)
    cursor_json = b"null" if next_cursor is None else b'"' + next_cursor.encode() + b'"'
    body = b'{"items":[' + b",".join(items) + b'],"next_cursor":' + cursor_json + b"}"
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
    doc = jobs_service.compare(session, ids, principal.tenant_id)
    summaries = jobs_service.summaries_of(session, doc["jobs"])
    doc["jobs"] = [job_summary(j, *summaries.get(j.id, (None, None))) for j in doc["jobs"]]
    return JobsComparison.model_validate(doc)


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
    job = jobs_service.get_job(session, job_id, principal.tenant_id)
    rounds, total = jobs_service.history_page(session, job, from_, limit)
    end = from_ + len(rounds)
    return HistoryPage(items=rounds, total=total, next_from=end if end < total else None)


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
    return job_public(job, None)


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
    data = _weights_or_409(session, jobs_service.get_job(session, job_id, principal.tenant_id))
    if format == "safetensors":
        return Response(
            data,
            media_type="application/octet-stream",
            headers={"Content-Disposition": f'attachment; filename="job-{job_id}.safetensors"'},
        )
    result = jobs_service.stored_result(session, job_id)
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
    job = jobs_service.get_job(
        session, job_id, principal.tenant_id
    )  # before the cache, which is every tenant's
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
    if X.size and float(np.max(np.abs(X))) > MAX_ABS_VALUE:
        raise UnprocessableEntity.on(
            field, f"values must be at most {MAX_ABS_VALUE:g} in magnitude, as in datasets"
        )
    predictions = model.predict(X)
    probabilities = model.predict_proba(X) if model.task == "classification" else None
    if not np.all(np.isfinite(predictions)):
        # The one rule for non-finite numbers (app.jobs.result): said, never sent as nulls.
        raise UnprocessableEntity.on(field, "the model's predictions overflow for these values; rescale them")
    return PredictResponse(
        predictions=predictions.tolist(),
        probabilities=None if probabilities is None else probabilities.tolist(),
    )
