"""POST/GET /sweeps on PostgreSQL with a recording queue: planning, validation, cancel, tenants."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from sal_core import get_algorithm
from tests.app import factories as f
from tests.conftest import bearer, make_api_key

pytestmark = pytest.mark.services


@pytest.fixture(scope="module")
def dataset_id(client: httpx.Client) -> str:
    return f.upload_csv(client, f.frame(seed=901)).json()["id"]  # type: ignore[no-any-return]


def body(dataset: str, **overrides: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "dataset_id": dataset,
        "train_environments": ["a", "b"],
        "algorithms": {"ridge": {"grid": {"lambda_": [0.01, 1.0]}}, "erm": {}},
        "seeds": [0, 1],
        "device": "cpu",
    }
    out.update(overrides)
    return out


def test_a_sweep_queues_one_job_per_trial_after_commit(
    stub_client: httpx.Client, stub_queue, dataset_id: str
) -> None:  # type: ignore[no-untyped-def]
    response = stub_client.post("/sweeps", json=body(dataset_id))
    assert response.status_code == 202, response.text
    sweep = response.json()
    assert response.headers["location"] == f"/sweeps/{sweep['id']}"
    assert (
        sweep["status"] == "running" and sweep["selection"] == "train_env_validation" and not sweep["oracle"]
    )
    assert sweep["test_environments"] == ["c"]
    defaults = {s.name: s.default for s in get_algorithm("ridge").params_type.describe()}
    assert sweep["algorithms"]["ridge"] == [{**defaults, "lambda_": 0.01}, {**defaults, "lambda_": 1.0}]
    assert sweep["progress"] == {
        "total": 6,
        "queued": 6,
        "running": 0,
        "succeeded": 0,
        "failed": 0,
        "cancelled": 0,
        "done": 0,
    }
    assert len(stub_queue.sent) == 6  # each job's row was committed before its id was sent
    jobs = [stub_client.get(f"/jobs/{job_id}").json() for job_id, _ in stub_queue.sent]
    assert {j["sweep_id"] for j in jobs} == {sweep["id"]}
    assert all(j["validation"] == {"fraction": 0.2} and j["test_environments"] == ["c"] for j in jobs)
    assert sorted((j["algorithm"], j["params"].get("lambda_"), j["seed"]) for j in jobs)[:2] == [
        ("erm", None, 0),
        ("erm", None, 1),
    ]
    assert (
        jobs[0]["reproducibility"]["dataset_sha256"]
        == stub_client.get(f"/datasets/{dataset_id}").json()["sha256"]
    )
    listed = stub_client.get("/sweeps", params={"limit": 200}).json()["items"]
    assert sweep["id"] in [s["id"] for s in listed]


def test_default_grids_and_leave_one_env_out(stub_client: httpx.Client, stub_queue, dataset_id: str) -> None:  # type: ignore[no-untyped-def]
    sweep = stub_client.post(
        "/sweeps", json=body(dataset_id, algorithms={"lasso": {}}, seeds=[3], selection="leave_one_env_out")
    ).json()
    n_grid = len(get_algorithm("lasso").params_type.search_space()["lambda_"])
    assert sweep["progress"]["total"] == n_grid * (2 + 1)  # a job per fold, and one on both
    jobs = [stub_client.get(f"/jobs/{job_id}").json() for job_id, _ in stub_queue.sent]
    folds = sorted(
        (j["train_environments"], (j["validation"] or {}).get("environments"))
        for j in jobs
        if j["validation"]
    )
    assert folds[0] == (["a"], ["b"]) and folds[-1] == (["b"], ["a"])


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"algorithms": {"nope": {}}}, "algorithms.nope"),
        ({"algorithms": {"ridge": {"grid": {"lambda_": [-1.0]}}}}, "algorithms.ridge.params.lambda_"),
        ({"algorithms": {"ridge": {"grid": {"nope": [1]}}}}, "algorithms.ridge.params.nope"),
        ({"algorithms": {"ridge": {"random": {"lambda_": [1.0]}}}}, "algorithms.ridge.n_trials"),
        ({"algorithms": {}}, "algorithms"),
        ({"seeds": [1, 1]}, "seeds"),
        ({"selection": "best"}, "selection"),
        ({"train_environments": ["zz"]}, "train_environments[0]"),
        ({"test_environments": ["a"]}, "test_environments"),
        ({"algorithms": {"sal": {}}, "selection": "leave_one_env_out"}, "selection"),
        ({"validation_fraction": 0.9}, "validation_fraction"),
        ({"dataset_id": "missing"}, "dataset_id"),
    ],
)
def test_bad_sweeps_are_422_and_store_nothing(
    stub_client: httpx.Client, stub_queue, dataset_id: str, overrides: dict[str, Any], field: str
) -> None:  # type: ignore[no-untyped-def]
    before = len(stub_client.get("/sweeps", params={"limit": 200}).json()["items"])
    f.assert_problem(stub_client.post("/sweeps", json=body(dataset_id, **overrides)), 422, field)
    assert stub_queue.sent == []
    assert len(stub_client.get("/sweeps", params={"limit": 200}).json()["items"]) == before


def test_cancelling_a_sweep_cancels_its_jobs(stub_client: httpx.Client, stub_queue, dataset_id: str) -> None:  # type: ignore[no-untyped-def]
    sweep = stub_client.post("/sweeps", json=body(dataset_id)).json()
    cancelled = stub_client.post(f"/sweeps/{sweep['id']}/cancel")
    assert cancelled.status_code == 200, cancelled.text
    assert cancelled.json()["status"] == "cancelled" and cancelled.json()["progress"]["cancelled"] == 6
    assert {stub_client.get(f"/jobs/{j}").json()["status"] for j, _ in stub_queue.sent} == {"cancelled"}
    again = stub_client.post(f"/sweeps/{sweep['id']}/cancel").json()  # idempotent
    assert again["status"] == "cancelled" and again["leaderboard"] is None
    f.assert_problem(stub_client.post("/sweeps/nope/cancel"), 404)


def test_another_tenants_sweep_is_not_found(keys_app, stub_client: httpx.Client, dataset_id: str) -> None:  # type: ignore[no-untyped-def]
    engine = keys_app.state.engine
    with (
        TestClient(keys_app, headers=bearer(make_api_key(engine, "sweeper-a"))) as a,
        TestClient(keys_app, headers=bearer(make_api_key(engine, "sweeper-b"))) as b,
    ):
        mine = f.upload_csv(a, f.frame(seed=902)).json()["id"]
        sweep = a.post("/sweeps", json=body(mine, algorithms={"erm": {}}, seeds=[0])).json()
        for method, path in [("GET", f"/sweeps/{sweep['id']}"), ("POST", f"/sweeps/{sweep['id']}/cancel"),
                             ("GET", f"/sweeps/{sweep['id']}/report")]:  # fmt: skip
            f.assert_problem(b.request(method, path), 404)
        assert b.get("/sweeps").json()["items"] == []
        f.assert_problem(b.post("/sweeps", json=body(mine)), 422, "dataset_id")  # a's dataset is not b's
        f.assert_problem(TestClient(keys_app).get("/sweeps"), 401)
        a.post(f"/sweeps/{sweep['id']}/cancel")
