"""Jobs below the routes: build a job row (one place for POST /jobs, sweeps and reruns), commit
it, then enqueue its id; say which statuses carry a result.

A transaction ends at the boundary: the functions here that queue commit once, before the broker
sees the id (a worker that receives it must find the row). Errors are ``app.errors`` classes,
which carry their HTTP status.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from app import logs
from app.db import erase
from app.db import outbox as outbox_rows
from app.db import repository as repo
from app.db.models import Dataset, Job, JobStatus, utcnow
from app.errors import Conflict, NotFound, TooManyRequests, UnprocessableEntity
from app.jobs import artifacts, budget, outbox
from app.jobs.placement import Placement, place
from app.jobs.public import job_summary
from app.jobs.result import JobResult
from app.jobs.schemas import HistoryPage, InputEncoding, JobCreate, JobsComparison, JobsQuery, WeightsJSON
from app.jobs.spec import JobSpec, check_job
from app.queue import JobQueue
from app.settings import Settings

log = logging.getLogger(__name__)

# A job cancelled while running keeps the result of its partial fit (history up to the stop):
# GET /jobs/{id}, the job list and the job report all show it.
WITH_RESULT: tuple[str, ...] = (JobStatus.SUCCEEDED, JobStatus.CANCELLED)


def new_job(*, tenant_id: str, dataset: Dataset, placement: Placement, spec: JobSpec) -> Job:
    """A queued job row for ``spec`` (checked) on ``dataset`` (not yet added to a session), on
    ``placement``'s queue."""
    return Job(
        id=str(uuid.uuid4()),
        tenant_id=tenant_id,
        dataset_id=dataset.id,
        status=JobStatus.QUEUED,
        algorithm=spec.algorithm,
        task=spec.task,
        params=dict(spec.params),
        model=dict(spec.model),
        seed=spec.seed,
        device=spec.device,
        queue=placement.queue,
        device_chosen=placement.device,
        device_reason=placement.reason,
        train_environments=list(spec.train_environments),
        test_environments=list(spec.test_environments or []),
        progress_step=0,
        enqueued_at=utcnow(),
        attempts=[],
        validation=None if spec.validation is None else dict(spec.validation),
        dataset_sha256=dataset.sha256,
        sweep_id=spec.sweep_id,
        rerun_of=spec.rerun_of,
        request_id=logs.current("request_id"),  # the worker's log lines carry it too
        name=spec.name,
        tags=list(dict.fromkeys(spec.tags)),  # each once, in the order given
        description=spec.description,
    )


def commit_and_enqueue(session: Session, queue: JobQueue, jobs: Sequence[Job]) -> None:
    """Commit the jobs with their outbox rows (app.jobs.outbox), then try once to send them. A
    broker that is down costs nothing here: the rows stay and a relay sends them when it is back,
    so the request still gets its 202."""
    now = utcnow()
    for job in jobs:
        outbox_rows.add(session, job.id, job.queue, outbox.priority_for(session, job), now)
    session.commit()
    for job in jobs:  # the line the worker's "job started" and "job <outcome>" lines follow
        log.log(
            logging.INFO if len(jobs) == 1 else logging.DEBUG,
            "job queued",
            extra={"job_id": job.id, "algorithm": job.algorithm, "queue": job.queue},
        )
    try:
        outbox.relay(sessionmaker(bind=session.get_bind()), queue, job_ids=[j.id for j in jobs])
    except Exception:  # committed and owed: the relay in every worker delivers it
        log.exception("could not deliver jobs %s now; the outbox relay will", [j.id for j in jobs])


def queue_job(
    session: Session,
    queue: JobQueue,
    settings: Settings,
    tenant_id: str,
    body: JobCreate,
    *,
    before_commit: Callable[[Job], None] | None = None,
) -> Job:
    """POST /jobs: queue ``body`` on its dataset (see ``_queue``); 422 when there is no such
    dataset."""
    dataset = repo.get_dataset(session, body.dataset_id, tenant_id=tenant_id)
    if dataset is None:
        raise UnprocessableEntity.on("dataset_id", f"no dataset {body.dataset_id}")
    spec = JobSpec.from_create(body, dataset.environments)
    return _queue(session, queue, settings, tenant_id, spec, dataset, before_commit)


def _queue(
    session: Session,
    queue: JobQueue,
    settings: Settings,
    tenant_id: str,
    spec: JobSpec,
    dataset: Dataset,
    before_commit: Callable[[Job], None] | None = None,
) -> Job:
    """The one path of a single job, new or run again: check ``spec`` against its dataset, then the
    tenant's active-job cap and work budget, place it, store it, commit (with what
    ``before_commit`` adds to the transaction), then enqueue it. 422 for a bad spec, 429 over a
    quota; a broker that is down is no error (see ``commit_and_enqueue``)."""
    checked = check_job(
        algorithm=spec.algorithm,
        params=spec.params,
        task=spec.task,
        model=spec.model,
        seed=spec.seed,
        train_environments=spec.train_environments,
        test_environments=spec.test_environments,
        dataset_environments=dataset.environments,
        validation=spec.validation,
    )
    check_quota(session, settings, tenant_id)
    budget.check(session, settings, tenant_id, checked.params)
    placement = place(
        settings,
        dataset,
        requested=spec.device,
        algorithm=spec.algorithm,
        model=checked.model,
        train_environments=spec.train_environments,
    )
    resolved = replace(
        spec,
        params=checked.params,
        model=checked.model,
        test_environments=checked.test_environments,
        validation=checked.validation,
    )
    job = new_job(tenant_id=tenant_id, dataset=dataset, placement=placement, spec=resolved)
    repo.add_job(session, job)
    if before_commit is not None:
        before_commit(job)
    commit_and_enqueue(session, queue, [job])
    return job


def check_quota(session: Session, settings: Settings, tenant_id: str, *, sweep_trials: int = 0) -> None:
    """429 unless the tenant may add one more active job (POST /jobs, reruns:
    ``max_active_jobs_per_tenant``) or, given ``sweep_trials``, that many sweep trials (its sweep
    backlog, ``max_sweep_jobs``). A sweep's trials count in the backlog, not against the
    interactive cap, so a large sweep never locks its tenant out of single jobs. Exact on both
    databases (the tenant's row is locked until the caller commits)."""
    if sweep_trials:
        backlog = repo.active_jobs_of(session, tenant_id, sweep_trials=True)
        if backlog + sweep_trials > settings.max_sweep_jobs:
            raise TooManyRequests(
                f"{backlog} sweep trials are queued or running and this sweep adds {sweep_trials}; one "
                f"tenant may have {settings.max_sweep_jobs} (max_sweep_jobs): retry when some have finished",
                retry_after_s=settings.retry_after_s,
            )
        return
    active = repo.active_jobs_of(session, tenant_id)
    if active >= settings.max_active_jobs_per_tenant:
        raise TooManyRequests(
            f"{active} jobs are queued or running, the most one tenant may have; retry when some have finished",
            retry_after_s=settings.retry_after_s,
        )


def rerun_job(session: Session, queue: JobQueue, settings: Settings, tenant_id: str, job_id: str) -> Job:
    """Queue the same job again from its reproducibility record (``JobSpec.from_row``): same
    dataset (checked by sha256), algorithm, resolved parameters, model, environments, validation,
    seed and requested device. It goes the way a new submission goes (``_queue``): checked by
    today's rules, counted against the tenant's quotas, placed by today's settings."""
    spec = JobSpec.from_row(get_job(session, job_id, tenant_id))
    dataset = (
        repo.get_dataset(session, spec.dataset_id, tenant_id=tenant_id)
        if spec.dataset_id is not None
        else None
    )
    if dataset is None:
        raise Conflict(f"job {job_id}'s dataset has been deleted; upload it again and submit a new job")
    if spec.dataset_sha256 is not None and dataset.sha256 != spec.dataset_sha256:
        raise Conflict(f"job {job_id}'s dataset no longer has sha256 {spec.dataset_sha256}")
    return _queue(session, queue, settings, tenant_id, spec, dataset)


def get_job(session: Session, job_id: str, tenant_id: str) -> Job:
    """The tenant's job; another tenant's is a 404, like a missing one."""
    job = repo.get_job(session, job_id, tenant_id=tenant_id)
    if job is None:
        raise NotFound(f"no job {job_id}")
    return job


def stored_result(session: Session, job_id: str) -> JobResult | None:
    """The job's stored result, whatever its status (the tolerant reader reads every older shape)."""
    document = repo.get_result_document(session, job_id)
    return None if document is None else JobResult.model_validate(document)


def stored_results(session: Session, job_ids: Sequence[str]) -> dict[str, JobResult]:
    documents = repo.get_result_documents(session, job_ids)
    return {job_id: JobResult.model_validate(document) for job_id, document in documents.items()}


def result_of(session: Session, job: Job) -> JobResult | None:
    """The job's result when its status carries one (see ``WITH_RESULT``)."""
    return stored_result(session, job.id) if job.status in WITH_RESULT else None


def results_of(session: Session, jobs: Sequence[Job]) -> dict[str, JobResult]:
    return stored_results(session, [j.id for j in jobs if j.status in WITH_RESULT])


def summaries_of(session: Session, jobs: Sequence[Job]) -> dict[str, tuple[dict[str, Any] | None, float]]:
    """Each listed job's (test summary, duration_s) where its status carries a result."""
    return repo.get_summaries(session, [j.id for j in jobs if j.status in WITH_RESULT])


def history_page(session: Session, job_id: str, tenant_id: str, start: int, limit: int) -> HistoryPage:
    """Rounds ``start`` to ``start + limit`` of the job's stored history (empty until the job has
    a result), with how many it has."""
    result = result_of(session, get_job(session, job_id, tenant_id))
    history = [] if result is None else result.history
    rounds = history[start : start + limit]
    end = start + len(rounds)
    return HistoryPage(items=rounds, total=len(history), next_from=end if end < len(history) else None)


def param_filters(raw: Sequence[str]) -> list[tuple[str, Any]]:
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


def list_jobs_json(session: Session, tenant_id: str, query: JobsQuery, *, max_bytes: int) -> bytes:
    """A page of the tenant's jobs as JSON bytes (a JobsPublic), each a JobSummary, as GET /jobs's
    ``query`` asks (``param`` as ``name=value`` strings). Serialised here, in the caller's thread,
    not on the event loop; a page stops early (its next_cursor after the last job it holds) once
    it would pass ``max_bytes``."""
    filters = repo.JobFilter(
        status=query.status,
        algorithm=query.algorithm,
        dataset_id=query.dataset_id,
        sweep_id=query.sweep_id,
        q=query.q,
        tags=query.tag or [],
        params=param_filters(query.param or []),
        max_mean_error=query.max_mean_error,
    )
    try:
        page = repo.list_jobs(
            session,
            tenant_id=tenant_id,
            limit=query.limit,
            cursor=query.cursor,
            where=filters,
            sort=query.sort,
        )
    except repo.InvalidCursor as exc:
        raise UnprocessableEntity.on("cursor", str(exc)) from None
    summaries = summaries_of(session, page.items)
    items: list[bytes] = []
    size = 0
    next_cursor = page.next_cursor
    for i, job in enumerate(page.items):
        item = job_summary(job, *summaries.get(job.id, (None, None))).model_dump_json().encode()
        if items and size + len(item) > max_bytes:
            next_cursor = repo.cursor_after(page.items[i - 1])
            break
        items.append(item)
        size += len(item)
    cursor_json = b"null" if next_cursor is None else b'"' + next_cursor.encode() + b'"'
    return b'{"items":[' + b",".join(items) + b'],"next_cursor":' + cursor_json + b"}"


def cancel_job(session: Session, job_id: str, tenant_id: str) -> tuple[Job, bool]:
    """Cancel a queued job at once (``True``) or ask a running one to stop at its next progress
    checkpoint (``False``); commit. A finished job never changes: 409."""
    job, outcome = repo.cancel_job(session, job_id, tenant_id=tenant_id)
    session.commit()
    if job is None:
        raise NotFound(f"no job {job_id}")
    if outcome == "unchanged":
        raise Conflict(f"job {job_id} is {job.status}; a finished job cannot be cancelled")
    return job, outcome == "cancelled"


def weights(session: Session, job: Job) -> bytes:
    """The safetensors bytes of a succeeded job's model; 409 for any other job."""
    stored = repo.get_weights(session, job.id) if job.status == JobStatus.SUCCEEDED else None
    if stored is None:
        raise Conflict(f"job {job.id} is {job.status}; weights exist once it has succeeded")
    return stored[0]


def weights_json(session: Session, job_id: str, tenant_id: str) -> WeightsJSON:
    """The model as one JSON document: θ, w, feature names, standardisation, model config, and how
    the dataset's columns became the features."""
    job = get_job(session, job_id, tenant_id)
    data = weights(session, job)
    document = artifacts.to_json(
        artifacts.unpack(data), artifacts.metadata_of(data), stored_result(session, job_id)
    )
    return WeightsJSON.model_validate({**document, "encoding": input_encoding(session, job)})


def input_encoding(session: Session, job: Job) -> InputEncoding | None:
    """How the job's dataset turned its uploaded columns into the model's features; None once the
    dataset is deleted."""
    dataset = repo.get_dataset(session, job.dataset_id, tenant_id=job.tenant_id) if job.dataset_id else None
    if dataset is None:
        return None
    return InputEncoding(
        text_features=dataset.text_features,
        missing_features=dataset.missing_features,
        target_labels=dataset.target_labels,
    )


def update_job(session: Session, job_id: str, tenant_id: str, changes: dict[str, Any]) -> Job:
    """Set the job's ``name``, ``tags`` or ``description`` (the keys ``changes`` holds; a null
    name or description clears it) and commit."""
    job = get_job(session, job_id, tenant_id)
    if "name" in changes:
        job.name = changes["name"]
    if "description" in changes:
        job.description = changes["description"]
    if "tags" in changes:
        job.tags = list(dict.fromkeys(changes["tags"] or []))
    session.commit()
    return job


def delete_job(session: Session, job_id: str, tenant_id: str) -> None:
    """Delete a finished job with its result and commit. A queued or running job is a 409 (cancel
    it first), and so is a sweep's trial (its leaderboard counts it)."""
    job = get_job(session, job_id, tenant_id)
    if job.status not in WITH_RESULT and job.status != JobStatus.FAILED:
        raise Conflict(f"job {job_id} is {job.status}; cancel it first, then delete it")
    if job.sweep_id is not None:
        raise Conflict(f"job {job_id} is a trial of sweep {job.sweep_id}; its leaderboard counts it")
    erase.forget_jobs(session, tenant_id, [job_id])
    repo.delete_jobs(session, [job_id])
    session.commit()


def compare(session: Session, job_ids: Sequence[str], tenant_id: str) -> JobsComparison:
    """Jobs side by side: their summaries, parameters (and which differ), error per environment,
    w and θ per covariate; a list per key with one entry per job, null where it has none."""
    if len(set(job_ids)) != len(job_ids):
        raise UnprocessableEntity.on("ids", "each job at most once")
    jobs = [get_job(session, job_id, tenant_id) for job_id in job_ids]
    results = results_of(session, jobs)
    summaries = summaries_of(session, jobs)
    found = [results.get(j.id) for j in jobs]
    metric = next((r.summary.metric for r in found if r is not None and r.summary is not None), None)

    def table(rows: list[dict[str, Any]]) -> dict[str, list[Any]]:
        keys = list(dict.fromkeys(k for row in rows for k in row))
        return {k: [row.get(k) for row in rows] for k in keys}

    params = table([j.params or {} for j in jobs])
    return JobsComparison(
        jobs=[job_summary(j, *summaries.get(j.id, (None, None))) for j in jobs],
        params=params,
        differing_params=[k for k, values in params.items() if any(v != values[0] for v in values)],
        metric=metric,
        environments=table(
            [
                {e.name: e.metrics().get(metric) for e in r.environments} if r is not None and metric else {}
                for r in found
            ]
        ),
        covariate_weights=table([dict(r.covariate_weights or {}) if r else {} for r in found]),
        coefficients=table([dict(r.coefficients or {}) if r else {} for r in found]),
    )
