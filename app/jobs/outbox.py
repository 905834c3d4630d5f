"""The transactional outbox: a job and the row that says "send its id" commit together, so a
job is never stored without its delivery being owed, nor sent before it is stored.

    POST /jobs (or a rerun, or a sweep)  job + outbox row, one commit; then one quick try to send
    the broker is down                   the request still gets 202; the row stays
    relay (every worker's reaper pass)   sends due rows bound for its deployment's job queues
                                         (cpu_queue, gpu_queue), backoff 0.5 s x 2^attempts up
                                         to 5 s, deletes each row the broker accepted; a row for
                                         a queue its settings do not name is another
                                         deployment's (one sharing the database), left to it
    many relays at once                  each attempt is taken by a conditional UPDATE; a
                                         duplicate send is harmless (the claim is conditional)

Sending happens after the commit, so a crash between the two leaves the row: the id is sent
later, never lost.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Sequence

from sqlalchemy.orm import Session, sessionmaker

from app.db import outbox as rows
from app.db import repository as repo
from app.db.models import Job, utcnow
from app.queue import JobQueue, priority_of

log = logging.getLogger(__name__)
Clock = Callable[[], dt.datetime]


def priority_for(session: Session, job: Job) -> int:
    """The broker priority of ``job`` (app.queue.priority_of): a sweep trial's is bulk; a single
    job's falls as its tenant's backlog of single jobs grows (fair share between tenants)."""
    if job.sweep_id is not None:
        return priority_of(job.sweep_id)
    return priority_of(None, repo.active_jobs_of(session, job.tenant_id))


def backoff_s(attempts: int) -> float:
    """Wait before the next try after ``attempts`` failed ones: 0.5, 1, 2, 4, 5, 5, ... s."""
    return min(0.5 * 2.0 ** max(attempts - 1, 0), 5.0)


def relay(
    sessions: sessionmaker[Session],
    queue: JobQueue,
    *,
    job_ids: Sequence[str] | None = None,
    queues: Sequence[str] | None = None,
    clock: Clock = utcnow,
    limit: int = 100,
) -> int:
    """One pass: send every due row (or just ``job_ids``', or just those bound for ``queues``);
    returns how many the broker accepted. Stops at the first send that fails: the broker is
    down, the rest wait for their backoff."""
    now = clock()
    with sessions() as session:
        due = rows.due(session, now, job_ids=job_ids, queues=queues, limit=limit)
        session.commit()
    delivered = 0
    for job_id, queue_name, priority, attempts in due:
        with sessions() as session:
            won = rows.take(session, job_id, attempts, now + dt.timedelta(seconds=backoff_s(attempts + 1)))
            session.commit()
        if not won:
            continue  # another relay has this attempt
        try:
            queue.enqueue(job_id, queue_name, priority)
        except Exception as exc:
            log.warning(
                "could not send job %s (attempt %d): %s; the relay retries", job_id, attempts + 1, exc
            )
            break
        with sessions() as session:
            rows.sent(session, job_id)
            session.commit()
        delivered += 1
    return delivered
