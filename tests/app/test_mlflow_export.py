"""POST /jobs/{id}/exports/mlflow against a real MLflow tracking server: `mlflow server` with a
SQLite backend on loopback, started and stopped (by pid) here. The run is read back through
MLflow's own client and its model loaded with mlflow.pyfunc.load_model."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pandas as pd
import pytest
from fastapi.testclient import TestClient

from app.settings import Settings
from tests.app import factories as f
from tests.conftest import Proc, _wait_for, free_port, service_env
from tests.e2e.scenario import wait

pytestmark = [pytest.mark.services, pytest.mark.slow]

FEATURES = ["x1", "x2", "x3"]


@pytest.fixture(scope="module")
def mlflow_uri(tmp_path_factory: pytest.TempPathFactory, pg_settings: Settings) -> Iterator[str]:
    root = tmp_path_factory.mktemp("mlflow")
    port = free_port()
    args = [
        str(Path(sys.executable).parent / "mlflow"),
        "server",
        "--backend-store-uri",
        f"sqlite:///{root / 'mlflow.db'}",
        "--artifacts-destination",
        str(root / "artifacts"),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        "1",
    ]
    proc = Proc(args, service_env(pg_settings), root / "server.log")
    uri = f"http://127.0.0.1:{port}"

    def healthy() -> bool:
        if proc.popen.poll() is not None:
            raise RuntimeError(f"mlflow server exited:\n{proc.log()[-4000:]}")
        try:
            return httpx.get(f"{uri}/health", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    try:
        _wait_for(healthy, 120, "the MLflow tracking server")
        yield uri
    finally:
        proc.stop()


@pytest.fixture(scope="module")
def exporting(pg_app: Any, pg_settings: Settings, mlflow_uri: str) -> Iterator[httpx.Client]:
    """The API (same database and queues as the test worker) with the tracking server configured."""
    from app.main import create_app

    app = create_app(pg_settings.model_copy(update={"mlflow_tracking_uri": mlflow_uri}))
    with TestClient(app) as c:
        yield c
    app.state.engine.dispose()


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return f.frame(seed=2101, n_per_env=40)


@pytest.fixture(scope="module")
def job(client: httpx.Client, pg_worker: object, frame: pd.DataFrame) -> dict[str, Any]:
    dataset = f.upload_csv(client, frame).json()["id"]
    response = client.post("/jobs", json=f.job_body(dataset, algorithm="sal", seed=4))
    assert response.status_code == 202, response.text
    finished = wait(client, response.json()["id"])
    assert finished["status"] == "succeeded", finished
    return finished


def test_an_exported_run_has_the_jobs_numbers_and_a_loadable_model(
    exporting: httpx.Client, mlflow_uri: str, job: dict[str, Any], frame: pd.DataFrame, tmp_path: Path
) -> None:
    import mlflow.artifacts
    import mlflow.pyfunc
    from mlflow.tracking import MlflowClient

    response = exporting.post(f"/jobs/{job['id']}/exports/mlflow", json={"experiment": "sal-tests"})
    assert response.status_code == 201, response.text
    export = response.json()
    assert export["tracking_uri"] == mlflow_uri
    assert export["model_uri"] == f"runs:/{export['run_id']}/model"

    client = MlflowClient(tracking_uri=mlflow_uri)
    run = client.get_run(export["run_id"])
    assert run.info.status == "FINISHED"
    assert client.get_experiment(run.info.experiment_id).name == "sal-tests"
    assert run.data.tags["sal.job_id"] == job["id"]
    params = run.data.params
    assert params["algorithm"] == "sal" and params["task"] == "regression" and params["seed"] == "4"
    assert json.loads(params["train_environments"]) == ["a", "b"]
    assert {k: params[f"params.{k}"] for k in job["params"]} == {k: str(v) for k, v in job["params"].items()}

    result = job["result"]
    metrics = run.data.metrics
    for env in result["environments"]:
        assert metrics[f"{env['split']}/{env['name']}/mse"] == pytest.approx(env["mse"], rel=1e-12)
    assert metrics["test/mean_error"] == pytest.approx(result["summary"]["mean_error"], rel=1e-12)
    assert metrics["certificate/rho_hat"] == pytest.approx(result["certificate"]["rho_hat"], rel=1e-12)
    reference = result["reference"]  # SAL against ERM on the same test rows
    assert metrics["reference/erm_mean_error"] == pytest.approx(reference["mean_error"], rel=1e-12)
    assert metrics["reference/difference"] == pytest.approx(reference["difference"], rel=1e-12)
    assert metrics["reference/standard_error"] == pytest.approx(reference["standard_error"], rel=1e-12)

    listed = {a.path for a in client.list_artifacts(export["run_id"], "sal")}
    assert listed == {
        "sal/coefficients.json", "sal/covariate_weights.json", "sal/encoding.json", "sal/model.safetensors"
    }  # fmt: skip
    local = Path(
        mlflow.artifacts.download_artifacts(
            run_id=export["run_id"], tracking_uri=mlflow_uri, dst_path=str(tmp_path)
        )
    )
    assert json.loads((local / "sal" / "covariate_weights.json").read_text()) == {
        "covariate_weights": result["covariate_weights"]
    }
    # numbers alone: nothing one-hot encoded or filled, but said so
    assert json.loads((local / "sal" / "encoding.json").read_text()) == {
        "text_features": {}, "missing_features": {}, "target_labels": None
    }  # fmt: skip
    assert (
        json.loads((local / "sal" / "coefficients.json").read_text())["coefficients"]
        == result["coefficients"]
    )

    model = mlflow.pyfunc.load_model(str(local / "model"))
    rows = frame[frame["env"] == "c"][FEATURES]
    predicted = model.predict(rows[FEATURES[::-1]])  # by column name: the signature orders them
    served = exporting.post(f"/jobs/{job['id']}/predict", json={"X": rows.to_numpy().tolist()}).json()
    np.testing.assert_allclose(predicted["prediction"].to_numpy(), served["predictions"], rtol=0, atol=1e-6)


def test_export_refusals(
    client: httpx.Client, pg_app: Any, pg_settings: Settings, job: dict[str, Any], stub_client: httpx.Client
) -> None:
    from app.main import create_app

    # No tracking server configured (the default): 503 naming the setting.
    body = f.assert_problem(client.post(f"/jobs/{job['id']}/exports/mlflow"), 503)
    assert "SAL_MLFLOW_TRACKING_URI" in body["detail"]
    f.assert_problem(client.post("/jobs/no-such-job/exports/mlflow"), 404)

    # A configured server nobody answers at: 503, at once.
    app = create_app(
        pg_settings.model_copy(update={"mlflow_tracking_uri": f"http://127.0.0.1:{free_port()}"})
    )
    with TestClient(app) as unreachable:
        body = f.assert_problem(unreachable.post(f"/jobs/{job['id']}/exports/mlflow"), 503)
        assert "cannot be reached" in body["detail"]
        dataset = f.upload_csv(unreachable, f.frame(seed=2102)).json()["id"]
        queued = stub_client.post("/jobs", json=f.job_body(dataset)).json()["id"]
        f.assert_problem(unreachable.post(f"/jobs/{queued}/exports/mlflow"), 409)
        bad = unreachable.post(f"/jobs/{job['id']}/exports/mlflow", json={"experiment": ""})
        f.assert_problem(bad, 422, "experiment")
    app.state.engine.dispose()
