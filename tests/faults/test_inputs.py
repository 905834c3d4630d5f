"""Every input the fault harness answered with a 500 (or a leak), as a regression test on both
databases: a 4xx problem naming the field, the same answer on SQLite and PostgreSQL."""

from __future__ import annotations

import base64
import io
import json
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from fastapi.testclient import TestClient
from sqlalchemy.exc import DataError

from app.db import migrate, tenancy
from app.db.session import make_engine, make_sessionmaker
from app.errors import TooManyRequests
from app.jobs import service as jobs_service
from app.jobs.result import JobResult
from app.jobs.schemas import JobCreate
from app.main import create_app
from app.settings import Settings
from tests.app import factories as f
from tests.app.factories import RecordingQueue
from tests.conftest import bearer, make_api_key
from worker.runner import Runner

CAP = 3


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.services)])
def settings(request: pytest.FixtureRequest, tmp_path: Path) -> Settings:
    url = "" if request.param == "sqlite" else request.getfixturevalue("pg_url")
    settings = Settings(
        data_dir=tmp_path, database_url=url, broker_url="memory://", max_active_jobs_per_tenant=CAP, auth="keys",
        max_json_body_bytes=64 * 1024, max_rows=1000, max_cells=100_000,
    )  # fmt: skip
    if request.param == "sqlite":
        migrate.upgrade(settings.database_url)
    return settings


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    """The API with API keys, as a tenant of its own (the PostgreSQL database is shared by the
    session's tests), and a queue that only records."""
    app = create_app(settings, queue=RecordingQueue(settings, None))
    app.state.queue.engine = app.state.engine
    tenant = f"inputs-{uuid.uuid4().hex[:12]}"
    headers = bearer(make_api_key(app.state.engine, tenant))
    with TestClient(app, raise_server_exceptions=False, headers=headers) as c:
        with app.state.sessionmaker() as session:
            c.tenant_id = tenancy.get_or_create_tenant(session, tenant).id  # type: ignore[attr-defined]
        yield c
    app.state.engine.dispose()


def _dataset(client: TestClient, seed: int) -> str:
    response = f.upload_csv(client, f.frame(seed=seed))
    assert response.status_code in (200, 201), response.text
    return str(response.json()["id"])


def _post_raw(client: TestClient, path: str, body: str) -> Any:
    return client.post(path, content=body, headers={"content-type": "application/json"})


@pytest.mark.parametrize(
    ("value", "field"),
    [
        ("1e400", "params.rounds"),
        ("NaN", "params.rounds"),
        ("Infinity", "params.rounds"),
        ("-1e400", "params.rounds"),
    ],
)
def test_non_finite_numbers_are_a_422_naming_the_field(client: TestClient, value: str, field: str) -> None:
    dataset = _dataset(client, 11)
    body = f'{{"dataset_id": "{dataset}", "algorithm": "sal", "train_environments": ["a", "b"], "params": {{"rounds": {value}}}}}'
    f.assert_problem(_post_raw(client, "/jobs", body), 422, field)


def test_a_sweep_range_beyond_float_is_a_422(client: TestClient) -> None:
    dataset = _dataset(client, 12)
    body = (
        f'{{"dataset_id": "{dataset}", "train_environments": ["a", "b"], "algorithms": '
        '{"ridge": {"n_trials": 2, "random": {"alpha": {"low": -1e400, "high": 1e400}}}}}'
    )
    f.assert_problem(_post_raw(client, "/sweeps", body), 422, "algorithms.ridge.random.alpha.low")


@pytest.mark.parametrize("when", ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00"])
@pytest.mark.parametrize("path", ["/jobs", "/datasets", "/sweeps"])
def test_a_cursor_outside_utc_is_a_422(client: TestClient, path: str, when: str) -> None:
    cursor = base64.urlsafe_b64encode(json.dumps([when, "x"]).encode()).decode().rstrip("=")
    f.assert_problem(client.get(path, params={"cursor": cursor}), 422, "cursor")


def test_model_hidden_is_bounded(client: TestClient) -> None:
    dataset = _dataset(client, 13)
    body = f.job_body(dataset, algorithm="sal", model={"kind": "mlp", "hidden": [10**12]})
    f.assert_problem(client.post("/jobs", json=body), 422, "model.hidden")


def test_invalid_json_names_the_body_with_its_position(client: TestClient) -> None:
    problem = f.assert_problem(_post_raw(client, "/jobs", "[1,"), 422, "body")
    assert "line 1 column 4" in problem["detail"]


def test_a_body_over_the_limit_is_a_413_and_error_lists_are_capped(client: TestClient) -> None:
    big = json.dumps({"dataset_id": "x", "junk": "y" * 70_000})
    f.assert_problem(_post_raw(client, "/jobs", big), 413)
    many = {"dataset_id": "x", "algorithm": "erm", "train_environments": ["a"]} | {
        f"k{i}": 1 for i in range(2000)
    }
    problem = f.assert_problem(client.post("/jobs", json=many), 422)
    assert len(problem["errors"]) <= 20


def test_nul_is_refused_the_same_way_on_both_databases(client: TestClient) -> None:
    problem = f.assert_problem(f.upload_csv(client, f.frame(seed=14), name="a\x00b"), 422, "name")
    assert "postgres" not in problem["detail"].lower() and "sqlite" not in problem["detail"].lower()
    dataset = _dataset(client, 14)
    f.assert_problem(client.post("/jobs", json=f.job_body(dataset, train_environments=["a\x00", "b"])), 422,
                     "train_environments[0]")  # fmt: skip
    frame = f.frame(seed=15)
    frame.loc[frame["env"] == "a", "env"] = "a\x00"
    f.assert_problem(f.upload_csv(client, frame), 422, "environment")


def test_values_whose_squares_overflow_are_refused_at_upload(client: TestClient) -> None:
    frame = f.frame(seed=16)
    frame["y"] = frame["y"] * 1e200
    f.assert_problem(f.upload_csv(client, frame), 422, "target")


def test_parquet_limits_are_read_from_its_metadata_before_decoding(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    n = 5000  # over max_rows = 1000; a few KB compressed
    table = pa.table({"env": ["a"] * n, "x1": np.zeros(n), "y": np.zeros(n)})
    sink = io.BytesIO()
    pq.write_table(table, sink)

    def never(*_: object, **__: object) -> None:
        raise AssertionError("decoded a Parquet file over the limits")

    monkeypatch.setattr(pq, "read_table", never)
    files = {"file": ("bomb.parquet", sink.getvalue(), "application/octet-stream")}
    problem = f.assert_problem(
        client.post("/datasets", files=files, data={"target": "y", "environment": "env"}), 422, "file"
    )
    assert "max_rows" in problem["detail"]


def test_a_csv_with_50k_columns_is_refused_from_its_header(client: TestClient) -> None:
    header = ",".join(["env", "y", *(f"c{i}" for i in range(50_000))])
    row = ",".join(["a", "1", *("0" for _ in range(50_000))])
    data = "\n".join([header, row, row, row]).encode()
    response = client.post(
        "/datasets",
        files={"file": ("wide.csv", data, "text/csv")},
        data={"target": "y", "environment": "env"},
    )
    problem = f.assert_problem(response, 422, "file")
    assert "columns" in problem["detail"]


def test_rerun_counts_against_the_active_job_cap(client: TestClient) -> None:
    dataset = _dataset(client, 17)
    first = client.post("/jobs", json=f.job_body(dataset)).json()["id"]
    for _ in range(CAP - 1):
        assert client.post(f"/jobs/{first}/rerun").status_code == 202
    problem = f.assert_problem(client.post(f"/jobs/{first}/rerun"), 429)
    assert "queued or running" in problem["detail"]
    f.assert_problem(client.post("/jobs", json=f.job_body(dataset)), 429)


def test_the_cap_is_exact_under_concurrent_posts(client: TestClient, settings: Settings) -> None:
    dataset = _dataset(client, 18)
    engine = make_engine(settings.database_url)
    sessions = make_sessionmaker(engine)
    queue = RecordingQueue(settings, engine)
    spec = JobCreate.model_validate(f.job_body(dataset))
    outcomes: list[str] = []

    def post() -> None:
        with sessions() as session:
            try:
                jobs_service.queue_job(session, queue, settings, client.tenant_id, spec)  # type: ignore[attr-defined]
                outcomes.append("queued")
            except TooManyRequests:
                outcomes.append("429")

    threads = [threading.Thread(target=post) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    engine.dispose()
    assert outcomes.count("queued") == CAP and outcomes.count("429") == 12 - CAP


def test_a_database_error_in_the_worker_shows_the_tenant_no_sql(
    client: TestClient, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    job_id = client.post("/jobs", json=f.job_body(_dataset(client, 19))).json()["id"]
    runner = Runner.from_settings(settings)

    def boom(*_: object) -> str:
        raise DataError(
            "INSERT INTO job_results (job_id, result) VALUES (%(job_id)s)",
            {"job_id": job_id},
            Exception("bad"),
        )

    monkeypatch.setattr(runner, "_run_claimed", boom)
    try:
        assert runner.run(job_id) == "failed"
    finally:
        runner.close()
    error = client.get(f"/jobs/{job_id}").json()["error"]
    assert error["type"] == "internal"
    assert "INSERT" not in error["message"] and "job_results" not in error["message"]


def test_non_finite_scores_are_named_by_the_one_rule() -> None:
    base: dict[str, Any] = {
        "environments": [{"name": "c", "split": "test", "n_rows": 3, "mse": 1.0}],
        "summary": {"metric": "mse", "mean_error": 1.0, "std_error": 0.0, "worst_error": 1.0},
        "coefficients": {"x1": 1.0}, "intercept": 0.0, "covariate_weights": None,
        "history": [{"round": 0, "risk": None, "env_losses": {"a": None}}],
        "certificate": None, "duration_s": 0.1, "device": "cpu",
    }  # fmt: skip
    assert JobResult.model_validate(base).non_finite_field() is None  # history keeps its nulls
    bad = {**base, "summary": {**base["summary"], "mean_error": float("inf")}}
    assert JobResult.model_validate(bad).non_finite_field() == "summary.mean_error"
    bad = {**base, "environments": [{**base["environments"][0], "mse": float("nan")}]}
    assert JobResult.model_validate(bad).non_finite_field() == "environments[0].mse"


def test_predict_refuses_inputs_beyond_the_dataset_bound(client: TestClient, settings: Settings) -> None:
    job_id = client.post("/jobs", json=f.job_body(_dataset(client, 20))).json()["id"]
    runner = Runner.from_settings(settings)
    try:
        assert runner.run(job_id) == "succeeded"
    finally:
        runner.close()
    f.assert_problem(client.post(f"/jobs/{job_id}/predict", json={"X": [[1e308, 0.0, 0.0]]}), 422, "X")
    ok = client.post(f"/jobs/{job_id}/predict", json={"X": [[1.0, 0.0, 0.0]]})
    assert ok.status_code == 200 and len(ok.json()["predictions"]) == 1


def test_a_sweeps_trials_count_in_its_tenants_backlog_not_the_interactive_cap(
    settings: Settings, tmp_path: Path
) -> None:
    capped = settings.model_copy(update={"max_sweep_jobs": 4})
    app = create_app(capped, queue=RecordingQueue(capped, None))
    app.state.queue.engine = app.state.engine
    headers = bearer(make_api_key(app.state.engine, f"sweeps-{uuid.uuid4().hex[:12]}"))
    with TestClient(app, raise_server_exceptions=False, headers=headers) as client:
        dataset = _dataset(client, 21)
        body = {
            "dataset_id": dataset,
            "train_environments": ["a", "b"],
            "algorithms": {"erm": {}},
            "seeds": [0, 1, 2],
        }
        assert client.post("/sweeps", json=body).status_code == 202  # 3 trials of a backlog of 4
        problem = f.assert_problem(client.post("/sweeps", json=body), 429)
        assert "max_sweep_jobs" in problem["detail"]
        for seed in range(CAP):  # single jobs still have their own cap
            assert client.post("/jobs", json=f.job_body(dataset, seed=seed)).status_code == 202
        f.assert_problem(client.post("/jobs", json=f.job_body(dataset, seed=99)), 429)
    app.state.engine.dispose()
