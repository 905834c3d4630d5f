"""Celery tasks: each receives a job id only and re-reads everything from SQL."""

from __future__ import annotations

from celery.signals import worker_process_init

from app.queue import RUN_JOB
from worker.celery_app import celery_app
from worker.runner import Runner

_runner: Runner | None = None


def runner() -> Runner:
    global _runner
    if _runner is None:
        _runner = Runner.from_settings()
    return _runner


@worker_process_init.connect
def _fresh_runner(**_: object) -> None:
    # A forked pool child must not share the parent's database connections.
    global _runner
    _runner = None


@celery_app.task(name=RUN_JOB, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def run_job(job_id: str) -> str:
    return runner().run(job_id)
