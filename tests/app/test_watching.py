"""Watching jobs cheaply (issue 11): light list items, history paged on its own, ETag/304 on the
item reads, and Server-Sent Events from a real worker."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from app.queue import INTERACTIVE_PRIORITY, JobQueue, make_celery
from app.settings import Settings
from tests.app import factories as f
from tests.conftest import _wait_for
from tests.e2e import scenario

pytestmark = pytest.mark.services

SAL_40_ROUNDS = {"algorithm": "sal", "params": {"rounds": 40}}


@pytest.fixture(scope="module")
def finished_sal(client: httpx.Client, pg_worker: object) -> dict[str, Any]:
    """A SAL job of 40 rounds on 12 features, run by the worker: its full result is many KB."""
    frame = f.frame(seed=1101)
    for k in range(4, 13):
        frame[f"x{k}"] = frame["x1"] * 0.1 * k
    dataset = f.upload_csv(client, frame).json()
    job = client.post("/jobs", json=f.job_body(dataset["id"], **SAL_40_ROUNDS)).json()
    done = scenario.wait(client, job["id"])
    assert done["status"] == "succeeded", done
    return done


def test_list_items_are_summaries_under_one_kilobyte(
    client: httpx.Client, finished_sal: dict[str, Any]
) -> None:
    assert len(json.dumps(finished_sal).encode()) > 4 * 1024  # the item endpoint keeps the full result
    page = client.get("/jobs", params={"limit": 500}).json()
    item = next(j for j in page["items"] if j["id"] == finished_sal["id"])
    for listed in page["items"]:
        assert len(json.dumps(listed).encode()) < 1024, listed
    assert "result" not in item
    assert item["summary"] == finished_sal["result"]["summary"]
    assert item["duration_s"] == pytest.approx(finished_sal["result"]["duration_s"])
    assert item["status"] == "succeeded" and item["n_attempts"] == 1
    assert item["progress"] == finished_sal["progress"]


def test_history_is_paged_from_a_position(client: httpx.Client, finished_sal: dict[str, Any]) -> None:
    job_id = finished_sal["id"]
    rounds: list[dict[str, Any]] = []
    start: int | None = 0
    while start is not None:
        page = client.get(f"/jobs/{job_id}/history", params={"from": start, "limit": 15}).json()
        assert page["total"] == len(finished_sal["result"]["history"])
        assert len(page["items"]) <= 15
        rounds += page["items"]
        start = page["next_from"]
    assert rounds == finished_sal["result"]["history"]
    assert client.get(f"/jobs/{job_id}/history", params={"from": 10_000}).json() == {
        "items": [],
        "total": len(rounds),
        "next_from": None,
    }
    f.assert_problem(client.get(f"/jobs/{job_id}/history", params={"from": -1}), 422)
    f.assert_problem(client.get("/jobs/nope/history"), 404)


def test_a_queued_job_has_an_empty_history(stub_client: httpx.Client) -> None:
    dataset = f.upload_csv(stub_client, f.frame(seed=1102)).json()
    job = stub_client.post("/jobs", json=f.job_body(dataset["id"])).json()
    page = stub_client.get(f"/jobs/{job['id']}/history").json()
    assert page == {"items": [], "total": 0, "next_from": None}


def test_an_unchanged_job_dataset_and_sweep_are_304(
    client: httpx.Client, finished_sal: dict[str, Any]
) -> None:
    sweep = client.post(
        "/sweeps",
        json={
            "dataset_id": finished_sal["dataset_id"],
            "train_environments": ["a", "b"],
            "algorithms": {"erm": {}},
            "device": "cpu",
        },
    )
    assert sweep.status_code == 202, sweep.text
    deadline = time.monotonic() + 60  # finished: its trial changes nothing after this test
    while client.get(f"/sweeps/{sweep.json()['id']}").json()["status"] == "running":
        assert time.monotonic() < deadline
        time.sleep(0.1)
    for path in (
        f"/jobs/{finished_sal['id']}",
        f"/datasets/{finished_sal['dataset_id']}",
        f"/sweeps/{sweep.json()['id']}",
    ):
        first = client.get(path)
        tag = first.headers["ETag"]
        again = client.get(path, headers={"If-None-Match": tag})
        assert again.status_code == 304 and again.content == b"" and again.headers["ETag"] == tag, path
        assert client.get(path, headers={"If-None-Match": f'W/{tag}, "other"'}).status_code == 304
        assert client.get(path, headers={"If-None-Match": '"other"'}).status_code == 200


def test_a_job_that_changes_gets_a_new_etag(stub_client: httpx.Client) -> None:
    dataset = f.upload_csv(stub_client, f.frame(seed=1103)).json()
    job = stub_client.post("/jobs", json=f.job_body(dataset["id"])).json()
    tag = stub_client.get(f"/jobs/{job['id']}").headers["ETag"]
    assert stub_client.get(f"/jobs/{job['id']}", headers={"If-None-Match": tag}).status_code == 304
    stub_client.post(f"/jobs/{job['id']}/cancel")
    changed = stub_client.get(f"/jobs/{job['id']}", headers={"If-None-Match": tag})
    assert changed.status_code == 200 and changed.json()["status"] == "cancelled"
    assert changed.headers["ETag"] != tag


def _parse_sse(text: str) -> list[dict[str, Any]]:
    events = []
    for block in text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if line and not line.startswith(":"))
        if "event" in fields:
            events.append({"id": fields["id"], "event": fields["event"], "data": json.loads(fields["data"])})
    return events


class HeldQueue(JobQueue):
    """The broker queue, holding what it is given until ``release``: a test opens a job's event
    stream while the job is surely queued, then lets the worker have it."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(make_celery(settings), settings)
        self.held: list[tuple[str, str, int]] = []

    def enqueue(self, job_id: str, queue: str, priority: int = INTERACTIVE_PRIORITY) -> None:
        self.held.append((job_id, queue, priority))

    def release(self) -> None:
        while self.held:
            super().enqueue(*self.held.pop(0))


@pytest.fixture(scope="module")
def fast_events_client(pg_settings, pg_worker: object):  # type: ignore[no-untyped-def]
    """The API reading watched jobs every 20 ms, so a short fit shows several progress events; its
    queue holds each job until the test releases it."""
    from app.main import create_app

    settings = pg_settings.model_copy(update={"events_poll_s": 0.02})
    app = create_app(settings, queue=HeldQueue(settings))
    with TestClient(app) as c:
        yield c
    app.state.engine.dispose()


def test_an_event_stream_shows_progress_and_the_final_event(fast_events_client: TestClient) -> None:
    client = fast_events_client
    app: Any = client.app
    dataset = f.upload_csv(client, f.frame(seed=1104, n_per_env=200)).json()
    # score_all: the w-paths run (and report rounds) although this table's slopes look alike
    body = f.job_body(dataset["id"], algorithm="sal", params={"rounds": 300, "score_all": True})
    job = client.post("/jobs", json=body).json()
    # The stream reads the job's first state, then watches it; only then does the worker get it,
    # so the stream starts at "queued" however fast the fit (the test client returns once the
    # stream ends, hence the thread).
    streamed: list[httpx.Response] = []
    reader = threading.Thread(target=lambda: streamed.append(client.get(f"/jobs/{job['id']}/events")))
    reader.start()
    _wait_for(lambda: job["id"] in app.state.watcher._watchers, 30, "the stream to watch the job")
    app.state.queue.release()
    reader.join(timeout=120)
    [response] = streamed
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
    events = _parse_sse(response.text)
    kinds = [e["event"] for e in events]
    assert kinds[0] == "status" and kinds[-1] == "final" and kinds.count("final") == 1
    steps = [e["data"]["progress"]["step"] for e in events if e["event"] in ("status", "progress")]
    assert kinds.count("progress") >= 1 and steps == sorted(steps) and len(set(steps)) >= 2, events
    # Progress events carry the latest round's risk and, from SAL's rounds that learn it, w by
    # feature (this dataset has few features).
    rounds = [e["data"]["metrics"] for e in events if e["event"] == "progress" and e["data"]["metrics"]]
    assert rounds and all(isinstance(m["risk"], float) for m in rounds), events
    assert any(set(m.get("w") or ()) == set(dataset["feature_names"]) for m in rounds), rounds
    final = events[-1]["data"]
    assert final["status"] == "succeeded" and final["summary"] is not None
    assert final["summary"] == client.get(f"/jobs/{job['id']}").json()["result"]["summary"]
    # Resuming after the final event: nothing more (204 stops an EventSource reconnecting).
    again = client.get(f"/jobs/{job['id']}/events", headers={"Last-Event-ID": events[-1]["id"]})
    assert again.status_code == 204
    # Resuming from an older id sends the final state again, not what the client already has.
    resumed = _parse_sse(
        client.get(f"/jobs/{job['id']}/events", headers={"Last-Event-ID": "0-0-queued"}).text
    )
    assert [e["event"] for e in resumed] == ["final"]
    f.assert_problem(client.get("/jobs/nope/events"), 404)
