"""POST /jobs below its route: queue the job under its ``Idempotency-Key`` (a retry replays the
first answer instead of queueing a second job), and count it in the metrics."""

from __future__ import annotations

from fastapi.responses import JSONResponse
from sqlalchemy.orm import Session

from app import metrics
from app.api import idempotency
from app.db.models import Job
from app.jobs import service as jobs_service
from app.jobs.public import job_public
from app.jobs.schemas import JobCreate, JobPublic
from app.queue import JobQueue
from app.settings import Settings

__all__ = ["create"]


def create(
    session: Session,
    queue: JobQueue,
    settings: Settings,
    tenant_id: str,
    body: JobCreate,
    key: str | None,
) -> JobPublic | JSONResponse:
    """The queued job's view, or (a repeat of a finished request with the same key) the first
    response to replay. The answer is stored in the job's own commit (``before_commit``)."""
    stored: list[JobPublic] = []

    def record(job: Job) -> None:
        stored.append(job_public(job, None))
        claimed.complete(202, stored[0].model_dump(mode="json"), f"/jobs/{job.id}")

    with idempotency.claim(
        session,
        tenant_id,
        key,
        "create_job",
        body.model_dump(mode="json"),
        in_flight_s=settings.idempotency_in_flight_s,
    ) as claimed:
        if claimed.replay is not None:
            return claimed.replay
        job = jobs_service.queue_job(session, queue, settings, tenant_id, body, before_commit=record)
    metrics.JOBS_SUBMITTED.labels(job.algorithm, job.device).inc()
    return stored[0]
