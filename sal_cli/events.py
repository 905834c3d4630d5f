"""Following a job through GET /jobs/{id}/events (Server-Sent Events) instead of polling.

``job_states`` yields the job's state on each event and, at the end, the full job (one GET). A
dropped connection is resumed with ``Last-Event-ID``; a server without the endpoint (404 on the
stream while the job exists) makes the caller fall back to polling.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import httpx

__all__ = ["job_states", "read_events", "StreamUnavailable"]

RECONNECTS = 5


class StreamUnavailable(Exception):
    """The server has no event stream for this job."""


def read_events(lines: Iterator[str]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(event, id, data) for each message in a stream of SSE lines; comments are skipped."""
    fields: dict[str, str] = {}
    for line in lines:
        if not line:
            if "data" in fields:
                yield fields.get("event", "message"), fields.get("id", ""), json.loads(fields["data"])
            fields = {}
        elif not line.startswith(":"):
            name, _, value = line.partition(":")
            fields[name] = value.removeprefix(" ")


def job_states(
    http: httpx.Client, job_id: str, get_job: Callable[[], dict[str, Any]]
) -> Iterator[dict[str, Any]]:
    """The job as it changes (``{"status", "progress", ...}``), then ``get_job()`` once it ended."""
    last_id: str | None = None
    failures = 0
    while True:
        headers = {"Accept": "text/event-stream", **({"Last-Event-ID": last_id} if last_id else {})}
        try:
            with http.stream("GET", f"/jobs/{job_id}/events", headers=headers, timeout=None) as response:
                if response.status_code == 204:
                    yield get_job()
                    return
                if response.status_code != 200:
                    raise StreamUnavailable(f"HTTP {response.status_code}")
                for event, event_id, data in read_events(response.iter_lines()):
                    last_id = event_id or last_id
                    failures = 0
                    if event == "final":
                        yield get_job()
                        return
                    yield data
        except httpx.TransportError:
            failures += 1
            if failures > RECONNECTS:
                raise
