"""Where a job runs, decided once when it is submitted: its device and the queue whose workers can
run it.

``"device": "auto"`` means the same in every deployment: ``sal_core.devices.choose_device`` (the
cost rule: training rows × features against a threshold per model kind) picks CPU or CUDA, and
CUDA only where ``Settings.has_gpu_workers`` says a GPU worker listens on ``gpu_queue``. A job that
asks for ``"cuda"`` goes to ``gpu_queue``; where no GPU worker is configured it could never run (the
embedded default has none), so it is refused at submit with a 422 on ``device`` that says why,
rather than left queued with no bound. It never runs on a CPU instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.db.models import Dataset
from app.errors import UnprocessableEntity
from app.settings import Settings
from sal_core.devices import choose_device


@dataclass(frozen=True)
class Placement:
    device: str  # "cpu" or "cuda"
    reason: str
    queue: str


def place(
    settings: Settings,
    dataset: Dataset,
    *,
    requested: str,
    algorithm: str,
    model: Mapping[str, Any],
    train_environments: Sequence[str],
) -> Placement:
    """The device and queue of a job on ``dataset``'s ``train_environments`` (their rows, every
    feature), with the reason the job records."""
    rows = {e["name"]: int(e["n_rows"]) for e in dataset.environments}
    gpu = settings.has_gpu_workers
    choice = choose_device(
        sum(rows[name] for name in train_environments),
        len(dataset.feature_names),
        model_kind=str(model.get("kind", "linear")),
        algorithm=algorithm,
        requested=requested,
        gpu_available=gpu,
    )
    if choice.device == "cpu":
        return Placement("cpu", choice.reason, settings.cpu_queue)
    if not gpu:
        raise UnprocessableEntity.on(
            "device",
            f"{choice.reason}, but this deployment has no GPU worker (SAL_GPU_WORKERS), so the job "
            'could never start; ask for "auto" or "cpu", or run a GPU worker and set SAL_GPU_WORKERS=true',
        )
    return Placement("cuda", choice.reason, settings.gpu_queue)
