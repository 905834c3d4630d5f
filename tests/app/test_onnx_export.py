"""GET /jobs/{id}/model.onnx on jobs a real worker trained: onnxruntime's predictions on the job's
test rows equal POST /jobs/{id}/predict's, for linear and MLP models, regression and classification.
The scikit-learn estimators fit the same coefficients as the REST job on the same rows."""

from __future__ import annotations

import json
from typing import Any

import httpx
import numpy as np
import onnxruntime as ort
import pandas as pd
import pytest
import torch

from sal_core.sklearn import RidgeRegressor, SALRegressor
from tests.app import factories as f
from tests.e2e.scenario import wait

pytestmark = [pytest.mark.services, pytest.mark.slow]

FEATURES = ["x1", "x2", "x3"]
CASES: dict[str, dict[str, Any]] = {
    "sal-linear-regression": {"algorithm": "sal", "task": "regression"},
    "ridge-linear-regression": {"algorithm": "ridge", "task": "regression"},
    "erm-mlp-gelu-regression": {
        "algorithm": "erm",
        "task": "regression",
        "params": {"steps": 60},
        "model": {"kind": "mlp", "hidden": [8, 4], "activation": "gelu"},
    },
    "erm-linear-classification": {"algorithm": "erm", "task": "classification", "params": {"steps": 60}},
    "erm-mlp-relu-classification": {
        "algorithm": "erm",
        "task": "classification",
        "params": {"steps": 60},
        "model": {"kind": "mlp", "hidden": [6], "activation": "tanh"},
    },
}


@pytest.fixture(scope="module")
def frames() -> dict[str, pd.DataFrame]:
    return {"regression": f.frame(seed=2001, n_per_env=50), "classification": f.frame(seed=2002, binary=True)}


@pytest.fixture(scope="module")
def jobs(
    client: httpx.Client, pg_worker: object, frames: dict[str, pd.DataFrame]
) -> dict[str, dict[str, Any]]:
    datasets = {task: f.upload_csv(client, df).json()["id"] for task, df in frames.items()}
    submitted = {}
    for name, case in CASES.items():
        body = f.job_body(datasets[case["task"]], seed=5, **{k: v for k, v in case.items()})
        response = client.post("/jobs", json=body)
        assert response.status_code == 202, response.text
        submitted[name] = response.json()["id"]
    finished = {name: wait(client, job_id) for name, job_id in submitted.items()}
    for name, job in finished.items():
        assert job["status"] == "succeeded", (name, job)
    return finished


def held_out_rows(df: pd.DataFrame) -> np.ndarray:
    return df[df["env"] == "c"][FEATURES].to_numpy()


@pytest.mark.parametrize("name", sorted(CASES))
def test_onnx_predicts_what_the_service_predicts(
    client: httpx.Client, jobs: dict[str, dict[str, Any]], frames: dict[str, pd.DataFrame], name: str
) -> None:
    job = jobs[name]
    response = client.get(f"/jobs/{job['id']}/model.onnx")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/octet-stream"
    assert f"job-{job['id']}.onnx" in response.headers["content-disposition"]

    session = ort.InferenceSession(response.content)
    meta = session.get_modelmeta().custom_metadata_map
    assert json.loads(meta["feature_names"]) == FEATURES
    assert meta["job_id"] == job["id"] and meta["task"] == job["task"]
    X = held_out_rows(frames[job["task"]])
    assert len(X) == 30 or len(X) == 50
    outputs = dict(zip([o.name for o in session.get_outputs()], session.run(None, {"X": X}), strict=True))

    served = client.post(f"/jobs/{job['id']}/predict", json={"X": X.tolist()})
    assert served.status_code == 200, served.text
    expected = served.json()
    if job["task"] == "regression":
        assert set(outputs) == {"prediction"}
        np.testing.assert_allclose(outputs["prediction"], expected["predictions"], rtol=0, atol=1e-6)
    else:
        assert set(outputs) == {"label", "probability", "logit"}
        np.testing.assert_array_equal(outputs["label"], expected["predictions"])
        np.testing.assert_allclose(outputs["probability"], expected["probabilities"], rtol=0, atol=1e-6)
    # The bound holds with room to spare: the graph computes in float64 like the service.
    first = outputs.get("prediction", outputs.get("probability"))
    served_first = expected["predictions"] if job["task"] == "regression" else expected["probabilities"]
    assert np.max(np.abs(np.asarray(first) - np.asarray(served_first))) < 1e-10


def test_onnx_of_an_unfinished_or_unknown_job(
    stub_client: httpx.Client, frames: dict[str, pd.DataFrame]
) -> None:
    dataset = f.upload_csv(stub_client, frames["regression"]).json()["id"]
    queued = stub_client.post("/jobs", json=f.job_body(dataset)).json()["id"]
    f.assert_problem(stub_client.get(f"/jobs/{queued}/model.onnx"), 409)
    f.assert_problem(stub_client.get("/jobs/no-such-job/model.onnx"), 404)


@pytest.mark.parametrize(
    ("name", "estimator"),
    [("sal-linear-regression", SALRegressor), ("ridge-linear-regression", RidgeRegressor)],
)
def test_estimators_fit_the_coefficients_of_the_rest_job(
    jobs: dict[str, dict[str, Any]], frames: dict[str, pd.DataFrame], name: str, estimator: Any
) -> None:
    """The same rows (train environments a, b), parameters and seed: the same θ, b and w to 1e-8."""
    job = jobs[name]
    df = frames["regression"]
    train = df[df["env"].isin(job["train_environments"])]
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as the test worker runs (SAL_TORCH_THREADS=1): same summation order
    try:
        est = estimator(**job["params"], random_state=job["seed"]).fit(
            train[FEATURES], train["y"], environment=train["env"]
        )
    finally:
        torch.set_num_threads(threads)
    result = job["result"]
    rest_coef = np.array([result["coefficients"][n] for n in FEATURES])
    np.testing.assert_allclose(est.coef_, rest_coef, rtol=1e-8, atol=0)
    assert est.intercept_ == pytest.approx(result["intercept"], rel=1e-8)
    if result["covariate_weights"] is not None:
        rest_w = np.array([result["covariate_weights"][n] for n in FEATURES])
        np.testing.assert_allclose(est.covariate_weights_, rest_w, rtol=1e-8)
    assert list(est.environments_) == job["train_environments"]
