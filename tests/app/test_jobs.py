"""POST/GET /jobs on PostgreSQL with a recording queue: validation, pagination, enqueue-after-commit."""

from __future__ import annotations

from typing import Any

import httpx
import pandas as pd
import pytest

from sal_core import ALGORITHMS
from tests.app import factories as f

pytestmark = pytest.mark.services


@pytest.fixture(scope="module")
def dataset_ids(client: httpx.Client) -> dict[str, str]:
    regression = f.upload_csv(client, f.frame(seed=301)).json()["id"]
    binary = f.upload_csv(client, f.frame(seed=302, binary=True)).json()["id"]
    return {"regression": regression, "binary": binary}


def test_create_job_is_queued_after_commit(stub_client: httpx.Client, stub_queue, dataset_ids) -> None:  # type: ignore[no-untyped-def]
    response = stub_client.post(
        "/jobs", json=f.job_body(dataset_ids["regression"], params={"steps": 10}, seed=3)
    )
    assert response.status_code == 202, response.text
    job = response.json()
    assert response.headers["location"] == f"/jobs/{job['id']}"
    assert job["status"] == "queued"
    assert job["progress"] == {"step": 0, "total": None}
    assert job["params"] == {
        **{s.name: s.default for s in ALGORITHMS["erm"].params_type.describe()},
        "steps": 10,
    }
    assert job["test_environments"] == ["c"]
    assert job["result"] is None and job["error"] is None
    assert stub_queue.sent == [(job["id"], stub_queue.settings.cpu_queue)]
    assert stub_client.get(f"/jobs/{job['id']}").json() == job


def test_cuda_jobs_go_to_the_gpu_queue(stub_client: httpx.Client, stub_queue, dataset_ids) -> None:  # type: ignore[no-untyped-def]
    body = f.job_body(dataset_ids["regression"], device="cuda")
    if not stub_queue.settings.has_gpu_workers:  # refused at submit (tests/app/test_placement.py)
        stub_client.app.state.settings = stub_queue.settings.model_copy(update={"gpu_workers": True})
    job = stub_client.post("/jobs", json=body).json()
    assert stub_queue.sent == [(job["id"], stub_queue.settings.gpu_queue)]


def test_broker_down_is_202_and_the_job_waits_in_the_outbox(stub_settings, pg_app, dataset_ids) -> None:  # type: ignore[no-untyped-def]
    from fastapi.testclient import TestClient
    from sqlalchemy import text

    from app.main import create_app

    app = create_app(stub_settings, queue=f.RecordingQueue(stub_settings, pg_app.state.engine, fail=True))
    with TestClient(app) as c:
        job = c.post("/jobs", json=f.job_body(dataset_ids["regression"]))
        assert job.status_code == 202, job.text
        assert c.get(f"/jobs/{job.json()['id']}").json()["status"] == "queued"
        f.assert_problem(c.get("/readyz"), 503)
        with app.state.engine.connect() as conn:
            owed = conn.execute(
                text("SELECT attempts FROM outbox WHERE job_id = :id"), {"id": job.json()["id"]}
            )
            assert owed.scalar_one() == 1  # tried once, still owed to the broker
    app.state.engine.dispose()


def test_list_jobs_paginates_and_filters(stub_client: httpx.Client, dataset_ids) -> None:  # type: ignore[no-untyped-def]
    dataset = f.upload_csv(stub_client, f.frame(seed=303)).json()["id"]
    ids = [stub_client.post("/jobs", json=f.job_body(dataset, seed=i)).json()["id"] for i in range(5)]
    seen: list[str] = []
    cursor = None
    while True:
        params: dict[str, Any] = {"dataset_id": dataset, "limit": 2}
        if cursor:
            params["cursor"] = cursor
        page = stub_client.get("/jobs", params=params).json()
        seen += [j["id"] for j in page["items"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == ids[::-1]
    assert all(
        j["status"] == "queued"
        for j in stub_client.get("/jobs", params={"status": "queued", "dataset_id": dataset}).json()["items"]
    )
    assert (
        stub_client.get("/jobs", params={"status": "succeeded", "dataset_id": dataset}).json()["items"] == []
    )
    assert stub_client.get("/jobs", params={"algorithm": "nope"}).json()["items"] == []


def test_weights_and_predict_of_an_unfinished_job_are_409(stub_client: httpx.Client, dataset_ids) -> None:  # type: ignore[no-untyped-def]
    job = stub_client.post("/jobs", json=f.job_body(dataset_ids["regression"])).json()
    f.assert_problem(stub_client.get(f"/jobs/{job['id']}/weights"), 409)
    f.assert_problem(stub_client.post(f"/jobs/{job['id']}/predict", json={"X": [[1, 2, 3]]}), 409)


def test_unknown_ids_are_404(client: httpx.Client) -> None:
    f.assert_problem(client.get("/jobs/nope"), 404)
    f.assert_problem(client.get("/jobs/nope/weights"), 404)
    f.assert_problem(client.post("/jobs/nope/predict", json={"X": [[1.0]]}), 404)
    f.assert_problem(client.get("/no/such/route"), 404)
    f.assert_problem(client.put("/jobs"), 405)


BAD_JOBS: dict[str, tuple[dict[str, Any], str]] = {
    "unknown algorithm": ({"algorithm": "magic"}, "algorithm"),
    "unknown parameter": ({"params": {"bogus": 1}}, "params.bogus"),
    "parameter out of range": ({"params": {"steps": 0}}, "params.steps"),
    "parameter of wrong type": ({"params": {"lr": "fast"}}, "params.lr"),
    "unknown dataset": ({"dataset_id": "missing"}, "dataset_id"),
    "environment not in dataset": ({"train_environments": ["a", "zzz"]}, "train_environments[1]"),
    "test environment not in dataset": ({"test_environments": ["zzz"]}, "test_environments[0]"),
    "train/test overlap": ({"test_environments": ["b", "c"]}, "test_environments"),
    "environment twice": ({"train_environments": ["a", "a"]}, "train_environments"),
    "no training environment": ({"train_environments": []}, "train_environments"),
    "non-binary labels for classification": ({"task": "classification"}, "train_environments"),
    "unknown task": ({"task": "ranking"}, "task"),
    "unknown model kind": ({"model": {"kind": "forest"}}, "model.kind"),
    "bad mlp hidden": ({"model": {"kind": "mlp", "hidden": [0]}}, "model.hidden"),
    "unknown model option": ({"model": {"kind": "linear", "depth": 3}}, "model.depth"),
    "negative seed": ({"seed": -1}, "seed"),
    "unknown device": ({"device": "tpu"}, "device"),
    "unknown field": ({"colour": "red"}, "colour"),
    "missing dataset_id": ({"dataset_id": None}, "dataset_id"),
}
for name, cls in sorted(ALGORITHMS.items()):
    if cls.min_environments > 1:  # sal, irm, ...
        BAD_JOBS[f"one environment for {name}, which needs two"] = (
            {"algorithm": name, "train_environments": ["a"]},
            "train_environments",
        )
BAD_JOBS["parameter above its range"] = ({"params": {"steps": 10**9}}, "params.steps")


@pytest.mark.parametrize("algorithm", ["erm", "sal"])
def test_a_one_row_training_environment_is_a_problem_that_says_what_to_do(
    algorithm: str, stub_client: httpx.Client, stub_queue, client: httpx.Client, row_counts
) -> None:  # type: ignore[no-untyped-def]
    table = f.frame(seed=303, envs=("a", "b", "c"))
    table = pd.concat([table, f.frame(seed=304, n_per_env=1, envs=("d",))], ignore_index=True)
    dataset_id = f.upload_csv(client, table).json()["id"]
    before = row_counts()
    body = f.job_body(dataset_id, algorithm=algorithm, train_environments=["a", "d", "b"])
    problem = f.assert_problem(stub_client.post("/jobs", json=body), 422, "train_environments[1]")
    assert "'d' has 1 row" in problem["detail"] and "leave it out of train_environments" in problem["detail"]
    assert row_counts() == before
    assert stub_queue.sent == []


@pytest.mark.parametrize("task", [None, "classification"])
def test_a_classification_job_whose_training_rows_hold_one_label_is_a_problem(
    task: str | None, stub_client: httpx.Client, stub_queue, client: httpx.Client, row_counts
) -> None:  # type: ignore[no-untyped-def]
    table = f.frame(seed=305, binary=True)
    table.loc[table["env"].isin(["a", "b"]), "y"] = 0.0
    dataset_id = f.upload_csv(client, table).json()["id"]
    before = row_counts()
    one_label = f.job_body(dataset_id, algorithm="sal", train_environments=["a", "b"], task=task)
    problem = f.assert_problem(stub_client.post("/jobs", json=one_label), 422, "train_environments")
    assert "all 60 rows of train_environments are labelled 0" in problem["detail"]
    assert row_counts() == before and stub_queue.sent == []
    both = f.job_body(dataset_id, algorithm="sal", train_environments=["a", "c"], task=task)
    assert stub_client.post("/jobs", json=both).status_code == 202  # c holds both labels


@pytest.mark.parametrize("case", list(BAD_JOBS), ids=list(BAD_JOBS))
def test_bad_job_is_a_problem_and_stores_nothing(
    case: str, stub_client: httpx.Client, stub_queue, dataset_ids, row_counts
) -> None:  # type: ignore[no-untyped-def]
    overrides, field = BAD_JOBS[case]
    body = {**f.job_body(dataset_ids["regression"]), **overrides}
    if body["dataset_id"] is None:
        del body["dataset_id"]
    before = row_counts()
    f.assert_problem(stub_client.post("/jobs", json=body), 422, field)
    assert row_counts() == before
    assert stub_queue.sent == []


def test_classification_on_binary_labels_is_accepted(stub_client: httpx.Client, dataset_ids) -> None:  # type: ignore[no-untyped-def]
    response = stub_client.post("/jobs", json=f.job_body(dataset_ids["binary"], task="classification"))
    assert response.status_code == 202, response.text


def test_a_job_without_a_task_takes_it_from_the_labels(stub_client: httpx.Client, dataset_ids) -> None:  # type: ignore[no-untyped-def]
    tasks = {}
    for kind in ("binary", "regression"):
        body = f.job_body(dataset_ids[kind])
        body.pop("task", None)
        response = stub_client.post("/jobs", json=body)
        assert response.status_code == 202, response.text
        tasks[kind] = response.json()["task"]
    assert tasks == {"binary": "classification", "regression": "regression"}
    # Asked for, regression on 0/1 labels stays regression.
    asked = stub_client.post("/jobs", json=f.job_body(dataset_ids["binary"], task="regression"))
    assert asked.status_code == 202 and asked.json()["task"] == "regression"


@pytest.mark.parametrize(
    ("params", "field"),
    [({"cursor": "garbage"}, "cursor"), ({"status": "sleeping"}, "status"), ({"limit": 0}, "limit")],
)
def test_bad_list_queries(client: httpx.Client, params: dict[str, Any], field: str) -> None:
    f.assert_problem(client.get("/jobs", params=params), 422, field)


def test_algorithms_come_from_the_registry(client: httpx.Client) -> None:
    listed = client.get("/algorithms").json()
    assert [a["name"] for a in listed] == sorted(ALGORITHMS)
    for entry in listed:
        cls = ALGORITHMS[entry["name"]]
        assert entry["min_environments"] == cls.min_environments
        assert [p["name"] for p in entry["params"]] == [s.name for s in cls.params_type.describe()]
        assert all(
            {"name", "type", "default", "doc", "low", "high", "choices", "grid"} <= set(p)
            for p in entry["params"]
        )


def test_healthz(client: httpx.Client) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
