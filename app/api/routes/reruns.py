"""POST /jobs/{id}/rerun: the same job again, from its reproducibility record."""

from __future__ import annotations

import uuid

from fastapi import APIRouter, Response

from app.api.deps import PrincipalDep, QueueDep, SessionDep
from app.api.enqueue import commit_and_enqueue
from app.api.errors import Conflict, NotFound, responses
from app.api.routes.jobs import to_public
from app.api.schemas import JobPublic
from app.db import repository as repo
from app.db.models import Job, JobStatus, utcnow

router = APIRouter(prefix="/jobs", tags=["jobs"])


@router.post(
    "/{job_id}/rerun",
    operation_id="rerun_job",
    status_code=202,
    response_model=JobPublic,
    responses=responses(401, 404, 409, 503),
)
def rerun_job(
    job_id: str, response: Response, session: SessionDep, queue: QueueDep, principal: PrincipalDep
) -> JobPublic:
    """Queue a new job with the same dataset (checked by sha256), algorithm, resolved parameters,
    model, environments, validation split, seed and device. On CPU its result equals the original's."""
    tenant = principal.tenant_id
    job = repo.get_job(session, job_id, tenant_id=tenant)
    if job is None:
        raise NotFound(f"no job {job_id}")
    dataset = (
        repo.get_dataset(session, job.dataset_id, tenant_id=tenant) if job.dataset_id is not None else None
    )
    if dataset is None:
        raise Conflict(f"job {job_id}'s dataset has been deleted; upload it again and submit a new job")
    if job.dataset_sha256 is not None and dataset.sha256 != job.dataset_sha256:
        raise Conflict(f"job {job_id}'s dataset no longer has sha256 {job.dataset_sha256}")
    again = Job(
        id=str(uuid.uuid4()),
        tenant_id=tenant,
        dataset_id=dataset.id,
        status=JobStatus.QUEUED,
        algorithm=job.algorithm,
        task=job.task,
        params=job.params,
        model=job.model,
        seed=job.seed,
        device=job.device,
        queue=job.queue,
        train_environments=job.train_environments,
        test_environments=job.test_environments,
        progress_step=0,
        validation=job.validation,
        dataset_sha256=dataset.sha256,
        rerun_of=job.id,
        enqueued_at=utcnow(),
        attempts=[],
    )
    repo.add_job(session, again)
    commit_and_enqueue(session, queue, [again])
    response.headers["Location"] = f"/jobs/{again.id}"
    return to_public(again, None)
