"""Rows as the API shows them: one function per public schema, shared by every route that
returns one (routes never import each other)."""

from __future__ import annotations

from typing import Any

from app.db.models import Job, Sweep
from app.jobs import reproducibility
from app.jobs.result import JobResult
from app.jobs.schemas import JobPublic, JobSummary
from app.sweeps.schemas import SweepPublic


def job_public(job: Job, result: JobResult | None) -> JobPublic:
    return JobPublic.model_validate(
        {
            "id": job.id,
            "name": job.name,
            "tags": job.tags or [],
            "description": job.description,
            "status": job.status,
            "progress": {"step": job.progress_step, "total": job.progress_total},
            "created_at": job.created_at,
            "started_at": job.started_at,
            "finished_at": job.finished_at,
            "error": job.error,
            "algorithm": job.algorithm,
            "task": job.task,
            "params": job.params,
            "model": job.model,
            "seed": job.seed,
            "device": job.device,
            "device_chosen": job.device_chosen,
            "device_reason": job.device_reason,
            "queue": job.queue,
            "dataset_id": job.dataset_id,
            "train_environments": job.train_environments,
            "test_environments": job.test_environments,
            "result": result,
            "attempts": job.attempts,
            "cancel_requested": job.cancel_requested_at is not None,
            "validation": job.validation,
            "sweep_id": job.sweep_id,
            "rerun_of": job.rerun_of,
            "reproducibility": reproducibility.record(job),
        }
    )


ERROR_MESSAGE_CHARS = 200


def job_summary(job: Job, summary: dict[str, Any] | None, duration_s: float | None) -> JobSummary:
    """The list view of a job: bounded in size (the error message is cut, no result document)."""
    error = job.error
    if error is not None and len(str(error.get("message", ""))) > ERROR_MESSAGE_CHARS:
        error = {**error, "message": str(error["message"])[: ERROR_MESSAGE_CHARS - 1] + "…"}
    return JobSummary.model_validate(
        {
            "id": job.id,
            "name": job.name,
            "tags": job.tags or [],
            "status": job.status,
            "progress": {"step": job.progress_step, "total": job.progress_total},
            "created_at": job.created_at,
            "started_at": job.started_at,
            "finished_at": job.finished_at,
            "error": error,
            "algorithm": job.algorithm,
            "task": job.task,
            "seed": job.seed,
            "device": job.device,
            "dataset_id": job.dataset_id,
            "sweep_id": job.sweep_id,
            "rerun_of": job.rerun_of,
            "cancel_requested": job.cancel_requested_at is not None,
            "n_attempts": len(job.attempts or ()),
            "summary": summary,
            "duration_s": duration_s,
        }
    )


def sweep_public(sweep: Sweep, counts: dict[str, int]) -> SweepPublic:
    spec = sweep.spec
    done = counts["succeeded"] + counts["failed"] + counts["cancelled"]
    return SweepPublic.model_validate(
        {
            "id": sweep.id,
            "status": sweep.status,
            "selection": sweep.selection,
            "oracle": sweep.selection == "oracle",
            "dataset_id": sweep.dataset_id,
            "task": spec["task"],
            "train_environments": spec["train_environments"],
            "test_environments": spec["test_environments"],
            "seeds": spec["seeds"],
            "algorithms": spec["algorithms"],
            "progress": {**counts, "total": sweep.n_jobs, "done": done},
            "leaderboard": sweep.leaderboard,
            "created_at": sweep.created_at,
            "finished_at": sweep.finished_at,
        }
    )
