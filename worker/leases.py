"""Crash recovery in the worker: a heartbeat that renews a running job's lease, and a reaper that
every worker process runs, which relays the outbox (app.jobs.outbox), re-queues jobs whose worker
was lost and re-sends queued jobs whose message was lost.

    lease expired, cancel requested          -> cancelled
    lease expired, ran past task_time_limit  -> failed, type "timeout" (the hard limit killed it)
    lease expired, attempt < max_attempts    -> queued again (attempt + 1 when claimed)
    lease expired, attempt = max_attempts    -> failed, type "worker_lost"
    queued, sent over requeue_after_s ago    -> sent again (a duplicate claims nothing)
    queued on my queues over idle_resend_s,  -> sent again: the message was lost (broker restart),
      and this worker idle that long            or it would have reached an idle worker
    holder on this host and its pid dead     -> taken over at once by the worker the message is
                                                redelivered to (worker.runner), no lease wait

The reaper's changes are conditional UPDATEs (app.db.leases), so reapers in many workers at once
are harmless; the job id is sent only after the change is committed.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import random
import socket
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType

from sqlalchemy.orm import Session, sessionmaker

from app.db import leases
from app.db.models import JobStatus, utcnow
from app.jobs import outbox
from app.queue import JobQueue, priority_of
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


def recover(session: Session, job: leases.Expired, now: dt.datetime, settings: Settings) -> str:
    """The table above for one job whose worker is gone: "cancelled", "failed", "requeued", or
    "none" when another reaper (or a worker taking over) changed it first. Does not commit."""
    limit = settings.task_time_limit
    if job.cancel_requested:
        return "cancelled" if leases.end_expired(session, job, now, JobStatus.CANCELLED, None) else "none"
    if job.started_at is not None and (now - job.started_at).total_seconds() > limit:
        error = {
            "type": "timeout",
            "message": f"the job exceeded the hard time limit of {limit} s and was killed",
        }
        return "failed" if leases.end_expired(session, job, now, JobStatus.FAILED, error) else "none"
    if job.attempt >= settings.max_attempts:
        error = {
            "type": "worker_lost",
            "message": f"the worker running it was lost on each of {job.attempt} attempts (max_attempts)",
        }
        return "failed" if leases.end_expired(session, job, now, JobStatus.FAILED, error) else "none"
    return "requeued" if leases.requeue_expired(session, job, now) else "none"


def holder_gone(worker: str, hostname: str | None = None, pid: int | None = None) -> bool:
    """True when the worker "host:pid" that holds a job is provably not running it: it is on this
    host and its process is dead (or a zombie), or it is this very process, which runs one task at
    a time and is starting another. A holder on another host is gone only when its lease expires."""
    hostname = hostname or socket.gethostname()
    pid = os.getpid() if pid is None else pid
    host, _, pid_text = worker.rpartition(":")
    if host != hostname or not pid_text.isdigit():
        return False
    holder = int(pid_text)
    if holder == pid:
        return True
    try:
        os.kill(holder, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    try:  # killed but not yet reaped by its parent: a zombie runs nothing
        return Path(f"/proc/{holder}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return False


class Reaper:
    """``run_once`` is one pass; ``start`` runs passes every ``reaper_interval_s`` (jittered, so
    the reapers of many workers spread out) in a daemon thread."""

    def __init__(
        self,
        sessions: sessionmaker[Session],
        queue: JobQueue,
        settings: Settings,
        clock: Clock = utcnow,
        *,
        queues: Sequence[str] = (),
        idle_for: Callable[[], float] | None = None,
    ):
        self.sessions = sessions
        self.queue = queue
        self.settings = settings
        self.clock = clock
        self.queues = list(queues)
        self.idle_for = idle_for  # seconds this worker process has had nothing to run
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def run_once(self) -> dict[str, int]:
        """Returns how many jobs it relayed from the outbox, re-queued, ended and re-sent."""
        counts = {"requeued": 0, "failed": 0, "cancelled": 0, "resent": 0, "skipped": 0}
        job_queues = (self.settings.cpu_queue, self.settings.gpu_queue)
        counts["relayed"] = outbox.relay(self.sessions, self.queue, queues=job_queues, clock=self.clock)
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
        for job_id, queue, seen, sweep_id in stale:
            with self.sessions() as session:
                won = leases.mark_resent(session, job_id, seen, now)
                session.commit()
            if won:
                log.warning(
                    "job %s was not claimed within %s s; sending it again",
                    job_id,
                    self.settings.requeue_after_s,
                )
                self._send(job_id, queue, sweep_id)
                counts["resent"] += 1
        counts["resent"] += self._resend_while_idle(now)
        return counts

    def _resend_while_idle(self, now: dt.datetime) -> int:
        """An idle worker that sees queued jobs on its own queues, sent over ``idle_resend_s`` ago,
        sends them again: their messages were lost (a broker restart without persistence), or they
        would have reached it. A message still on its way only makes a duplicate, which claims
        nothing. This is what makes queued work resume seconds after a broker restart."""
        if self.idle_for is None or not self.queues or self.idle_for() < self.settings.idle_resend_s:
            return 0
        older_than = now - dt.timedelta(seconds=self.settings.idle_resend_s)
        with self.sessions() as session:
            stale = leases.queued_on(session, self.queues, older_than, limit=self.settings.idle_resend_batch)
            session.commit()
        sent = 0
        for job_id, queue, seen, sweep_id in stale:
            with self.sessions() as session:
                won = leases.mark_resent(session, job_id, seen, now)
                session.commit()
            if won:
                log.warning("idle with job %s queued since before %s; sending it again", job_id, seen)
                self._send(job_id, queue, sweep_id)
                sent += 1
        return sent

    def _recover(self, job: leases.Expired, now: dt.datetime) -> str:
        with self.sessions() as session:
            outcome = recover(session, job, now, self.settings)
            session.commit()
        if outcome == "requeued":
            log.warning("job %s lost its worker on attempt %d; queued again", job.id, job.attempt)
            self._send(job.id, job.queue, job.sweep_id)
        elif outcome != "none":
            log.warning("job %s lost its worker on attempt %d; now %s", job.id, job.attempt, outcome)
        return outcome if outcome != "none" else "skipped"

    def _send(self, job_id: str, queue: str, sweep_id: str | None) -> None:
        try:
            self.queue.enqueue(job_id, queue, priority_of(sweep_id))
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
