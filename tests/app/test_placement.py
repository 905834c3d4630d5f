"""Where POST /jobs, reruns and sweeps send a job (app.jobs.placement) with and without a GPU
worker, on PostgreSQL with a recording queue; and that the result names the device and why."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from app.settings import Settings
from sal_core import devices
from tests.app import factories as f
from worker.runner import Runner

pytestmark = pytest.mark.services

MLP = {"kind": "mlp", "hidden": [4]}


@pytest.fixture(scope="module", params=[True, False], ids=["gpu-workers", "no-gpu-workers"])
def gpu_client(request, stub_settings: Settings, pg_app) -> Iterator[tuple[httpx.Client, f.RecordingQueue]]:  # type: ignore[no-untyped-def]
    """The API with SAL_GPU_WORKERS set true, then false, and a queue that only records."""
    from fastapi.testclient import TestClient

    from app.main import create_app

    settings = stub_settings.model_copy(update={"gpu_workers": request.param})
    queue = f.RecordingQueue(settings, pg_app.state.engine)
    app = create_app(settings, queue=queue)
    with TestClient(app) as c:
        yield c, queue
    app.state.engine.dispose()


@pytest.fixture(scope="module")
def dataset_id(gpu_client: tuple[httpx.Client, f.RecordingQueue]) -> str:
    return str(
        f.upload_csv(gpu_client[0], f.frame(seed=901)).json()["id"]
    )  # 2 x 30 training rows, 3 features


@pytest.fixture
def mlp_needs_a_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    """The MLP threshold lowered to this dataset's 180 training cells, so "auto" wants CUDA."""
    monkeypatch.setitem(devices.GPU_MIN_CELLS, "mlp", 100)


def _submit(client: httpx.Client, queue: f.RecordingQueue, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post("/jobs", json=body)
    assert response.status_code == 202, response.text
    job = response.json()
    # The outbox relay may re-send an earlier job after this one under load: ask that this one went
    # to its queue, not that it went last.
    assert (job["id"], job["queue"]) in queue.sent
    assert client.get(f"/jobs/{job['id']}").json()["queue"] == job["queue"]
    return job  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("device", "model", "big", "gpu_chosen", "reason"),
    [
        ("auto", {"kind": "linear"}, False, False, "below the 1e+09"),
        ("auto", MLP, False, False, "below the 1e+06"),
        ("cpu", MLP, True, False, "requested cpu"),
        ("auto", MLP, True, True, "1e+02"),
    ],
)
def test_auto_and_cpu_jobs_go_where_they_can_run(  # type: ignore[no-untyped-def]
    request,
    gpu_client,
    dataset_id: str,
    device: str,
    model: dict[str, Any],
    big: bool,
    gpu_chosen: bool,
    reason: str,
) -> None:
    client, queue = gpu_client
    if big:
        request.getfixturevalue("mlp_needs_a_gpu")
    job = _submit(client, queue, f.job_body(dataset_id, device=device, model=model))
    gpu = queue.settings.gpu_workers
    on_gpu = gpu_chosen and gpu  # never CUDA without a GPU worker
    assert job["device"]["requested"] == device
    assert job["device"]["chosen"] == ("cuda" if on_gpu else "cpu")
    assert job["queue"] == (queue.settings.gpu_queue if on_gpu else queue.settings.cpu_queue)
    assert reason in job["device"]["reason"] and job["device"]["reason"].startswith(
        device if device == "auto" else "requested"
    )
    if gpu_chosen and not gpu:
        assert "has none" in job["device"]["reason"]


def test_a_cuda_job_without_a_gpu_worker_is_refused_at_submit(
    gpu_client, dataset_id: str, row_counts
) -> None:  # type: ignore[no-untyped-def]
    client, queue = gpu_client
    if queue.settings.gpu_workers:
        job = _submit(client, queue, f.job_body(dataset_id, device="cuda"))
        assert job["status"] == "queued" and job["device"]["chosen"] == "cuda"
        assert job["queue"] == queue.settings.gpu_queue
        return
    before = row_counts()
    refused = client.post("/jobs", json=f.job_body(dataset_id, device="cuda"))
    body = f.assert_problem(refused, 422, "device")
    assert "no GPU worker" in body["detail"] and "SAL_GPU_WORKERS" in body["detail"]
    assert row_counts() == before  # nothing stored, nothing sent


def test_reruns_and_sweeps_are_placed_by_the_same_rule(gpu_client, dataset_id: str, mlp_needs_a_gpu) -> None:  # type: ignore[no-untyped-def]
    client, queue = gpu_client
    expected = queue.settings.gpu_queue if queue.settings.gpu_workers else queue.settings.cpu_queue
    job = _submit(client, queue, f.job_body(dataset_id, device="auto", model=MLP))
    again = client.post(f"/jobs/{job['id']}/rerun")
    assert again.status_code == 202, again.text
    again = again.json()
    assert (again["queue"], again["device"]) == (expected, job["device"])
    sent = len(queue.sent)
    sweep = client.post(
        "/sweeps",
        json={"dataset_id": dataset_id, "train_environments": ["a", "b"], "model": MLP, "device": "auto",
              "algorithms": {"erm": {"grid": {"steps": [5, 6]}}}},
    )  # fmt: skip
    assert sweep.status_code == 202, sweep.text
    trials = queue.sent[sent:]
    assert len(trials) == sweep.json()["progress"]["total"] == 2
    assert {q for _, q in trials} == {expected}


def test_the_job_names_the_device_and_why(gpu_client, dataset_id: str, stub_settings: Settings) -> None:  # type: ignore[no-untyped-def]
    client, queue = gpu_client
    job = _submit(client, queue, f.job_body(dataset_id, device="auto", params={"steps": 5}))
    runner = Runner.from_settings(stub_settings)  # runs it in-process, as a CPU worker would
    try:
        assert runner.run(job["id"]) == "succeeded"
    finally:
        runner.close()
    done = client.get(f"/jobs/{job['id']}").json()
    # One device record: asked, chosen at submit with its reason, and the worker's device.
    assert done["device"] == {**job["device"], "ran_on": "cpu"} and job["device"]["ran_on"] is None
    assert job["device"]["requested"] == "auto" and "below the 1e+09" in job["device"]["reason"]
    assert "device" not in done["result"] and "device" not in done["reproducibility"]
