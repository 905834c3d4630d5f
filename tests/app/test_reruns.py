"""POST /jobs/{id}/rerun goes the way POST /jobs goes (app.jobs.service._queue): a rerun is refused
exactly where an equal new submission is, by the same rule (the spec's check, the active-job cap,
the work budget), and queued where it is queued."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.db import migrate
from app.jobs import budget
from app.main import create_app
from app.settings import Settings
from tests.app import factories as f


@contextmanager
def _client(data_dir: Path, **settings: Any) -> Iterator[TestClient]:
    """The API over one SQLite file in ``data_dir`` with these settings; jobs stay queued."""
    config = Settings(data_dir=data_dir, broker_url="memory://", **settings)
    config.prepare_dirs()
    migrate.upgrade(config.database_url)
    queue = f.RecordingQueue(config, None)
    app = create_app(config, queue=queue)
    queue.engine = app.state.engine
    with TestClient(app) as c:
        yield c
    app.state.engine.dispose()


def _first_job(data_dir: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """A queued job submitted under the default settings, and the body that made it."""
    with _client(data_dir) as c:
        dataset = f.upload_csv(c, f.frame(seed=2101)).json()["id"]
        body = f.job_body(dataset, algorithm="sal", params={"rounds": 20})
        created = c.post("/jobs", json=body)
        assert created.status_code == 202, created.text
        return created.json(), body


@pytest.mark.parametrize(
    ("tighter", "status"),
    [
        ({}, 202),
        ({"max_active_jobs_per_tenant": 1}, 429),  # the first job is still queued
        ({"max_tenant_work": "work"}, 429),  # room for the first job's work, not a second's
        ({"max_job_work": "work - 1"}, 422),  # one job may no longer do this much
    ],
    ids=["room", "active-job-cap", "tenant-work", "job-work"],
)
def test_a_rerun_is_refused_exactly_where_an_equal_new_submission_is(
    tmp_path: Path, tighter: dict[str, Any], status: int
) -> None:
    job, body = _first_job(tmp_path)
    work = budget.work(job["params"])
    settings = {k: work if v == "work" else work - 1 if v == "work - 1" else v for k, v in tighter.items()}
    with _client(tmp_path, **settings) as c:
        again = c.post(f"/jobs/{job['id']}/rerun")
        if status == 202:  # a queued rerun leaves room for the submission (the defaults are wide)
            assert again.status_code == 202, again.text
            assert again.json()["rerun_of"] == job["id"]
            assert c.post("/jobs", json=body).status_code == 202
            return
        new = c.post("/jobs", json=body)
        assert f.assert_problem(again, status)["detail"] == f.assert_problem(new, status)["detail"]
        assert [j["id"] for j in c.get("/jobs").json()["items"]] == [job["id"]]  # nothing stored
