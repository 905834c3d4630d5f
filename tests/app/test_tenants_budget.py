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


def test_a_sweep_trial_over_the_job_budget_is_refused(tmp_path: Path) -> None:
    """A sweep's trials are jobs: none may ask for more than max_job_work either (the field names
    where the request put it), and a refused sweep creates no job."""
    settings = Settings(data_dir=tmp_path, broker_url="memory://", max_job_work=10_000)
    migrate.upgrade(settings.database_url)
    app = create_app(settings, queue=f.RecordingQueue(settings, None))
    app.state.queue.engine = app.state.engine
    with TestClient(app) as c:
        data = f.upload_csv(c, f.frame(seed=2431)).json()["id"]

        def sweep(search: dict[str, object]) -> object:
            return c.post("/sweeps", json={"dataset_id": data, "train_environments": ["a", "b"],
                                           "algorithms": {"sal": search}})  # fmt: skip

        huge = sweep({"params": {"rounds": 100_000, "theta_steps": 1_000_000}})
        assert "max_job_work" in f.assert_problem(huge, 422, "algorithms.sal.params.rounds")["detail"]
        too_many = sweep({"params": {"theta_steps": 100}, "grid": {"rounds": [50, 101]}})  # 5,000; 10,100
        f.assert_problem(too_many, 422, "algorithms.sal.grid.rounds")
        too_many = sweep({"params": {"rounds": 100}, "grid": {"theta_steps": [50, 101]}})
        f.assert_problem(too_many, 422, "algorithms.sal.params.rounds")  # rounds x theta_steps: rounds named
        assert c.get("/jobs").json()["items"] == []
        within = sweep({"params": {"theta_steps": 100}, "grid": {"rounds": [50, 100]}})
        assert within.status_code == 202, within.text
    app.state.engine.dispose()
