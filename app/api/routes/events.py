"""GET /jobs/{id}/events: a job's life as Server-Sent Events, for watching without polling.

Events (each ``data`` is one JSON object):

* ``status``   the status changed: ``JobEventData`` ``{"status", "progress", "metrics",
  "attempt", "cancel_requested"}``; ``metrics`` is the latest round's ``{"risk", "w"}`` (``w`` by
  feature for SAL on at most 50 features) as the worker last wrote it, or null
* ``progress`` the fit moved on: same fields
* ``final``    the job ended: its list view (``JobSummary``: status, test summary, duration, error);
  the stream then ends.

Every event's ``id`` names the state it shows. A client that reconnects with ``Last-Event-ID`` is
not sent that state again; one that has seen the final state gets ``204`` (an ``EventSource``
stops reconnecting). A comment line every ``KEEPALIVE_S`` keeps idle proxies from closing the
stream. The states come from the process's one ``JobWatcher`` (app.jobs.watch).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Header, Request, Response
from fastapi.responses import StreamingResponse
from sqlalchemy.orm import Session

from app.api.deps import PrincipalDep, in_session
from app.api.errors import TooManyRequests, responses
from app.auth import Principal
from app.jobs import service as jobs_service
from app.jobs.public import job_summary
from app.jobs.watch import JobState, JobWatcher, StreamSlots

router = APIRouter(prefix="/jobs", tags=["jobs"])
KEEPALIVE_S = 15.0


def _event(name: str, data_schema: str) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["event", "data", "id"],
        "properties": {
            "event": {"const": name},
            "id": {"type": "string", "description": "attempt-step-status; resume with Last-Event-ID"},
            "retry": {"type": "integer"},
            "data": {
                "type": "string",
                "contentMediaType": "application/json",
                "contentSchema": {"$ref": f"#/components/schemas/{data_schema}"},
            },
        },
    }


EVENT_SCHEMA: dict[str, Any] = {
    "oneOf": [
        _event("status", "JobEventData"),
        _event("progress", "JobEventData"),
        _event("final", "JobSummary"),
    ]
}


@router.get(
    "/{job_id}/events",
    operation_id="get_job_events",
    response_class=StreamingResponse,
    responses={
        200: {
            "description": "Server-Sent Events: status, progress, final (see the module docstring)",
            # Before OpenAPI 3.2 (itemSchema), an event stream's schema describes each event (as
            # schemathesis checks them); the text alternative lets a generated client hand back the
            # body as a str (sal_client.easy's read_events parses it) instead of failing on it.
            "content": {
                "text/event-stream": {
                    "schema": {
                        "anyOf": [
                            {
                                "type": "string",
                                "description": "The stream as text (a generated client's view)",
                            },
                            *EVENT_SCHEMA["oneOf"],
                        ]
                    }
                }
            },
        },
        204: {"description": "Last-Event-ID is the job's final state: nothing more will come"},
        **responses(401, 404),
    },
)
async def job_events(
    job_id: str,
    request: Request,
    principal: PrincipalDep,
    last_event_id: Annotated[str | None, Header(description="Resume after this event id")] = None,
) -> Response:
    """Follow a job until it ends: status and progress as they change, then a final event."""
    slots: StreamSlots = request.app.state.stream_slots
    if slots.full(principal.tenant_id):
        raise TooManyRequests(
            f"this tenant has {slots.per_tenant} event streams open here (max_streams_per_tenant); "
            "close one, or poll GET /jobs/{id}",
            retry_after_s=request.app.state.settings.retry_after_s,
        )
    first = await in_session(request, _state, job_id, principal.tenant_id)
    if first.terminal and first.event_id == last_event_id:
        return Response(status_code=204)
    stream = _events(request, job_id, principal, first, last_event_id)
    return StreamingResponse(
        stream,
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


def _state(session: Session, job_id: str, tenant_id: str) -> JobState:
    job = jobs_service.get_job(session, job_id, tenant_id)  # 404 before any stream starts
    return JobState(
        job.status,
        job.progress_step,
        job.progress_total,
        job.attempt,
        job.cancel_requested_at is not None,
        job.progress_metrics,
    )


def _final(session: Session, job_id: str, tenant_id: str) -> dict[str, Any]:
    job = jobs_service.get_job(session, job_id, tenant_id)
    summary, duration_s = jobs_service.summaries_of(session, [job]).get(job.id, (None, None))
    return job_summary(job, summary, duration_s).model_dump(mode="json")


def _message(event: str, event_id: str, data: dict[str, Any]) -> str:
    return f"id: {event_id}\nevent: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


async def _events(
    request: Request, job_id: str, principal: Principal, first: JobState, last_event_id: str | None
) -> AsyncIterator[str]:
    watcher: JobWatcher = request.app.state.watcher
    slots: StreamSlots = request.app.state.stream_slots
    tenant_id = principal.tenant_id
    slots.take(tenant_id)
    try:
        yield "retry: 2000\n\n"
    except BaseException:
        slots.give_back(tenant_id)
        raise
    # A revoked key's stream ends within one watcher pass (events_poll_s).
    states = aiter(watcher.states(job_id, first, principal.key_id))
    previous: JobState | None = None
    pending: asyncio.Future[JobState] | None = None
    try:
        while True:
            if pending is None:
                pending = asyncio.ensure_future(anext(states))
            done, _ = await asyncio.wait({pending}, timeout=KEEPALIVE_S)
            if not done:
                yield ": keepalive\n\n"
                continue
            try:
                state = pending.result()
            except StopAsyncIteration:
                return
            pending = None
            if state.event_id == last_event_id:  # the client has it: resume after it
                previous = state
                continue
            if state.terminal:
                final = await in_session(request, _final, job_id, tenant_id)
                yield _message("final", state.event_id, final)
                return
            data = {
                "status": state.status,
                "progress": {"step": state.step, "total": state.total},
                "metrics": state.metrics,
                "attempt": state.attempt,
                "cancel_requested": state.cancel_requested,
            }
            if previous is None or state.status != previous.status:
                yield _message("status", state.event_id, data)
            elif (state.step, state.total) != (previous.step, previous.total) or state != previous:
                yield _message("progress", state.event_id, data)
            previous = state
    finally:
        if pending is not None:
            pending.cancel()
            with contextlib.suppress(BaseException):
                await pending
        await states.aclose()  # type: ignore[attr-defined]
        slots.give_back(tenant_id)


__all__ = ["router"]
