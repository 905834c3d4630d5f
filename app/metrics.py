"""Prometheus metrics, served by the API at ``GET /metrics`` (an operator's key in keys mode,
``operator_tenants``: the numbers are totals over every tenant, with no tenant label).

Counted where they happen (prometheus-client):

    sal_http_requests_total{method, route, status}        route is the template: /jobs/{job_id}
    sal_http_request_duration_seconds{method, route}      histogram
    sal_jobs_submitted_total{algorithm, device}           API, after the job's commit
    sal_jobs_finished_total{status, algorithm, device}    worker, once per run it ended
    sal_job_duration_seconds{algorithm, device}           worker: started -> finished
    sal_job_queue_wait_seconds                            worker: enqueued -> started

Read from the database at each scrape (the SQL row is the truth; every API process answers the
same): ``sal_jobs{status}``, ``sal_queue_depth{queue}`` (queued jobs), ``sal_worker_heartbeat_age_seconds
{worker}`` (since each running job's worker last renewed its lease) and ``sal_dataset_bytes_stored``.

Several processes: set ``PROMETHEUS_MULTIPROC_DIR`` to an empty directory shared by the API's
uvicorn workers and the Celery workers of one host, before they start (``python -m
app.embedded`` does, under the data directory). prometheus-client then keeps each process's
counters in a file there and ``/metrics`` adds them up. Without it each process counts alone.
Workers on other hosts: give each host its own directory and API, or scrape per host.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable, Iterator

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.db.models import Dataset, Job, JobStatus, utcnow

__all__ = ["CONTENT_TYPE_LATEST", "render", "observe_finished"]

_SECONDS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
_JOB_SECONDS = (0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600)

HTTP_REQUESTS = Counter("sal_http_requests", "HTTP requests answered.", ["method", "route", "status"])
HTTP_SECONDS = Histogram(
    "sal_http_request_duration_seconds", "Time to answer a request.", ["method", "route"], buckets=_SECONDS
)
JOBS_SUBMITTED = Counter("sal_jobs_submitted", "Jobs accepted by POST /jobs.", ["algorithm", "device"])
JOBS_FINISHED = Counter(
    "sal_jobs_finished", "Runs a worker ended, by the status it left.", ["status", "algorithm", "device"]
)
JOB_SECONDS = Histogram(
    "sal_job_duration_seconds",
    "A job's run, started to finished.",
    ["algorithm", "device"],
    buckets=_JOB_SECONDS,
)
QUEUE_WAIT_SECONDS = Histogram(
    "sal_job_queue_wait_seconds", "From enqueued to started by a worker.", buckets=_JOB_SECONDS
)


def observe_finished(job: Job, lease_s: float) -> None:
    """Count a run the worker ended (call with the job row as it was left)."""
    device = (job.runtime or {}).get("device") or job.device
    JOBS_FINISHED.labels(job.status, job.algorithm, device).inc()
    if job.started_at is not None and job.finished_at is not None:
        JOB_SECONDS.labels(job.algorithm, device).observe((job.finished_at - job.started_at).total_seconds())


def observe_started(job: Job) -> None:
    if job.enqueued_at is not None and job.started_at is not None:
        QUEUE_WAIT_SECONDS.observe(max(0.0, (job.started_at - job.enqueued_at).total_seconds()))


class _DatabaseCollector(Collector):
    """Gauges read from the database at scrape time."""

    def __init__(
        self, sessions: Callable[[], Session], lease_s: float, clock: Callable[[], dt.datetime]
    ) -> None:
        self._sessions = sessions
        self._lease_s = lease_s
        self._clock = clock

    def collect(self) -> Iterator[GaugeMetricFamily]:
        with self._sessions() as session:
            by_status = dict(session.execute(select(Job.status, func.count()).group_by(Job.status)).all())
            depth = session.execute(
                select(Job.queue, func.count()).where(Job.status == JobStatus.QUEUED).group_by(Job.queue)
            ).all()
            running = session.execute(
                select(Job.attempts, Job.lease_expires_at).where(Job.status == JobStatus.RUNNING)
            ).all()
            # size_bytes: a table in the object store has no bytes in its row.
            stored = session.scalar(select(func.coalesce(func.sum(Dataset.size_bytes), 0)))
        jobs = GaugeMetricFamily("sal_jobs", "Jobs by status.", labels=["status"])
        for status in JobStatus:
            jobs.add_metric([status.value], by_status.get(status.value, 0))
        yield jobs
        queue = GaugeMetricFamily("sal_queue_depth", "Queued jobs per queue.", labels=["queue"])
        for name, count in depth:
            queue.add_metric([name], count)
        yield queue
        now = self._clock()
        ages: dict[str, float] = {}
        for attempts, lease_expires_at in running:
            if attempts and lease_expires_at is not None:
                worker = str(attempts[-1].get("worker", "?"))
                age = (now - (lease_expires_at - dt.timedelta(seconds=self._lease_s))).total_seconds()
                ages[worker] = min(ages.get(worker, age), max(age, 0.0))
        heartbeat = GaugeMetricFamily(
            "sal_worker_heartbeat_age_seconds",
            "Seconds since a busy worker last renewed its job's lease.",
            labels=["worker"],
        )
        for worker, age in sorted(ages.items()):
            heartbeat.add_metric([worker], age)
        yield heartbeat
        yield GaugeMetricFamily(
            "sal_dataset_bytes_stored", "Bytes of stored datasets.", value=int(stored or 0)
        )


def render(
    sessions: Callable[[], Session], lease_s: float, clock: Callable[[], dt.datetime] = utcnow
) -> bytes:
    """The exposition text: this process's counters (or every process's, in multiprocess mode)
    and the database gauges."""
    from prometheus_client import REGISTRY, multiprocess

    registry: CollectorRegistry = REGISTRY
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    text = generate_latest(registry)
    db = CollectorRegistry()
    db.register(_DatabaseCollector(sessions, lease_s, clock))
    return text + generate_latest(db)
