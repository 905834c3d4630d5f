"""Structured logs: one JSON object a line, one schema for the API and the worker.

Every line has the same keys, ``null`` where not known::

    timestamp    ISO 8601, UTC, milliseconds
    level        INFO, WARNING, ...
    logger       the logger's name (app.api, worker.runner, celery.app.trace, ...)
    message      the formatted message (secrets scrubbed, see below)
    request_id   the X-Request-ID of the API request (honoured if sent, else made); a job keeps the
                 one of the request that submitted it, so the worker's lines carry it too
    tenant       the tenant's name
    job_id       ties the API's "job queued" line to the worker's "job started/finished" lines
    attempt      the worker's claim number
    algorithm    the job's algorithm
    duration_ms  a request's or a run's duration

and, when a line has them, the extra fields in ``EXTRA_FIELDS`` and ``exception``.

The context fields come from :func:`bind` (a context variable, so each request or run has its
own). Secrets are never passed to a logger; as a second fence, anything that looks like an API
key or an ``Authorization``/``Bearer`` value is replaced by ``[redacted]`` in every line.
"""

from __future__ import annotations

import contextlib
import contextvars
import datetime as dt
import json
import logging
import re
import sys
import uuid
from collections.abc import Iterator
from typing import Any

from app.auth import KEY_PREFIX

CONTEXT_FIELDS = ("request_id", "tenant", "job_id", "attempt", "algorithm")
EXTRA_FIELDS = ("method", "route", "status", "http_status", "queue", "worker", "outcome")
REQUEST_ID_HEADER = "X-Request-ID"
_REQUEST_ID_OK = re.compile(r"[A-Za-z0-9._:@/+=-]{1,128}")
# The value after "Bearer " or "Authorization: [Bearer|Basic] " is masked, the scheme word kept; a
# placeholder such as "<key>" in an instruction is not a secret and stays readable.
_SECRETS = re.compile(
    r"(?i)(bearer\s+|authorization[\"']?\s*[:=]\s*[\"']?(?:(?:bearer|basic)\s+)?)(?!<|bearer\b|basic\b)\S+"
    rf"|{re.escape(KEY_PREFIX)}[A-Za-z0-9_-]{{8,}}"
)

# One mutable dict per request or run: a dependency that runs in the thread pool (a copy of the
# context) can still add the tenant the request's other lines should carry.
_context: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "sal_log_context", default=None
)


def current(field: str) -> Any:
    fields = _context.get()
    return None if fields is None else fields.get(field)


@contextlib.contextmanager
def bind(**fields: Any) -> Iterator[dict[str, Any]]:
    """Within the block, every line carries ``fields`` (added to any already bound); the yielded
    dict may be updated to add more."""
    merged = {**(_context.get() or {}), **fields}
    token = _context.set(merged)
    try:
        yield merged
    finally:
        _context.reset(token)


def add(**fields: Any) -> None:
    """Add fields to the context bound now (no-op outside :func:`bind`)."""
    bound = _context.get()
    if bound is not None:
        bound.update(fields)


def request_id_from(header: str | None) -> str:
    """The client's X-Request-ID when it is a sane token (at most 128 of ``A-Za-z0-9._:@/+=-``),
    else a new one: a header cannot inject lines or secrets into the log."""
    if header is not None and _REQUEST_ID_OK.fullmatch(header) and not _SECRETS.search(header):
        return header
    return uuid.uuid4().hex


def scrub(text: str) -> str:
    return _SECRETS.sub(lambda m: (m.group(1) or "") + "[redacted]", text)


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        bound = _context.get() or {}
        line: dict[str, Any] = {
            "timestamp": dt.datetime.fromtimestamp(record.created, dt.UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": scrub(record.getMessage()),
        }
        for field in (*CONTEXT_FIELDS, "duration_ms"):
            line[field] = getattr(record, field, bound.get(field))
        for field in EXTRA_FIELDS:
            value = getattr(record, field, None)
            if value is not None:
                line[field] = value
        if record.exc_info:
            line["exception"] = scrub(self.formatException(record.exc_info))
        return json.dumps(line, default=str, ensure_ascii=False)


def configure(level: str | int = logging.INFO, stream: Any = None) -> None:
    """Send every logger's lines, as JSON, to ``stream`` (stderr): the root gets one handler,
    and the loggers that keep their own (uvicorn's) hand theirs over to it."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    for name in ("uvicorn", "uvicorn.error", "celery"):
        logger = logging.getLogger(name)
        logger.handlers.clear()
        logger.propagate = True
    # The API writes its own access line (app.api.observe) with the request id and duration.
    logging.getLogger("uvicorn.access").disabled = True
