"""The reproducibility record of a job: what went in (dataset hash, seed, resolved parameters) and
where it ran (device, package versions). The API writes the first half when the job is created; the
worker that runs it writes the second (``jobs.runtime``)."""

from __future__ import annotations

import platform
import socket
from functools import lru_cache
from importlib import metadata
from typing import Any

PACKAGES = ("sal-service", "torch", "numpy")


@lru_cache(maxsize=1)
def versions() -> dict[str, str]:
    """Versions of the packages that decide a fit's numbers, and of Python."""
    out = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "unknown"
    return out


def runtime(device: str) -> dict[str, Any]:
    """What a worker records when it claims a job; ``device`` is the resolved one ("cpu", "cuda:0")."""
    return {"device": device, "versions": versions(), "hostname": socket.gethostname()}


def device(job: Any) -> dict[str, Any]:
    """The job's one device record (``JobPublic.device``): requested, chosen at submit time with
    its reason, and what the worker resolved it to (``jobs.runtime``, null until it ran)."""
    return {
        "requested": job.device,
        "chosen": job.device_chosen,
        "reason": job.device_reason,
        "ran_on": (job.runtime or {}).get("device"),
    }


def record(job: Any) -> dict[str, Any]:
    """The record shown on a job (``JobPublic.reproducibility``); ``job`` is an ``app.db.models.Job``."""
    ran = job.runtime or {}
    return {
        "dataset_sha256": job.dataset_sha256,
        "algorithm": job.algorithm,
        "task": job.task,
        "seed": job.seed,
        "params": job.params,
        "model": job.model,
        "train_environments": job.train_environments,
        "test_environments": job.test_environments,
        "validation": job.validation,
        "versions": ran.get("versions"),
        "hostname": ran.get("hostname"),
    }
