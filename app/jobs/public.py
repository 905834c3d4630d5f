"""A job as the API shows it, validated from its row (``from_attributes``): the schemas name the
fields, the row carries them (with its ``progress``, ``cancel_requested`` and ``n_attempts``
properties), and what lives elsewhere (the result, the reproducibility record) is passed beside it."""

from __future__ import annotations

from typing import Any

from app.db.models import Job
from app.jobs import reproducibility
from app.jobs.result import JobResult
from app.jobs.schemas import JobPublic, JobSummary

__all__ = ["With", "job_public", "job_summary"]


class With:
    """``obj``'s attributes and a few more, for ``model_validate(..., from_attributes=True)``."""

    def __init__(self, obj: object, **extra: Any) -> None:
        self._obj = obj
        self.__dict__.update(extra)

    def __getattr__(self, name: str) -> Any:  # only for names not in __dict__
        return getattr(self._obj, name)


def job_public(job: Job, result: JobResult | None) -> JobPublic:
    return JobPublic.model_validate(
        With(
            job,
            result=result,
            device=reproducibility.device(job),
            reproducibility=reproducibility.record(job),
        ),
        from_attributes=True,
    )


def job_summary(job: Job, summary: dict[str, Any] | None, duration_s: float | None) -> JobSummary:
    """The list view of a job: bounded in size (the error message is cut, no result document)."""
    return JobSummary.model_validate(With(job, summary=summary, duration_s=duration_s), from_attributes=True)
