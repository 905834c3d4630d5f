"""Celery tasks: each receives a job id only and re-reads everything from SQL.

Every pool process also runs a reaper thread (worker.leases), so jobs whose worker was lost are
recovered for as long as any worker is up; no separate beat process is needed.
"""

from __future__ import annotations

from celery.signals import worker_process_init, worker_process_shutdown

from app.queue import RUN_JOB, JobQueue, make_celery
from app.settings import get_settings
from worker.celery_app import celery_app
from worker.leases import Reaper
from worker.runner import Runner

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
        _reaper = Reaper(run.sessions, JobQueue(make_celery(settings), settings), settings)
        _reaper.start()


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


@celery_app.task(name=RUN_JOB, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def run_job(job_id: str) -> str:
    return runner().run(job_id)
