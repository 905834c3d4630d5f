"""A job's work budget (issue 24): rounds x steps per job, and per tenant over its active jobs."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from app.db import migrate
from app.jobs.budget import AUTO_ROUNDS, work
from app.main import create_app
from app.settings import Settings
from tests.app import factories as f


def test_work_is_rounds_times_steps() -> None:
    assert work({"rounds": 100_000, "theta_steps": 1_000_000}) == 10**11
    assert work({"steps": 1_000_000}) == 1_000_000
    assert work({"rounds": "auto", "theta_steps": 50}) == AUTO_ROUNDS * 50
    assert work({}) == 1


def test_a_job_over_its_budget_is_refused_and_a_tenant_over_its_backlog_waits(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, broker_url="memory://", max_job_work=10_000, max_tenant_work=1_000)
    migrate.upgrade(settings.database_url)
    app = create_app(settings, queue=f.RecordingQueue(settings, None))
    app.state.queue.engine = app.state.engine
    with TestClient(app) as c:
        data = f.upload_csv(c, f.frame(seed=2430)).json()["id"]
        huge = c.post(
            "/jobs",
            json=f.job_body(data, algorithm="sal", params={"rounds": 100_000, "theta_steps": 1_000_000}),
        )
        assert "max_job_work" in f.assert_problem(huge, 422, "params.rounds")["detail"]
        sal = {"algorithm": "sal", "params": {"rounds": 20, "theta_steps": 40}}  # 800 steps
        assert c.post("/jobs", json=f.job_body(data, **sal)).status_code == 202
        full = c.post("/jobs", json=f.job_body(data, seed=1, **sal))
        assert "max_tenant_work" in f.assert_problem(full, 429)["detail"] and full.headers["retry-after"]
        assert len(c.get("/jobs").json()["items"]) == 1
    app.state.engine.dispose()
