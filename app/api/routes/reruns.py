"""POST /jobs/{id}/rerun: the same job again, from its reproducibility record."""

from __future__ import annotations

from fastapi import APIRouter, Response

from app.api.deps import PrincipalDep, QueueDep, SessionDep, SettingsDep
from app.api.errors import responses
from app.jobs import service as jobs_service
from app.jobs.public import job_public
from app.jobs.schemas import JobPublic

router = APIRouter(prefix="/jobs", tags=["jobs"])


@router.post(
    "/{job_id}/rerun",
    operation_id="rerun_job",
    status_code=202,
    response_model=JobPublic,
    responses=responses(401, 404, 409, 429, 503),
)
def rerun_job(
    job_id: str,
    response: Response,
    session: SessionDep,
    queue: QueueDep,
    settings: SettingsDep,
    principal: PrincipalDep,
) -> JobPublic:
    """Queue a new job with the same dataset (checked by sha256), algorithm, resolved parameters,
    model, environments, validation split, seed and device. On CPU its result equals the original's."""
    again = jobs_service.rerun_job(session, queue, settings, principal.tenant_id, job_id)
    response.headers["Location"] = f"/jobs/{again.id}"
    return job_public(again, None)
