"""A job past its soft time limit ends `failed` with type `timeout`, on a real worker process."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings
from tests.app import factories as f
from tests.conftest import start_worker
from tests.e2e import scenario

pytestmark = [pytest.mark.services, pytest.mark.slow]


def test_soft_time_limit_fails_the_job_with_timeout(pg_settings: Settings, tmp_path: Path) -> None:
    # Own queues, so the session's worker never sees these jobs.
    settings = pg_settings.model_copy(
        update={
            "task_soft_time_limit": 2,
            "task_time_limit": 30,
            "cpu_queue": "sal-limits",
            "gpu_queue": "gpu-limits",
        }
    )
    worker = start_worker(settings, tmp_path / "worker.log")
    app = create_app(settings)
    try:
        with TestClient(app) as client:
            dataset = f.upload_csv(client, f.frame(seed=601)).json()
            body = f.job_body(
                dataset["id"], model={"kind": "mlp", "hidden": [64, 64]}, params={"steps": 1_000_000}
            )
            job = client.post("/jobs", json=body).json()
            done = scenario.wait(client, job["id"], timeout=60)
        assert done["status"] == "failed", done
        assert done["error"]["type"] == "timeout"
        assert done["finished_at"] is not None and done["result"] is None
    finally:
        app.state.engine.dispose()
        worker.stop()


def test_a_soft_limit_wrapped_by_the_code_it_interrupted_is_still_a_timeout() -> None:
    """The limit can fire inside an import, where Python re-raises it as another exception (a
    RuntimeError from ``__set_name__``, seen in CI): the job must still fail as a timeout."""
    from celery.exceptions import SoftTimeLimitExceeded

    from worker.runner import _timed_out

    try:
        try:
            raise SoftTimeLimitExceeded()
        except SoftTimeLimitExceeded as inner:
            raise RuntimeError("Error calling __set_name__") from inner
    except RuntimeError as wrapped:
        assert _timed_out(wrapped)
    assert _timed_out(SoftTimeLimitExceeded())
    assert not _timed_out(RuntimeError("something else"))
