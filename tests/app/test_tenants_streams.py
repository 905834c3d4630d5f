"""Event streams under many tenants (issue 24): a revoked key's open stream ends within one watcher
pass, and one tenant may hold only max_streams_per_tenant streams open in a process."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.db import tenancy
from app.main import create_app
from app.settings import Settings
from tests.app import factories as f
from tests.conftest import _wait_for, bearer, make_api_key

pytestmark = pytest.mark.services


@pytest.fixture
def streams_app(stub_settings: Settings) -> Iterator[FastAPI]:
    """Keys mode, a queue that only records (jobs stay queued: their streams never end alone)."""
    settings = stub_settings.model_copy(update={"auth": "keys", "max_streams_per_tenant": 1})
    app = create_app(settings, queue=f.RecordingQueue(settings, None))
    app.state.queue.engine = app.state.engine
    yield app
    app.state.engine.dispose()


def _open_stream(client: TestClient, url: str) -> tuple[threading.Thread, list[httpx.Response]]:
    out: list[httpx.Response] = []
    thread = threading.Thread(target=lambda: out.append(client.get(url)), daemon=True)
    thread.start()  # the test client returns once the stream ends
    return thread, out


def test_revoking_a_key_ends_its_open_stream_and_caps_streams(streams_app: FastAPI) -> None:
    engine = streams_app.state.engine
    tenant = f"tenant-{uuid.uuid4().hex[:10]}"
    key = make_api_key(engine, tenant)
    other_key = make_api_key(engine, tenant)  # the same tenant's second key
    with TestClient(streams_app, headers=bearer(key)) as c:
        dataset = f.upload_csv(c, f.frame(seed=2403)).json()["id"]
        job = c.post("/jobs", json=f.job_body(dataset)).json()["id"]
        thread, out = _open_stream(c, f"/jobs/{job}/events")
        slots = streams_app.state.stream_slots
        _wait_for(lambda: slots.full(tenant_id(streams_app, tenant)), 30, "the stream to open")
        # the tenant's cap is one stream here, whichever key asks
        f.assert_problem(c.get(f"/jobs/{job}/events", headers=bearer(other_key)), 429)
        with streams_app.state.sessionmaker() as session:
            key_id = tenancy.principal_for_key(session, _sha(key))
            assert key_id is not None and tenancy.revoke_api_key(session, str(key_id.key_id))
            session.commit()
        thread.join(timeout=60)
        assert not thread.is_alive(), "the revoked key's stream stayed open"
        assert out[0].status_code == 200 and "event: final" not in out[0].text
        assert not slots.full(tenant_id(streams_app, tenant))  # its slot was given back
        assert c.get(f"/jobs/{job}").status_code == 401


def tenant_id(app: FastAPI, name: str) -> str:
    with app.state.sessionmaker() as session:
        return tenancy.get_or_create_tenant(session, name).id


def _sha(key: str) -> str:
    from app.auth import key_sha256

    return key_sha256(key)
