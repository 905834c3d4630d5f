"""End to end on PostgreSQL + Redis with a real Celery worker process."""

from __future__ import annotations

import time

import httpx
import pytest
from sqlalchemy import text

from tests.app import factories as f
from tests.e2e import scenario

pytestmark = [pytest.mark.services, pytest.mark.slow]


def test_every_algorithm_end_to_end(client: httpx.Client, pg_worker: object) -> None:
    scenario.run_all(client, "pg")


def test_readyz(client: httpx.Client) -> None:
    assert client.get("/readyz").json() == {"database": "ok", "broker": "ok"}


def test_a_duplicate_delivery_through_the_broker_runs_once(
    client: httpx.Client, pg_worker, pg_app, row_counts
) -> None:  # type: ignore[no-untyped-def]
    skipped_before = pg_worker.log().count("'skipped'")
    dataset = f.upload_csv(client, f.frame(seed=501)).json()
    job = client.post("/jobs", json=f.job_body(dataset["id"])).json()
    for _ in range(2):  # the same id delivered twice more, as a redelivery would
        pg_app.state.queue.enqueue(job["id"], pg_app.state.settings.cpu_queue)
    assert scenario.wait(client, job["id"])["status"] == "succeeded"
    deadline = time.monotonic() + 60
    while pg_worker.log().count("'skipped'") < skipped_before + 2:
        assert time.monotonic() < deadline, pg_worker.log()[-3000:]
        time.sleep(0.1)
    with pg_app.state.engine.connect() as conn:
        results = conn.execute(
            text("SELECT count(*) FROM job_results WHERE job_id = :id"), {"id": job["id"]}
        ).scalar_one()
    assert results == 1


def test_predict_rejects_bad_rows(client: httpx.Client, pg_worker, row_counts) -> None:  # type: ignore[no-untyped-def]
    dataset = f.upload_csv(client, f.frame(seed=502)).json()
    job = scenario.wait(client, client.post("/jobs", json=f.job_body(dataset["id"])).json()["id"])
    url = f"/jobs/{job['id']}/predict"
    before = row_counts()
    f.assert_problem(client.post(url, json={"X": [[1.0, 2.0]]}), 422, "X[0]")
    f.assert_problem(client.post(url, json={"rows": [{"x1": 1.0, "x2": 2.0}]}), 422, "rows[0].x3")
    f.assert_problem(
        client.post(url, json={"rows": [{"x1": 1, "x2": 2, "x3": 3, "x4": 4}]}), 422, "rows[0].x4"
    )
    f.assert_problem(client.post(url, json={}), 422, "X")
    f.assert_problem(client.post(url, json={"X": [[1, 2, 3]], "rows": []}), 422, "X")
    f.assert_problem(client.post(url, json={"X": [["a", 2, 3]]}), 422, "X[0][0]")
    nan = b'{"X": [[NaN, 2, 3]]}'
    # NaN is named by its position (one gate for JSON bodies, issue 13)
    f.assert_problem(
        client.post(url, content=nan, headers={"content-type": "application/json"}), 422, "X[0][0]"
    )
    f.assert_problem(client.get(f"/jobs/{job['id']}/weights", params={"format": "pickle"}), 422, "format")
    assert row_counts() == before
    ok = client.post(url, json={"X": [[1, 2, 3]]}).json()
    assert len(ok["predictions"]) == 1 and ok["probabilities"] is None
