"""Reports below the routes: read what a report shows (the job or sweep as GET by id shows it, and
for a sweep the selected jobs' histories and w per seed) and build the Report. Each function
returns the data shown too, whose hash is the rendered document's ETag."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from app.jobs import service as jobs_service
from app.jobs.public import job_public
from app.jobs.result import RoundResult
from app.reports.job import job_report
from app.reports.report import Report
from app.reports.sweep import sweep_report
from app.sweeps import service as sweeps_service
from app.sweeps.public import sweep_public

__all__ = ["job_report_of", "sweep_report_of"]


def job_report_of(session: Session, job_id: str, tenant_id: str) -> tuple[Any, Report]:
    """The job's report, from the result GET /jobs/{id} shows: a job cancelled while running
    reports its partial fit (and says so)."""
    job = jobs_service.get_job(session, job_id, tenant_id)
    public = job_public(job, jobs_service.result_of(session, job))
    return public.model_dump(mode="json"), job_report(public)


def sweep_report_of(session: Session, sweep_id: str, tenant_id: str) -> tuple[Any, Report]:
    """The sweep's report: its leaderboard, the training history of SAL's selected job (else the
    first selected job with w; the first seed's), and w per seed of each selected configuration."""
    sweep = sweep_public(*sweeps_service.get_sweep(session, sweep_id, tenant_id))
    rows = [] if sweep.leaderboard is None else sweep.leaderboard.algorithms
    histories: dict[str, list[RoundResult]] = {}
    for row in sorted(rows, key=lambda r: r.algorithm != "sal"):
        if row.covariate_weights and row.jobs:
            result = jobs_service.stored_result(session, row.jobs[0])  # the sweep's own job: same tenant
            histories[row.algorithm] = [] if result is None else result.history
            break
    seed_weights = {
        row.algorithm: [
            r.covariate_weights
            for r in jobs_service.stored_results(session, row.jobs).values()
            if r.covariate_weights
        ]
        for row in rows
        if row.covariate_weights and row.jobs
    }
    shown = [
        sweep.model_dump(mode="json"),
        {a: [r.model_dump() for r in h] for a, h in histories.items()},
        seed_weights,
    ]
    return shown, sweep_report(sweep, histories, seed_weights)
