"""A sweep as the API shows it: its row, its spec's request fields and its trials counted by
status."""

from __future__ import annotations

from app.db.models import Sweep
from app.jobs.public import With
from app.sweeps.schemas import SweepPublic, SweepSummary

__all__ = ["sweep_public", "sweep_summary"]


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


def sweep_summary(sweep: Sweep, counts: dict[str, int]) -> SweepSummary:
    """The list view of a sweep: bounded in size (algorithm names, no candidates or leaderboard)."""
    done = counts["succeeded"] + counts["failed"] + counts["cancelled"]
    extra = {
        "oracle": sweep.selection == "oracle",
        "task": sweep.spec["task"],
        "algorithms": list(sweep.spec["algorithms"]),
        "n_seeds": len(sweep.spec["seeds"]),
        "progress": {**counts, "total": sweep.n_jobs, "done": done},
    }
    return SweepSummary.model_validate(With(sweep, **extra), from_attributes=True)
