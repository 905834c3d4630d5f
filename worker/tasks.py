"""Celery tasks: each receives a job id only and re-reads everything from SQL.

Every pool process also runs a reaper thread (worker.leases), so jobs whose worker was lost are
recovered for as long as any worker is up; no separate beat process is needed.
"""

from __future__ import annotations

import logging
import os
import socket
from typing import Any

from celery import Task
from celery.signals import worker_process_init, worker_process_shutdown
from sqlalchemy.exc import InterfaceError, OperationalError

from app.datasets import fanout
from app.queue import RUN_JOB, JobQueue, make_celery
from app.settings import Settings, get_settings
from app.storage import open_store
from worker.celery_app import celery_app
from worker.chunked import CHUNK_PART
from worker.leases import Reaper
from worker.runner import Runner

log = logging.getLogger(__name__)
_runner: Runner | None = None
_reaper: Reaper | None = None


def runner() -> Runner:
    global _runner
    if _runner is None:
        _runner = Runner.from_settings()
        _start_reaper(_runner)
    return _runner


def _start_reaper(run: Runner) -> None:
    global _reaper
    if _reaper is None:
        settings = get_settings()
        # Its own Celery app: the reaper thread sends over its own connections.
        _reaper = Reaper(
            run.sessions,
            JobQueue(make_celery(settings), settings),
            settings,
            queues=_consumed_queues(settings),
            idle_for=run.idle_for,
        )
        _reaper.start()


def _consumed_queues(settings: Settings) -> list[str]:
    """The queues this worker consumes (its -Q), which a forked pool child inherits."""
    selected = celery_app.amqp.queues.consume_from
    return sorted(selected) if selected else [settings.cpu_queue]


@worker_process_init.connect
def _fresh_runner(**_: object) -> None:
    # A forked pool child must not share the parent's database connections.
    global _runner, _reaper
    _runner = None
    _reaper = None
    runner()


@worker_process_shutdown.connect
def _stop_reaper(**_: object) -> None:
    if _reaper is not None:
        _reaper.stop()


@celery_app.task(name=CHUNK_PART, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def chunk_part(part: dict[str, Any]) -> bool:
    """One part of a chunked fit's pass (worker.chunked): computed and put in the store unless it
    is there already. A worker process killed here sends the message back; the retry writes the
    same bytes."""
    settings = get_settings()
    spec = fanout.Part.from_json(part)
    store = open_store(settings, spec.storage)
    # SAL_FAULT_CHUNK_PAUSE_S: fault tests hold a part after its started marker to kill it there.
    pause = float(os.environ.get("SAL_FAULT_CHUNK_PAUSE_S", "0") or 0)
    return fanout.do_part(store, spec, worker=socket.gethostname(), pause_s=pause)


@celery_app.task(bind=True, name=RUN_JOB, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def run_job(self: Task, job_id: str) -> str:  # type: ignore[type-arg]
    try:
        return runner().run(job_id)
    except (OperationalError, InterfaceError) as exc:
        # Only the claim lets a database error out (the run records every later one): the job is
        # still queued, so the message goes back, retried with backoff until the database is back.
        delay = min(1.0 * 2 ** min(self.request.retries, 4), 8.0)
        log.warning("job %s could not be claimed (%s); retrying in %.0f s", job_id, exc, delay)
        raise self.retry(countdown=delay, max_retries=None) from None
