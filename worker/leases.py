"""Crash recovery in the worker: a heartbeat that renews a running job's lease, and a reaper that
every worker process runs, which re-queues jobs whose worker was lost and re-sends queued jobs
whose message was lost.

    lease expired, cancel requested          -> cancelled
    lease expired, ran past task_time_limit  -> failed, type "timeout" (the hard limit killed it)
    lease expired, attempt < max_attempts    -> queued again (attempt + 1 when claimed)
    lease expired, attempt = max_attempts    -> failed, type "worker_lost"
    queued, sent over requeue_after_s ago    -> sent again (a duplicate claims nothing)

The reaper's changes are conditional UPDATEs (app.db.leases), so reapers in many workers at once
are harmless; the job id is sent only after the change is committed.
"""

from __future__ import annotations

import datetime as dt
import logging
import random
import threading
from collections.abc import Callable
from types import TracebackType

from sqlalchemy.orm import Session, sessionmaker

from app.db import leases
from app.db.models import JobStatus, utcnow
from app.queue import JobQueue
from app.settings import Settings

log = logging.getLogger(__name__)
Clock = Callable[[], dt.datetime]


class Heartbeat:
    """Renews one claimed job's lease every ``heartbeat_s`` from a thread, while the fit runs."""

    def __init__(
        self,
        sessions: sessionmaker[Session],
        job_id: str,
        attempt: int,
        settings: Settings,
        clock: Clock = utcnow,
    ):
        self._sessions = sessions
        self._job_id = job_id
        self._attempt = attempt
        self._settings = settings
        self._clock = clock
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"heartbeat-{job_id}", daemon=True)
        self.lost = False  # the job is no longer this attempt's

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self._settings.heartbeat_s):
            try:
                with self._sessions() as session:
                    mine = leases.renew_lease(
                        session, self._job_id, self._attempt, self._clock(), self._settings.lease_s
                    )
                    session.commit()
            except Exception as exc:  # the database may be briefly away; the lease has slack
                log.warning("heartbeat for job %s failed: %s", self._job_id, exc)
                continue
            if not mine:
                self.lost = True
                return


class Reaper:
    """``run_once`` is one pass; ``start`` runs passes every ``reaper_interval_s`` (jittered, so
    the reapers of many workers spread out) in a daemon thread."""

    def __init__(
        self, sessions: sessionmaker[Session], queue: JobQueue, settings: Settings, clock: Clock = utcnow
    ):
        self.sessions = sessions
        self.queue = queue
        self.settings = settings
        self.clock = clock
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def run_once(self) -> dict[str, int]:
        """Returns how many jobs it re-queued, ended and re-sent."""
        counts = {"requeued": 0, "failed": 0, "cancelled": 0, "resent": 0, "skipped": 0}
        now = self.clock()
        with self.sessions() as session:
            expired = leases.expired_leases(session, now, lease_s=self.settings.lease_s)
            session.commit()
        for job in expired:
            counts[self._recover(job, now)] += 1
        older_than = now - dt.timedelta(seconds=self.settings.requeue_after_s)
        with self.sessions() as session:
            stale = leases.unclaimed(session, older_than)
            session.commit()
        for job_id, queue, seen in stale:
            with self.sessions() as session:
                won = leases.mark_resent(session, job_id, seen, now)
                session.commit()
            if won:
                log.warning(
                    "job %s was not claimed within %s s; sending it again",
                    job_id,
                    self.settings.requeue_after_s,
                )
                self._send(job_id, queue)
                counts["resent"] += 1
        return counts

    def _recover(self, job: leases.Expired, now: dt.datetime) -> str:
        limit = self.settings.task_time_limit
        with self.sessions() as session:
            if job.cancel_requested:
                outcome = (
                    "cancelled"
                    if leases.end_expired(session, job, now, JobStatus.CANCELLED, None)
                    else "none"
                )
            elif job.started_at is not None and (now - job.started_at).total_seconds() > limit:
                error = {
                    "type": "timeout",
                    "message": f"the job exceeded the hard time limit of {limit} s and was killed",
                }
                outcome = (
                    "failed" if leases.end_expired(session, job, now, JobStatus.FAILED, error) else "none"
                )
            elif job.attempt >= self.settings.max_attempts:
                error = {
                    "type": "worker_lost",
                    "message": f"the worker running it was lost on each of {job.attempt} attempts (max_attempts)",
                }
                outcome = (
                    "failed" if leases.end_expired(session, job, now, JobStatus.FAILED, error) else "none"
                )
            else:
                outcome = "requeued" if leases.requeue_expired(session, job, now) else "none"
            session.commit()
        if outcome == "requeued":
            log.warning("job %s lost its worker on attempt %d; queued again", job.id, job.attempt)
            self._send(job.id, job.queue)
        elif outcome != "none":
            log.warning("job %s lost its worker on attempt %d; now %s", job.id, job.attempt, outcome)
        return outcome if outcome != "none" else "skipped"

    def _send(self, job_id: str, queue: str) -> None:
        try:
            self.queue.enqueue(job_id, queue)
        except Exception as exc:  # still queued: the next pass re-sends it after requeue_after_s
            log.warning("could not send job %s: %s", job_id, exc)

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="reaper", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def _loop(self) -> None:
        interval = self.settings.reaper_interval_s
        while not self._stop.wait(interval * random.uniform(0.5, 1.5)):
            try:
                self.run_once()
            except Exception as exc:
                log.warning("reaper pass failed: %s", exc)

    def __enter__(self) -> Reaper:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
