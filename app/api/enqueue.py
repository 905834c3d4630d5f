"""Commit new job rows, then hand their ids to the broker (never the other way round)."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from sqlalchemy.orm import Session

from app.api.errors import ServiceUnavailable
from app.db import repository as repo
from app.db.models import Job, JobStatus
from app.queue import JobQueue

log = logging.getLogger(__name__)


def commit_and_enqueue(session: Session, queue: JobQueue, jobs: Sequence[Job]) -> None:
    """Commit, then enqueue each job; if the broker fails, the jobs not yet sent end ``failed``
    (``enqueue_failed``) and the request gets a 503."""
    session.commit()
    for i, job in enumerate(jobs):
        try:
            queue.enqueue(job.id, job.queue)
        except Exception as exc:
            log.exception("could not enqueue job %s", job.id)
            for unsent in jobs[i:]:
                repo.fail_job(
                    session,
                    unsent.id,
                    {"type": "enqueue_failed", "message": str(exc)},
                    from_status=[JobStatus.QUEUED],
                )
            session.commit()
            raise ServiceUnavailable("the job could not be queued: the broker is unreachable") from None
