"""Realistic job and sweep documents for the report tests, from real sal_core fits."""

from __future__ import annotations

import datetime as dt
from functools import cache
from typing import Any

import pytest

from app.jobs.result import RoundResult
from app.jobs.schemas import JobPublic
from app.sweeps.schemas import SweepPublic
from sal_core import get_algorithm, synthetic
from worker.runner import build_result


@cache
def job_document(algorithm: str, seed: int = 0) -> dict[str, Any]:
    # 400 rows: the slopes test tells the environments apart, so SAL keeps a robust candidate (and w)
    s = synthetic.selection_bias(n=400, n_test=100, p=6, seed=11, test_rs=(-3.0, -1.5, 1.5, 3.0))
    fit = get_algorithm(algorithm)(task="regression", seed=seed).fit(s.train, feature_names=s.feature_names)
    result = build_result(fit, s.feature_names, s.train, s.test).to_json()
    return {
        "id": f"job-{algorithm}-{seed}", "status": "succeeded", "algorithm": algorithm, "task": "regression",
        "params": {}, "error": None, "result": result,
        "reproducibility": {"dataset_sha256": "ab" * 32, "seed": seed, "versions": {"torch": "2.13.0"}},
    }  # fmt: skip


def as_public(doc: dict[str, Any]) -> JobPublic:
    """A job document of the tests as the typed job the reports take (the fields it leaves out at
    a queued job's values)."""
    now = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    device = {"requested": "cpu", "chosen": "cpu", "reason": "requested cpu", "ran_on": None}
    defaults = {
        "progress": {"step": 0, "total": None}, "created_at": now, "started_at": None, "finished_at": None,
        "model": {"kind": "linear"}, "seed": 0, "device": device, "queue": "sal", "dataset_id": None,
        "train_environments": [], "test_environments": [],
    }  # fmt: skip
    repro = doc.get("reproducibility")
    if repro is not None:
        repro = {
            "dataset_sha256": None, "algorithm": doc["algorithm"], "task": doc["task"], "seed": 0, "params": {},
            "model": {}, "train_environments": [], "test_environments": [], "validation": None,
            "versions": None, "hostname": None, **repro,
        }  # fmt: skip
    return JobPublic.model_validate({**defaults, **doc, "reproducibility": repro})


def as_sweep(doc: dict[str, Any]) -> SweepPublic:
    """A sweep document of the tests as the typed sweep the reports take."""
    now = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    defaults = {
        "dataset_id": None, "task": "regression", "train_environments": [], "test_environments": [],
        "algorithms": {}, "created_at": now, "finished_at": None,
    }  # fmt: skip
    return SweepPublic.model_validate({**defaults, **doc})


def as_rounds(history: list[dict[str, Any]]) -> list[RoundResult]:
    return [RoundResult.model_validate(r) for r in history]


def _ms(values: list[float]) -> dict[str, float]:
    mean = sum(values) / len(values)
    return {"mean": mean, "std": (sum((v - mean) ** 2 for v in values) / (len(values) - 1)) ** 0.5}


def sweep_document(selection: str = "train_env_validation") -> dict[str, Any]:
    rows = []
    for rank, algorithm in enumerate(("sal", "wdrl", "erm"), start=1):
        docs = [job_document(algorithm, seed)["result"] for seed in (0, 1)]
        envs = [e["name"] for e in docs[0]["environments"] if e["split"] == "test"]
        per_env = {
            e: _ms([next(x["rmse"] for x in d["environments"] if x["name"] == e) for d in docs]) for e in envs
        }
        rows.append({
            "rank": rank, "algorithm": algorithm, "selected_params": {"lambda_": 1.0} if algorithm == "sal" else {},
            "searched_params": {"lambda_": 1.0} if algorithm == "sal" else {},
            "selection_score": 0.1, "seeds": [0, 1], "jobs": ["j1", "j2"], "metric": "rmse",
            "mean_error": _ms([d["summary"]["mean_error"] for d in docs]),
            "std_error": _ms([d["summary"]["std_error"] for d in docs]),
            "worst_error": _ms([d["summary"]["worst_error"] for d in docs]),
            "worst_environment": docs[0]["summary"]["worst_environment"], "environments": per_env,
            "coefficients": docs[0]["coefficients"], "covariate_weights": docs[0]["covariate_weights"],
            "candidates": [], "failed_trials": 0,
        })  # fmt: skip
    return {
        "id": "sweep-1", "status": "succeeded", "selection": selection, "oracle": selection == "oracle", "seeds": [0, 1],
        "progress": {"total": 6, "queued": 0, "running": 0, "succeeded": 6, "failed": 0, "cancelled": 0, "done": 6},
        "leaderboard": {"selection": selection, "oracle": selection == "oracle", "selection_metric": "x", "note": None,
                        "algorithms": rows, "unselected": {}},
    }  # fmt: skip


@pytest.fixture(scope="module")
def sal_job() -> dict[str, Any]:
    return job_document("sal")


@pytest.fixture(scope="module")
def sweep_doc() -> dict[str, Any]:
    return sweep_document()
