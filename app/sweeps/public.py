"""A sweep as the API shows it: its row, its spec's request fields and its trials counted by
status."""

from __future__ import annotations

from app.db.models import Sweep
from app.sweeps.schemas import SweepPublic

__all__ = ["sweep_public"]


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
