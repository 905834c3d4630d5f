"""Fair share between tenants: a sweep's trials go to the broker at a lower priority than single
jobs, so tenant B's tiny job does not wait behind tenant A's sweep (issue 13: <= 5 s)."""

from __future__ import annotations

import time
from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import Engine, text

from app.main import create_app
from app.settings import Settings
from tests.app import factories as f
from tests.conftest import _wait_for, bearer, make_api_key, start_worker
from tests.e2e import scenario

# A SAL fit of 150 short rounds: 40 trials are well over 5 s of work first in, first out.
# score_all: the robust candidates run even where the slopes look alike (as in these tables)
TRIAL = {
    "model": {"kind": "linear"},
    "params": {"rounds": 150, "theta_steps": 5, "ascent_steps": 2, "score_all": True},
}


def _queued_trials(engine: Engine, sweep_id: str) -> int:
    with engine.connect() as conn:
        return int(
            conn.execute(
                text("SELECT count(*) FROM jobs WHERE sweep_id = :s AND status = 'queued'"), {"s": sweep_id}
            ).scalar_one()
        )


def test_tenant_bs_tiny_job_goes_ahead_of_tenant_as_sweep(
    fault_settings: Settings, fault_engine: Engine, tmp_path: Path
) -> None:
    settings = fault_settings.model_copy(update={"auth": "keys"})
    worker = start_worker(settings, tmp_path / "worker.log")
    app = create_app(settings)
    a_key, b_key = make_api_key(fault_engine, "tenant-a"), make_api_key(fault_engine, "tenant-b")
    try:
        with TestClient(app, headers=bearer(a_key)) as a, TestClient(app, headers=bearer(b_key)) as b:
            a_data = f.upload_csv(a, f.frame(seed=51)).json()["id"]
            b_data = f.upload_csv(b, f.frame(seed=52)).json()["id"]
            sweep = a.post(
                "/sweeps",
                json={
                    "dataset_id": a_data,
                    "train_environments": ["a", "b"],
                    "algorithms": {
                        "sal": {
                            "grid": {"lambda_": [0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0]},
                            "params": TRIAL["params"],
                        }
                    },
                    "seeds": [0, 1, 2, 3, 4],
                    "model": TRIAL["model"],
                },
            )
            assert sweep.status_code == 202, sweep.text
            sweep_id = sweep.json()["id"]
            _wait_for(lambda: _queued_trials(fault_engine, sweep_id) < 40, 60, "the sweep to start")
            posted = time.monotonic()
            tiny = b.post("/jobs", json=f.job_body(b_data)).json()["id"]
            _wait_for(lambda: b.get(f"/jobs/{tiny}").json()["status"] != "queued", 30, "B's job to start")
            waited = time.monotonic() - posted
            backlog = _queued_trials(fault_engine, sweep_id)
            assert waited <= 5, waited
            assert backlog >= 10, backlog  # it went ahead of A's backlog, not after it
            assert scenario.wait(b, tiny, timeout=60)["status"] == "succeeded"
            a.post(f"/sweeps/{sweep_id}/cancel")
    finally:
        app.state.engine.dispose()
        worker.stop()
