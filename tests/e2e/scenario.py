"""The end-to-end scenario shared by the PostgreSQL+Redis and the embedded runs: a selection-bias
dataset from sal_core's generator goes in as CSV, every registered algorithm trains on it through
the service, and what comes back must equal what sal_core computes directly with the same seed."""

from __future__ import annotations

import io
import time
from dataclasses import dataclass
from typing import Any

import httpx
import numpy as np
import pandas as pd
import torch
from safetensors.torch import load as st_load

from sal_core import ALGORITHMS, FitResult, FittedModel, get_algorithm, synthetic
from sal_core.metrics import evaluate

SEED = 7


@dataclass(frozen=True)
class Case:
    algorithm: str
    task: str
    params: tuple[tuple[str, Any], ...] = ()


def cases() -> list[Case]:
    """Every registered algorithm on regression (default parameters), plus ERM on classification
    (a gradient fit, kept short)."""
    return [Case(name, "regression") for name in sorted(ALGORITHMS)] + [
        Case("erm", "classification", (("steps", 200),))
    ]


def setting(task: str) -> synthetic.Setting:
    return synthetic.selection_bias(n=300, n_test=150, p=6, seed=11, task=task)


def to_csv(s: synthetic.Setting) -> bytes:
    frames = []
    for env in [*s.train, *s.test]:
        frame = pd.DataFrame(env.X, columns=s.feature_names)
        frame.insert(0, "site", env.name)
        frame["outcome"] = env.y
        frames.append(frame)
    return pd.concat(frames).to_csv(index=False).encode()  # shortest round-trip floats: exact


def upload(client: httpx.Client, s: synthetic.Setting, name: str) -> dict[str, Any]:
    response = client.post(
        "/datasets",
        files={"file": (f"{name}.csv", io.BytesIO(to_csv(s)), "text/csv")},
        data={"target": "outcome", "environment": "site", "name": name},
    )
    assert response.status_code in (200, 201), response.text
    return response.json()  # type: ignore[no-any-return]


def submit(client: httpx.Client, dataset_id: str, case: Case, s: synthetic.Setting) -> dict[str, Any]:
    response = client.post(
        "/jobs",
        json={
            "dataset_id": dataset_id,
            "algorithm": case.algorithm,
            "task": case.task,
            "params": dict(case.params),
            "train_environments": [e.name for e in s.train],
            "seed": SEED,
            "device": "cpu",
        },
    )
    assert response.status_code == 202, response.text
    assert response.headers["location"] == f"/jobs/{response.json()['id']}"
    return response.json()  # type: ignore[no-any-return]


def wait(client: httpx.Client, job_id: str, timeout: float = 120.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        job = client.get(f"/jobs/{job_id}").json()
        if job["status"] not in ("queued", "running"):
            return job  # type: ignore[no-any-return]
        if time.monotonic() > deadline:
            raise TimeoutError(f"job {job_id} still {job['status']} after {timeout} s")
        time.sleep(0.1)


def direct_fit(case: Case, s: synthetic.Setting) -> FitResult:
    """sal_core's own fit, on one thread like the test workers (SAL_TORCH_THREADS=1): a different
    thread count changes float summation order, which gradient fits amplify past allclose."""
    cls = get_algorithm(case.algorithm)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return _fit(cls, case, s)
    finally:
        torch.set_num_threads(threads)


def _fit(cls: Any, case: Case, s: synthetic.Setting) -> FitResult:
    return cls(dict(case.params), task=case.task, seed=SEED, device="cpu").fit(
        s.train, feature_names=s.feature_names
    )  # type: ignore[arg-type]


def check_job(job: dict[str, Any], case: Case, s: synthetic.Setting) -> FitResult:
    """The service's result equals sal_core's, computed here with the same seed."""
    assert job["status"] == "succeeded", job
    assert job["progress"]["step"] == job["progress"]["total"]
    assert job["started_at"] and job["finished_at"]
    fit = direct_fit(case, s)
    result = job["result"]
    assert job["params"] == fit.params.to_dict()
    assert job["test_environments"] == [e.name for e in s.test]
    train_metrics, _ = evaluate(fit.model, s.train)
    test_metrics, summary = evaluate(fit.model, s.test)
    expected = {**train_metrics, **test_metrics}
    assert [e["name"] for e in result["environments"]] == [e.name for e in [*s.train, *s.test]]
    for env in result["environments"]:
        assert env["split"] == ("train" if env["name"] in train_metrics else "test")
        for metric, value in expected[env["name"]].items():
            assert np.isclose(env[metric], value), (case, env["name"], metric, env[metric], value)
    assert result["summary"]["metric"] == summary.metric
    for key in ("mean_error", "std_error", "worst_error"):
        assert np.isclose(result["summary"][key], getattr(summary, key))
    assert fit.coefficients_original is not None
    assert list(result["coefficients"]) == s.feature_names
    assert np.allclose([result["coefficients"][n] for n in s.feature_names], fit.coefficients_original)
    assert np.isclose(result["intercept"], fit.intercept_original)
    if fit.covariate_weights is None:
        assert result["covariate_weights"] is None
    else:
        assert np.allclose([result["covariate_weights"][n] for n in s.feature_names], fit.covariate_weights)
    if fit.certificate is None:
        assert result["certificate"] is None
    else:
        assert np.isclose(result["certificate"]["rho_hat"], fit.certificate.rho_hat)
        assert np.isclose(result["certificate"]["worst_case_risk"], fit.certificate.worst_case_risk)
    assert job["device"]["ran_on"] == "cpu" and "device" not in result
    assert len(result["history"]) == len(fit.history)
    return fit


def check_weights_and_predict(
    client: httpx.Client, job_id: str, fit: FitResult, s: synthetic.Setting
) -> None:
    """A model downloaded as safetensors predicts what the service and sal_core predict."""
    X = s.test[0].X[:25]
    response = client.get(f"/jobs/{job_id}/weights", params={"format": "safetensors"})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/octet-stream"
    data = response.content
    n = int.from_bytes(data[:8], "little")
    import json

    metadata = json.loads(data[8 : 8 + n])["__metadata__"]
    downloaded = FittedModel.from_tensors(st_load(data), metadata)
    assert np.allclose(downloaded.predict(X), fit.model.predict(X))

    served = client.post(f"/jobs/{job_id}/predict", json={"X": X.tolist()})
    assert served.status_code == 200, served.text
    assert np.allclose(served.json()["predictions"], fit.model.predict(X))
    rows = [dict(zip(s.feature_names, row, strict=True)) for row in X.tolist()]
    by_rows = client.post(f"/jobs/{job_id}/predict", json={"rows": rows}).json()
    assert np.allclose(by_rows["predictions"], served.json()["predictions"])
    if fit.model.task == "classification":
        assert np.allclose(served.json()["probabilities"], fit.model.predict_proba(X))
    else:
        assert served.json()["probabilities"] is None

    as_json = client.get(f"/jobs/{job_id}/weights", params={"format": "json"}).json()
    assert as_json["feature_names"] == s.feature_names
    assert np.allclose(as_json["standardizer"]["mean"], fit.model.standardizer.mean)
    assert np.allclose([as_json["coefficients"][n] for n in s.feature_names], fit.coefficients_original)


def run_all(client: httpx.Client, tag: str) -> None:
    """Submit every case at once (the worker drains the queue), then check each."""
    settings = {task: setting(task) for task in ("regression", "classification")}
    datasets = {task: upload(client, s, f"{tag}-selection-bias-{task}") for task, s in settings.items()}
    submitted = [
        (case, submit(client, datasets[case.task]["id"], case, settings[case.task])) for case in cases()
    ]
    for case, job in submitted:
        assert job["status"] == "queued"
        done = wait(client, job["id"])
        fit = check_job(done, case, settings[case.task])
        check_weights_and_predict(client, job["id"], fit, settings[case.task])
