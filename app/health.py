"""Readiness (GET /readyz): the database and the broker both answer."""

from __future__ import annotations

import logging

from sqlalchemy import text
from sqlalchemy.orm import Session

from app.errors import ServiceUnavailable
from app.queue import JobQueue

__all__ = ["check_ready"]

log = logging.getLogger(__name__)


def check_ready(session: Session, queue: JobQueue) -> None:
    """503 naming the first of the two that does not answer (the cause goes to the log only)."""
    try:
        session.execute(text("SELECT 1"))
    except Exception as exc:
        log.warning("readyz: database unreachable: %s", exc)
        raise ServiceUnavailable("the database is unreachable") from None
    try:
        queue.ping()
    except Exception as exc:
        log.warning("readyz: broker unreachable: %s", exc)
        raise ServiceUnavailable("the broker is unreachable") from None
