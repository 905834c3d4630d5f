"""POST/GET /sweeps: hyper-parameter sweeps whose trials are ordinary jobs, with model selection
(the rules are in app.sweeps.service and app.sweeps.leaderboard)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request, Response

from app.api import etag
from app.api.deps import PrincipalDep, QueueDep, SessionDep, SettingsDep
from app.api.errors import responses
from app.sweeps import service as sweeps_service
from app.sweeps.public import sweep_public, sweep_summary
from app.sweeps.schemas import SweepCreate, SweepPublic, SweepsPublic

router = APIRouter(prefix="/sweeps", tags=["sweeps"])


@router.post(
    "",
    operation_id="create_sweep",
    status_code=202,
    response_model=SweepPublic,
    responses=responses(401, 422, 429, 503),
)
def create_sweep(
    body: SweepCreate,
    response: Response,
    session: SessionDep,
    queue: QueueDep,
    settings: SettingsDep,
    principal: PrincipalDep,
) -> SweepPublic:
    """Expand the search into trials (ordinary jobs, queued for every worker) and return the sweep;
    poll GET /sweeps/{id} for progress and, once every trial is finished, the leaderboard.

    A sweep is bounded by ``max_sweep_jobs``, not by the per-tenant cap on active jobs (a grid
    over five seeds would rarely fit it); its queued trials do count toward that cap for POST /jobs."""
    sweep, counts = sweeps_service.create_sweep(session, queue, settings, principal.tenant_id, body)
    response.headers["Location"] = f"/sweeps/{sweep.id}"
    return sweep_public(sweep, counts)


@router.get("", operation_id="list_sweeps", response_model=SweepsPublic, responses=responses(422))
def list_sweeps(
    session: SessionDep,
    principal: PrincipalDep,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    cursor: Annotated[str | None, Query(description="next_cursor of the previous page")] = None,
) -> SweepsPublic:
    """Newest first, each sweep a summary (under 1 KB; the rest is on GET /sweeps/{id})."""
    items, next_cursor = sweeps_service.list_sweeps(session, principal.tenant_id, limit, cursor)
    return SweepsPublic(items=[sweep_summary(s, counts) for s, counts in items], next_cursor=next_cursor)


@router.get(
    "/{sweep_id}",
    operation_id="get_sweep",
    response_model=SweepPublic,
    responses={304: {"description": "Unchanged since the ETag in If-None-Match"}, **responses(404)},
)
def get_sweep(sweep_id: str, request: Request, session: SessionDep, principal: PrincipalDep) -> Response:
    """Progress; once every trial is finished, the leaderboard (``oracle`` marks test-set selection).
    Carries an ``ETag``; with ``If-None-Match`` an unchanged sweep is a 304."""
    body = sweep_public(*sweeps_service.get_sweep(session, sweep_id, principal.tenant_id)).model_dump_json()
    tag = etag.etag_of(body.encode())
    return etag.not_modified(tag) if etag.matches(request, tag) else etag.json_response(body, tag)


@router.post(
    "/{sweep_id}/cancel",
    operation_id="cancel_sweep",
    response_model=SweepPublic,
    responses=responses(404, 409),
)
def cancel_sweep(sweep_id: str, session: SessionDep, principal: PrincipalDep) -> SweepPublic:
    """Cancel the sweep and every trial not yet finished (a running trial stops at its next
    checkpoint). A finished sweep cannot be cancelled (409)."""
    return sweep_public(*sweeps_service.cancel_sweep(session, sweep_id, principal.tenant_id))


@router.delete("/{sweep_id}", operation_id="delete_sweep", status_code=204, responses=responses(404, 409))
def delete_sweep(sweep_id: str, session: SessionDep, principal: PrincipalDep) -> Response:
    """Delete a finished or cancelled sweep with its trial jobs, their results and weights (409
    while trials are queued or running: cancel it first)."""
    sweeps_service.delete_sweep(session, sweep_id, principal.tenant_id)
    return Response(status_code=204)
