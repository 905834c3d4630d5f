"""Bad days, on real processes: a worker SIGKILLed mid-fit, Redis and PostgreSQL restarted under
load, and 200 concurrent retries of 20 POSTs. Servers and processes are private to each test
(servers.py) and stopped by their own pid; recovery runs on the default settings."""

from __future__ import annotations

import os
import signal
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, text

from app.main import create_app
from app.settings import Settings
from tests.app import factories as f
from tests.conftest import Proc, _wait_for, bearer, make_api_key, start_worker
from tests.e2e import scenario
from tests.faults.servers import PrivatePostgres, PrivateRedis, start_api

pytestmark = [pytest.mark.services, pytest.mark.slow]

# A SAL fit on a small MLP: ~2.5 s of set-up in a fresh process, then ~15 ms per round.
LONG: dict[str, Any] = {
    "algorithm": "sal",
    "model": {"kind": "mlp", "hidden": [16]},
    # score_all: the robust candidates run even where the slopes look alike (as in these tables)
    "params": {"rounds": 200, "theta_steps": 10, "ascent_steps": 5, "score_all": True},
}


def _results(engine: Engine, job_id: str) -> int:
    with engine.connect() as conn:
        return int(
            conn.execute(
                text("SELECT count(*) FROM job_results WHERE job_id = :id"), {"id": job_id}
            ).scalar_one()
        )


def _wait_running(client: httpx.Client, job_id: str, attempt: int, timeout: float = 180) -> dict[str, Any]:
    """Until the job's given attempt is mid-fit (it reported a step). The timeout is a liveness bound,
    not a timing: the full suite shares two cores with the image build."""
    state: dict[str, Any] = {}

    def mid_fit() -> bool:
        state.update(client.get(f"/jobs/{job_id}").json())
        return (
            state["status"] == "running"
            and len(state["attempts"]) == attempt
            and state["progress"]["step"] >= 1
        )

    _wait_for(mid_fit, timeout, f"job {job_id} attempt {attempt} mid-fit")
    return state


def _first_long(i: int) -> dict[str, Any]:
    """Job i's body where the first job must still be running once the others are posted: 400 rounds
    for it (about 7 s alone), 60 for the rest. At 60 rounds the first one once finished in 1.1 s while
    posting the others took 2.2 s under the full suite's load, and was never seen running."""
    return {**LONG, "params": {**LONG["params"], "rounds": 400 if i == 0 else 60}}


def _kill_pool_child(job: dict[str, Any], worker: Proc) -> None:
    """SIGKILL the pool process running the job: a child of our own worker, checked by its parent pid."""
    pid = int(job["attempts"][-1]["worker"].rsplit(":", 1)[1])
    ppid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    assert ppid == worker.popen.pid, "not a pool process of the worker this test started"
    os.kill(pid, signal.SIGKILL)


def test_a_worker_killed_mid_fit_is_retried_or_fails_worker_lost(
    fault_settings: Settings, fault_engine: Engine, tmp_path: Path
) -> None:
    worker = start_worker(fault_settings, tmp_path / "worker.log")
    app = create_app(fault_settings)
    try:
        with TestClient(app) as client:
            dataset = f.upload_csv(client, f.frame(seed=901)).json()
            retried = client.post("/jobs", json=f.job_body(dataset["id"], **LONG)).json()
            _kill_pool_child(_wait_running(client, retried["id"], 1), worker)
            killed = time.monotonic()
            second = lambda: len(client.get(f"/jobs/{retried['id']}").json()["attempts"]) >= 2  # noqa: E731
            _wait_for(second, 30, "the second attempt")
            # The budget is 15 s (issue 13); a redelivered message takes over at once, so even a
            # slow new pool child (~3 s to start on 2 busy cores) leaves a wide margin.
            assert time.monotonic() - killed <= 15
            done = scenario.wait(client, retried["id"], timeout=90)
            assert done["status"] == "succeeded", done
            assert [a["number"] for a in done["attempts"]] == [1, 2]
            assert done["attempts"][0]["worker"] != done["attempts"][1]["worker"]  # a new pool process
            assert _results(fault_engine, retried["id"]) == 1

            lost = client.post("/jobs", json=f.job_body(dataset["id"], seed=1, **LONG)).json()
            for attempt in (1, 2):  # max_attempts = 2
                _kill_pool_child(_wait_running(client, lost["id"], attempt), worker)
            failed = scenario.wait(client, lost["id"], timeout=60)
            assert failed["status"] == "failed" and failed["error"]["type"] == "worker_lost", failed
            assert len(failed["attempts"]) == 2 and _results(fault_engine, lost["id"]) == 0
    finally:
        app.state.engine.dispose()
        worker.stop()


def test_redis_restarted_with_jobs_queued_and_running(
    fault_settings: Settings, private_redis: PrivateRedis, fault_engine: Engine, tmp_path: Path
) -> None:
    worker = start_worker(fault_settings, tmp_path / "worker.log")
    app = create_app(fault_settings)
    try:
        with TestClient(app) as client:
            dataset = f.upload_csv(client, f.frame(seed=902)).json()
            jobs = [
                client.post("/jobs", json=f.job_body(dataset["id"], seed=i, **_first_long(i))).json()["id"]
                for i in range(4)
            ]
            _wait_running(client, jobs[0], 1)  # one running, three queued
            private_redis.stop()  # every queued message and the unacked one are gone
            time.sleep(1)
            private_redis.start()
            for job_id in jobs:
                done = scenario.wait(client, job_id, timeout=120)
                assert done["status"] == "succeeded", done
                assert _results(fault_engine, job_id) == 1
        assert "sending it again" in worker.log()  # the lost messages were re-sent from SQL
    finally:
        app.state.engine.dispose()
        worker.stop()


def test_postgres_restarted_the_api_is_503_meanwhile_and_recovers(
    fault_settings: Settings, private_pg: PrivatePostgres, fault_engine: Engine, tmp_path: Path
) -> None:
    worker = start_worker(fault_settings, tmp_path / "worker.log")
    api, base = start_api(fault_settings, tmp_path / "api.log")
    try:
        with httpx.Client(base_url=base, timeout=10) as client:
            dataset = f.upload_csv(client, f.frame(seed=903)).json()
            jobs = [
                client.post("/jobs", json=f.job_body(dataset["id"], seed=i, **_first_long(i))).json()["id"]
                for i in range(3)
            ]
            _wait_running(client, jobs[0], 1)
            private_pg.stop()
            for response in (
                client.get(f"/jobs/{jobs[0]}"),
                client.get("/jobs"),
                client.post("/jobs", json=f.job_body(dataset["id"])),
            ):
                problem = f.assert_problem(response, 503)
                assert problem["type"] == "/problems/unavailable" and response.headers["retry-after"]
            time.sleep(2)
            private_pg.start()
            _wait_for(lambda: client.get(f"/jobs/{jobs[0]}").status_code == 200, 30, "the API to recover")
            for job_id in jobs:
                done = scenario.wait(client, job_id, timeout=120)
                assert done["status"] == "succeeded", done
                assert _results(fault_engine, job_id) == 1
        assert api.popen.poll() is None  # the same API process throughout
    finally:
        api.stop()
        worker.stop()


def test_200_concurrent_posts_with_20_keys_make_20_jobs(
    fault_settings: Settings, fault_engine: Engine, tmp_path: Path
) -> None:
    # Two API processes share the unique constraint; no worker, so the jobs stay queued.
    api, base = start_api(fault_settings, tmp_path / "api.log", workers=2, auth="keys")
    try:
        headers = bearer(make_api_key(fault_engine, "concurrency"))
        with httpx.Client(
            base_url=base, timeout=60, headers=headers, limits=httpx.Limits(max_connections=64)
        ) as client:
            dataset = f.upload_csv(client, f.frame(seed=904)).json()
            requests = [(f"key-{i % 20}", f.job_body(dataset["id"], seed=i % 20)) for i in range(200)]

            def post(item: tuple[str, dict[str, Any]]) -> tuple[str, int, str | None]:
                key, body = item
                response = client.post("/jobs", json=body, headers={"Idempotency-Key": key})
                return (
                    key,
                    response.status_code,
                    response.json().get("id") if response.status_code == 202 else None,
                )

            with ThreadPoolExecutor(max_workers=50) as pool:
                outcomes = list(pool.map(post, requests))
        assert {status for _, status, _ in outcomes} <= {202, 409}, outcomes
        ids: dict[str, set[str]] = defaultdict(set)
        for key, status, job_id in outcomes:
            if status == 202:
                ids[key].add(str(job_id))
        assert len(ids) == 20 and all(
            len(v) == 1 for v in ids.values()
        )  # one job per key, every replay the same
        with fault_engine.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM jobs")).scalar_one() == 20
            assert (
                conn.execute(
                    text("SELECT count(*) FROM idempotency_keys WHERE status_code = 202")
                ).scalar_one()
                == 20
            )
    finally:
        api.stop()
