"""Fair share between tenants in the queue (issue 24): tenant B's first job goes ahead of tenant A's
backlog of single jobs (Redis priorities by the tenant's backlog, app.queue.priority_of)."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from app.main import create_app
from app.queue import BACKLOG_PRIORITY, BULK_PRIORITY, INTERACTIVE_PRIORITY, priority_of
from app.settings import Settings
from tests.app import factories as f
from tests.conftest import _wait_for, bearer, make_api_key, start_worker
from tests.e2e import scenario

# A SAL fit of 150 short rounds: 30 of them are seconds of work on one worker.
# score_all: the robust candidates run even where the slopes look alike (as in these tables)
HEAVY = {
    "algorithm": "sal",
    "params": {"rounds": 150, "theta_steps": 5, "ascent_steps": 2, "score_all": True},
}


def test_priorities_fall_with_the_backlog() -> None:
    assert [priority_of(None, n) for n in (1, 2, 10, 11, 100)] == [INTERACTIVE_PRIORITY, 3, 3,
                                                                     BACKLOG_PRIORITY, BACKLOG_PRIORITY]  # fmt: skip
    assert priority_of("sweep-1", 1) == BULK_PRIORITY > BACKLOG_PRIORITY


@pytest.mark.services
@pytest.mark.slow
def test_tenant_bs_first_job_passes_tenant_as_backlog(pg_settings: Settings, tmp_path: Path) -> None:
    suffix = uuid.uuid4().hex[:8]
    settings = pg_settings.model_copy(
        update={"auth": "keys", "cpu_queue": f"fair-{suffix}", "gpu_queue": f"fair-gpu-{suffix}"}
    )
    worker = start_worker(settings, tmp_path / "worker.log")
    app = create_app(settings)
    engine = app.state.engine
    a_key, b_key = make_api_key(engine, f"fair-a-{suffix}"), make_api_key(engine, f"fair-b-{suffix}")
    a_jobs: list[str] = []
    try:
        with TestClient(app, headers=bearer(a_key)) as a, TestClient(app, headers=bearer(b_key)) as b:
            a_data = f.upload_csv(a, f.frame(seed=2420)).json()["id"]
            b_data = f.upload_csv(b, f.frame(seed=2421)).json()["id"]
            for seed in range(30):
                posted = a.post("/jobs", json=f.job_body(a_data, seed=seed, **HEAVY))
                assert posted.status_code == 202, posted.text
                a_jobs.append(posted.json()["id"])
            tiny = b.post("/jobs", json=f.job_body(b_data)).json()["id"]
            _wait_for(lambda: b.get(f"/jobs/{tiny}").json()["status"] != "queued", 120, "B's job to start")
            with engine.connect() as conn:
                behind = conn.execute(
                    text("SELECT count(*) FROM jobs WHERE id = ANY(:ids) AND status = 'queued'"),
                    {"ids": a_jobs},
                ).scalar_one()
            assert behind >= 10, behind  # B went ahead of A's backlog, not after it
            assert scenario.wait(b, tiny, timeout=120)["status"] == "succeeded"
            for job_id in a_jobs:
                a.post(f"/jobs/{job_id}/cancel")
    finally:
        app.state.engine.dispose()
        worker.stop()
