"""The stream behind GET /jobs/{id}/events (the events and their ids: app.api.routes.events): the
tenant's stream slots, the first state read before the stream starts (so a missing job is a 404),
then each state the process's one ``JobWatcher`` (app.jobs.watch) sees, as Server-Sent Events."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

from fastapi import Request, Response
from fastapi.responses import StreamingResponse
from sqlalchemy.orm import Session

from app.api.deps import in_session
from app.api.errors import TooManyRequests
from app.auth import Principal
from app.jobs import service as jobs_service
from app.jobs.public import job_summary
from app.jobs.watch import JobState, JobWatcher, StreamSlots

__all__ = ["KEEPALIVE_S", "open_stream"]

KEEPALIVE_S = 15.0  # a comment line this often keeps idle proxies from closing the stream


async def open_stream(
    request: Request, job_id: str, principal: Principal, last_event_id: str | None
) -> Response:
    """The job's event stream; 204 when ``last_event_id`` is its final state already, 429 when the
    tenant holds ``max_streams_per_tenant`` streams here, 404 for a job it cannot see."""
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
    return StreamingResponse(
        _events(request, job_id, principal, first, last_event_id),
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


def _data(state: JobState) -> dict[str, Any]:
    return {
        "status": state.status,
        "progress": {"step": state.step, "total": state.total},
        "metrics": state.metrics,
        "attempt": state.attempt,
        "cancel_requested": state.cancel_requested,
    }


def _change(state: JobState, previous: JobState | None) -> str | None:
    """The event a state is, after ``previous``: ``status``, ``progress``, or None (nothing new)."""
    if previous is None or state.status != previous.status:
        return "status"
    if (state.step, state.total) != (previous.step, previous.total) or state != previous:
        return "progress"
    return None


async def _events(
    request: Request, job_id: str, principal: Principal, first: JobState, last_event_id: str | None
) -> AsyncIterator[str]:
    """The stream's text: a retry hint, then an event per new state (a keepalive comment while
    none comes), ending with ``final``. Holds one of the tenant's slots while it runs."""
    slots: StreamSlots = request.app.state.stream_slots
    tenant_id = principal.tenant_id
    slots.take(tenant_id)
    try:
        yield "retry: 2000\n\n"
    except BaseException:
        slots.give_back(tenant_id)
        raise
    previous: JobState | None = None
    try:
        async with contextlib.aclosing(_with_keepalive(request, job_id, principal, first)) as states:
            async for state in states:
                if state is None:
                    yield ": keepalive\n\n"
                elif state.event_id == last_event_id:  # the client has it: resume after it
                    previous = state
                elif state.terminal:
                    final = await in_session(request, _final, job_id, tenant_id)
                    yield _message("final", state.event_id, final)
                    return
                else:
                    event = _change(state, previous)
                    if event is not None:
                        yield _message(event, state.event_id, _data(state))
                    previous = state
    finally:
        slots.give_back(tenant_id)


async def _with_keepalive(
    request: Request, job_id: str, principal: Principal, first: JobState
) -> AsyncGenerator[JobState | None]:
    """The watcher's states for the job, with None after each ``KEEPALIVE_S`` that brings none. A
    revoked key's stream ends within one watcher pass (events_poll_s)."""
    watcher: JobWatcher = request.app.state.watcher
    states = aiter(watcher.states(job_id, first, principal.key_id))
    pending: asyncio.Future[JobState] | None = None
    try:
        while True:
            if pending is None:
                pending = asyncio.ensure_future(anext(states))
            done, _ = await asyncio.wait({pending}, timeout=KEEPALIVE_S)
            if not done:
                yield None
                continue
            try:
                state = pending.result()
            except StopAsyncIteration:
                return
            pending = None
            yield state
    finally:
        if pending is not None:
            pending.cancel()
            with contextlib.suppress(BaseException):
                await pending
        await states.aclose()  # type: ignore[attr-defined]
