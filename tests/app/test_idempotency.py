"""Idempotency-Key on POST /jobs and POST /datasets, and the per-tenant cap on active jobs."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterator

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text, update

from app.db import tenancy
from app.db.models import IdempotencyKey
from app.settings import Settings
from tests.app import factories as f
from tests.conftest import bearer, make_api_key

pytestmark = pytest.mark.services


@pytest.fixture
def tenant_client(stub_settings: Settings, pg_app) -> Iterator[tuple[TestClient, f.RecordingQueue, str]]:  # type: ignore[no-untyped-def]
    """A fresh tenant on a keys-mode app whose queue only records (jobs stay queued); at most 3
    active jobs per tenant."""
    from app.main import create_app

    queue = f.RecordingQueue(stub_settings, pg_app.state.engine)
    settings = stub_settings.model_copy(
        update={"auth": "keys", "max_active_jobs_per_tenant": 3, "retry_after_s": 7}
    )
    app = create_app(settings, queue=queue)
    tenant = f"tenant-{uuid.uuid4().hex[:8]}"
    with TestClient(app, headers=bearer(make_api_key(pg_app.state.engine, tenant))) as c:
        yield c, queue, tenant
    app.state.engine.dispose()


def _jobs_of(pg_app, tenant: str) -> int:  # type: ignore[no-untyped-def]
    with pg_app.state.engine.connect() as conn:
        sql = "SELECT count(*) FROM jobs JOIN tenants ON tenants.id = jobs.tenant_id WHERE tenants.name = :t"
        return int(conn.execute(text(sql), {"t": tenant}).scalar_one())


def test_a_repeat_returns_the_first_response(tenant_client, pg_app) -> None:  # type: ignore[no-untyped-def]
    c, queue, tenant = tenant_client
    dataset = f.upload_csv(c, f.frame(seed=801)).json()
    body = f.job_body(dataset["id"], seed=5)
    first = c.post("/jobs", json=body, headers={"Idempotency-Key": "k-1"})
    assert first.status_code == 202 and "idempotent-replayed" not in first.headers
    reordered = dict(reversed(list(body.items())))  # key order is not part of the body's identity
    again = c.post("/jobs", json=reordered, headers={"Idempotency-Key": "k-1"})
    assert again.status_code == 202 and again.json() == first.json()
    assert (
        again.headers["location"] == first.headers["location"]
        and again.headers["idempotent-replayed"] == "true"
    )
    assert _jobs_of(pg_app, tenant) == 1 and len(queue.sent) == 1

    other = c.post("/jobs", json={**body, "seed": 6}, headers={"Idempotency-Key": "k-1"})
    f.assert_problem(other, 422, "Idempotency-Key")
    assert c.post("/jobs", json=body, headers={"Idempotency-Key": "k-2"}).json()["id"] != first.json()["id"]
    assert _jobs_of(pg_app, tenant) == 2


def test_keys_belong_to_a_tenant(tenant_client, pg_app) -> None:  # type: ignore[no-untyped-def]
    c, _, _ = tenant_client
    dataset = f.upload_csv(c, f.frame(seed=802)).json()
    body = f.job_body(dataset["id"])
    mine = c.post("/jobs", json=body, headers={"Idempotency-Key": "shared"}).json()
    other_tenant = bearer(make_api_key(pg_app.state.engine, f"tenant-{uuid.uuid4().hex[:8]}"))
    # Another tenant's same key is its own: here the dataset is not theirs, so a 422 on dataset_id.
    f.assert_problem(
        c.post("/jobs", json=body, headers={"Idempotency-Key": "shared", **other_tenant}), 422, "dataset_id"
    )
    assert c.post("/jobs", json=body, headers={"Idempotency-Key": "shared"}).json()["id"] == mine["id"]


def test_in_flight_is_409_until_it_is_stale(tenant_client, pg_app) -> None:  # type: ignore[no-untyped-def]
    from app.api import idempotency

    c, _, _ = tenant_client
    dataset = f.upload_csv(c, f.frame(seed=803)).json()
    body = f.job_body(dataset["id"])
    with pg_app.state.sessionmaker() as session:
        tenant_id = session.execute(
            text("SELECT tenant_id FROM datasets WHERE id = :id"), {"id": dataset["id"]}
        ).scalar_one()
        from app.jobs.schemas import JobCreate

        fp = idempotency.fingerprint("create_job", JobCreate.model_validate(body).model_dump(mode="json"))
        tenancy.add_idempotent(session, tenant_id, "busy", fp)  # as if another API process were on it
        session.commit()
    f.assert_problem(c.post("/jobs", json=body, headers={"Idempotency-Key": "busy"}), 409)
    f.assert_problem(c.post("/jobs", json={**body, "seed": 9}, headers={"Idempotency-Key": "busy"}), 422)
    with pg_app.state.sessionmaker() as session:  # that process died long ago
        old = dt.datetime.now(dt.UTC) - dt.timedelta(hours=1)
        session.execute(update(IdempotencyKey).where(IdempotencyKey.key == "busy").values(created_at=old))
        session.commit()
    assert c.post("/jobs", json=body, headers={"Idempotency-Key": "busy"}).status_code == 202


def test_a_failed_request_frees_its_key(tenant_client, row_counts) -> None:  # type: ignore[no-untyped-def]
    c, _, _ = tenant_client
    dataset = f.upload_csv(c, f.frame(seed=804)).json()
    before = row_counts()
    bad = c.post(
        "/jobs", json=f.job_body(dataset["id"], params={"steps": 0}), headers={"Idempotency-Key": "fix-me"}
    )
    f.assert_problem(bad, 422, "params.steps")
    assert row_counts() == before
    assert (
        c.post("/jobs", json=f.job_body(dataset["id"]), headers={"Idempotency-Key": "fix-me"}).status_code
        == 202
    )


def test_dataset_uploads_are_idempotent(tenant_client, row_counts) -> None:  # type: ignore[no-untyped-def]
    c, _, _ = tenant_client
    df = f.frame(seed=805)
    files = {"file": ("d.csv", f.csv_bytes(df), "text/csv")}
    data = {"target": "y", "environment": "env", "name": "idem"}
    first = c.post("/datasets", files=files, data=data, headers={"Idempotency-Key": "up-1"})
    assert first.status_code == 201
    # A retry is a new multipart body (a new boundary): the table and name decide, not the bytes.
    again = c.post("/datasets", files=files, data=data, headers={"Idempotency-Key": "up-1"})
    assert (again.status_code, again.json()) == (201, first.json()) and again.headers[
        "idempotent-replayed"
    ] == "true"
    before = row_counts()
    other = c.post(
        "/datasets",
        files={"file": ("d.csv", f.csv_bytes(f.frame(seed=806)), "text/csv")},
        data=data,
        headers={"Idempotency-Key": "up-1"},
    )
    f.assert_problem(other, 422, "Idempotency-Key")
    assert row_counts() == before


def test_too_many_active_jobs_is_429_with_retry_after(tenant_client, row_counts) -> None:  # type: ignore[no-untyped-def]
    c, _, _ = tenant_client
    dataset = f.upload_csv(c, f.frame(seed=807)).json()
    jobs = [c.post("/jobs", json=f.job_body(dataset["id"], seed=i)).json() for i in range(3)]
    before = row_counts()
    refused = c.post("/jobs", json=f.job_body(dataset["id"], seed=3), headers={"Idempotency-Key": "over"})
    f.assert_problem(refused, 429)
    assert refused.headers["retry-after"] == "7"
    assert row_counts() == before
    assert c.post(f"/jobs/{jobs[0]['id']}/cancel").status_code == 200  # one slot frees up
    assert (
        c.post(
            "/jobs", json=f.job_body(dataset["id"], seed=3), headers={"Idempotency-Key": "over"}
        ).status_code
        == 202
    )


def test_an_empty_key_is_a_422(keys_client: httpx.Client) -> None:
    f.assert_problem(
        keys_client.post("/jobs", json={}, headers={"Idempotency-Key": ""}), 422, "Idempotency-Key"
    )
