"""POST /jobs/{id}/cancel: queued at once, running at its next checkpoint keeping its partial
history, finished never (409)."""

from __future__ import annotations

import httpx
import pytest

from tests.app import factories as f
from tests.conftest import _wait_for
from tests.e2e import scenario

pytestmark = pytest.mark.services

ENDLESS = {
    "algorithm": "sal",
    "model": {"kind": "mlp", "hidden": [16]},
    # score_all: the robust candidates run even where the slopes look alike (as in this table)
    "params": {"rounds": 100000, "theta_steps": 10, "ascent_steps": 5, "score_all": True},
}


def test_a_queued_job_is_cancelled_at_once(stub_client: httpx.Client) -> None:
    dataset = f.upload_csv(stub_client, f.frame(seed=1001)).json()
    job = stub_client.post("/jobs", json=f.job_body(dataset["id"])).json()
    response = stub_client.post(f"/jobs/{job['id']}/cancel")
    assert response.status_code == 200
    cancelled = response.json()
    assert cancelled["status"] == "cancelled" and cancelled["finished_at"] and cancelled["cancel_requested"]
    assert stub_client.get(f"/jobs/{job['id']}").json()["status"] == "cancelled"
    f.assert_problem(stub_client.post(f"/jobs/{job['id']}/cancel"), 409)  # terminal: never changes
    f.assert_problem(stub_client.post("/jobs/nope/cancel"), 404)


def test_a_running_job_stops_at_its_next_checkpoint_keeping_its_history(
    client: httpx.Client, pg_worker: object, row_counts
) -> None:  # type: ignore[no-untyped-def]
    dataset = f.upload_csv(client, f.frame(seed=1002)).json()
    job = client.post("/jobs", json=f.job_body(dataset["id"], **ENDLESS)).json()
    _wait_for(
        lambda: client.get(f"/jobs/{job['id']}").json()["progress"]["step"] >= 2,
        60,
        "the fit to report progress",
    )
    requested = client.post(f"/jobs/{job['id']}/cancel")
    assert (
        requested.status_code == 202
        and requested.json()["status"] == "running"
        and requested.json()["cancel_requested"]
    )
    done = scenario.wait(client, job["id"], timeout=30)
    assert done["status"] == "cancelled" and done["finished_at"]
    history = done["result"]["history"]
    assert 2 <= len(history) < 100000 and done["progress"]["step"] < done["progress"]["total"]
    f.assert_problem(client.post(f"/jobs/{job['id']}/cancel"), 409)
    f.assert_problem(client.get(f"/jobs/{job['id']}/weights"), 409)  # a partial fit is not a model to serve
    # The report shows what GET /jobs/{id} shows: the partial fit, labelled as such.
    report = client.get(f"/jobs/{job['id']}/report").json()
    assert len(report["history"]) == len(history) and report["summary"] == done["result"]["summary"]
    assert any("partial fit" in note for note in report["notes"])
    assert not any("No result yet" in note for note in report["notes"])
    assert (
        scenario.wait(client, client.post("/jobs", json=f.job_body(dataset["id"])).json()["id"])["status"]
        == "succeeded"
    )
    f.assert_problem(client.post(f"/jobs/{job['id']}/cancel"), 409)
