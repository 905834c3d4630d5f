"""The broker side of the service: one Celery configuration shared by the API (which only sends
job ids, by task name) and the worker (which runs them). The SQL row is the truth; a message is
only a hint that a job may be ready to run."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from celery import Celery

from app.settings import Settings

RUN_JOB = "sal.run_job"

# Fairness: sweep trials are sent at a lower priority than single jobs and reruns, so one
# tenant's 5,000-trial sweep never stands in front of another's interactive job (a worker takes
# the next message of the highest priority; Redis: 0 is the highest of the steps 0, 3, 6, 9).
# Within one priority the order stays first in, first out. The filesystem transport of the
# embedded mode has no priorities (one user there).
INTERACTIVE_PRIORITY = 0
BULK_PRIORITY = 9


# Fair share between tenants (Redis priorities again): a tenant's single jobs go down one step as
# its backlog grows, so another tenant's first job passes all but the first of a flood of 100.
# Within a step the order stays first in, first out; backlog counts the tenant's queued and
# running single jobs, this one included.
FAIR_SHARE_STEPS = ((1, INTERACTIVE_PRIORITY), (10, 3))  # (backlog at most, priority)
BACKLOG_PRIORITY = 6


def priority_of(sweep_id: str | None, backlog: int = 1) -> int:
    """The broker priority of a job: bulk for a sweep's trials; otherwise by the tenant's backlog
    (1: interactive; up to 10: the next step; more: the last step before bulk)."""
    if sweep_id is not None:
        return BULK_PRIORITY
    for most, priority in FAIR_SHARE_STEPS:
        if backlog <= most:
            return priority
    return BACKLOG_PRIORITY


def worker_command(
    queues: Sequence[str], concurrency: int = 1, *, loglevel: str = "INFO", hostname: str | None = None
) -> list[str]:
    """The one command line of a worker (``python -m worker`` runs it; embedded mode, tests,
    benchmarks and compose spell it through that). One prefork process per fit, gossip, mingle and
    broker heartbeats off: the SQL row is the truth, the broker only delivers, so the chatter
    between workers buys nothing."""
    return [
        sys.executable, "-m", "celery", "-A", "worker.celery_app", "worker", "--pool=prefork",
        f"--concurrency={concurrency}", "-Q", ",".join(queues), "--without-gossip", "--without-mingle",
        "--without-heartbeat", f"--loglevel={loglevel}", *([f"--hostname={hostname}"] if hostname else []),
    ]  # fmt: skip


def make_celery(settings: Settings) -> Celery:
    celery = Celery("sal", broker=settings.broker_url, set_as_current=False)
    celery.conf.update(
        broker_transport_options=settings.broker_transport_options,
        broker_connection_retry_on_startup=True,
        broker_connection_timeout=5,
        task_serializer="json",
        accept_content=["json"],
        result_serializer="json",
        task_ignore_result=True,
        result_backend=None,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_soft_time_limit=settings.task_soft_time_limit,
        task_time_limit=settings.task_time_limit,
        task_default_queue=settings.cpu_queue,
        task_create_missing_queues=True,
        # Fail the request quickly when the broker is down instead of hanging on retries.
        task_publish_retry_policy={
            "max_retries": 2,
            "interval_start": 0,
            "interval_step": 0.2,
            "interval_max": 0.5,
        },
        worker_send_task_events=False,
        timezone="UTC",
        enable_utc=True,
    )
    return celery


class JobQueue:
    """Delivers job ids to workers, on the queue each job was placed on (``app.jobs.placement``:
    CPU jobs on ``cpu_queue``, CUDA jobs on ``gpu_queue``)."""

    def __init__(self, celery: Celery, settings: Settings) -> None:
        self.celery = celery
        self.settings = settings

    def enqueue(self, job_id: str, queue: str, priority: int = INTERACTIVE_PRIORITY) -> None:
        self.celery.send_task(RUN_JOB, args=[job_id], queue=queue, priority=priority)

    def ping(self) -> None:
        """Raise unless the broker accepts a connection."""
        with self.celery.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=3)
