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
stream. The states come from the process's one ``JobWatcher`` (app.jobs.watch); the stream is
made in app.api.job_events.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header, Request, Response
from fastapi.responses import StreamingResponse

from app.api import job_events as event_stream
from app.api.deps import PrincipalDep
from app.api.errors import responses

router = APIRouter(prefix="/jobs", tags=["jobs"])


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
    return await event_stream.open_stream(request, job_id, principal, last_event_id)


__all__ = ["router"]
