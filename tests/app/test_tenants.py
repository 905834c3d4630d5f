"""API keys and tenants: 401s, single-user mode, the admin command, and isolation between tenants
(another tenant's ids are 404s, exactly like missing ones)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from app.settings import Settings
from tests.app import factories as f
from tests.conftest import PG_URL, ROOT, bearer, make_api_key
from tests.e2e import scenario

pytestmark = pytest.mark.services


@pytest.fixture(scope="module")
def two_tenants(keys_app) -> Iterator[tuple[TestClient, TestClient]]:  # type: ignore[no-untyped-def]
    engine = keys_app.state.engine
    with (
        TestClient(keys_app, headers=bearer(make_api_key(engine, "tenant-a"))) as a,
        TestClient(keys_app, headers=bearer(make_api_key(engine, "tenant-b"))) as b,
    ):
        yield a, b


def _unauthorised(response: httpx.Response, invalid: bool) -> None:
    body = f.assert_problem(response, 401)
    assert body["type"] == "/problems/unauthorized"
    challenge = response.headers["www-authenticate"]
    assert challenge.startswith("Bearer ") and ('error="invalid_token"' in challenge) == invalid


@pytest.mark.parametrize(
    ("headers", "invalid"),
    [
        ({}, False),
        ({"Authorization": "Bearer sal_not-a-key"}, True),
        ({"Authorization": "Basic dXNlcjpwYXNz"}, True),
        ({"Authorization": "Bearer "}, True),
    ],
    ids=["missing", "unknown", "not bearer", "empty"],
)
def test_keys_mode_requires_a_valid_key(keys_app, headers: dict[str, str], invalid: bool) -> None:  # type: ignore[no-untyped-def]
    with TestClient(keys_app) as c:
        for method, path in [
            ("GET", "/jobs"),
            ("GET", "/datasets"),
            ("POST", "/jobs"),
            ("GET", "/jobs/x/weights"),
        ]:
            _unauthorised(
                c.request(method, path, headers=headers, json={} if method == "POST" else None), invalid
            )
        assert c.get("/healthz").status_code == 200  # probes and the registry need no key
        assert c.get("/algorithms").status_code == 200


def test_single_user_mode_acts_as_the_default_tenant(client: httpx.Client, keys_app) -> None:  # type: ignore[no-untyped-def]
    dataset = f.upload_csv(client, f.frame(seed=701)).json()
    assert client.get(f"/datasets/{dataset['id']}").status_code == 200
    # A key still counts in single-user mode: it acts as its own tenant, which does not see it.
    other = bearer(make_api_key(keys_app.state.engine, "tenant-single-user-check"))
    f.assert_problem(client.get(f"/datasets/{dataset['id']}", headers=other), 404)
    _unauthorised(client.get("/datasets", headers={"Authorization": "Bearer sal_wrong"}), True)


@pytest.mark.parametrize(
    ("auth", "host", "single_user"),
    [
        ("auto", "127.0.0.1", True),
        ("auto", "localhost", True),
        ("auto", "::1", True),
        ("auto", "0.0.0.0", False),
        ("auto", "10.1.2.3", False),
        ("keys", "127.0.0.1", False),
        ("single-user", "0.0.0.0", True),
    ],
)
def test_single_user_only_by_default_on_loopback(auth: str, host: str, single_user: bool) -> None:
    assert Settings(auth=auth, host=host).single_user is single_user  # type: ignore[arg-type]


def test_module_app_requires_keys_unless_told(monkeypatch: pytest.MonkeyPatch) -> None:
    """`uvicorn app.main:app` does not know its bind address, so "auto" means keys there."""
    from app import main
    from app.settings import get_settings

    monkeypatch.setenv("SAL_DATABASE_URL", "sqlite:///:memory:")
    get_settings.cache_clear()
    try:
        assert main.app.state.settings.single_user is False
        monkeypatch.setenv("SAL_AUTH", "single-user")
        get_settings.cache_clear()
        assert main.app.state.settings.single_user is True
    finally:
        get_settings.cache_clear()


def test_admin_creates_lists_and_revokes_keys(keys_app) -> None:  # type: ignore[no-untyped-def]
    env = {k: v for k, v in os.environ.items() if not k.startswith("SAL_")} | {"SAL_DATABASE_URL": PG_URL}

    def admin(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "app.admin", "keys", *args],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
        )

    created = admin("create", "--tenant", "tenant-admin-cli")
    assert created.returncode == 0, created.stderr
    key = next(
        line.split()[-1]
        for line in created.stdout.splitlines()
        if line.split()[:2] != ["key", "id"] and line.startswith("key")
    )
    key_id = next(line.split()[-1] for line in created.stdout.splitlines() if line.startswith("key id"))
    with TestClient(keys_app, headers=bearer(key)) as c:
        assert c.get("/datasets").status_code == 200
        listed = admin("list", "--tenant", "tenant-admin-cli")
        assert key_id in listed.stdout and "active" in listed.stdout and key not in listed.stdout
        assert admin("revoke", key_id).returncode == 0
        _unauthorised(c.get("/datasets"), True)  # at once
        assert "revoked" in admin("list", "--tenant", "tenant-admin-cli").stdout
        assert admin("revoke", key_id).returncode == 1


def test_same_content_from_two_tenants_is_two_datasets(two_tenants: tuple[TestClient, TestClient]) -> None:
    a, b = two_tenants
    df = f.frame(seed=702)
    first, second = f.upload_csv(a, df).json(), f.upload_csv(b, df).json()
    assert first["sha256"] == second["sha256"] and first["id"] != second["id"]
    assert f.upload_csv(a, df).json()["id"] == first["id"]  # still content-addressed within a tenant


def test_a_tenant_cannot_touch_anything_of_another(
    two_tenants: tuple[TestClient, TestClient], pg_worker: object
) -> None:
    a, b = two_tenants
    dataset = f.upload_csv(b, f.frame(seed=703)).json()
    done = scenario.wait(b, b.post("/jobs", json=f.job_body(dataset["id"])).json()["id"])
    assert done["status"] == "succeeded"
    queued = b.post("/jobs", json=f.job_body(dataset["id"], seed=1)).json()  # queued, or already running
    ids: dict[str, Any] = {"dataset": dataset["id"], "job": done["id"], "queued": queued["id"]}

    # Read, download, predict, cancel, delete, or use B's dataset in a job: 404 / 422 as if missing.
    for response in [
        a.get(f"/datasets/{ids['dataset']}"),
        a.delete(f"/datasets/{ids['dataset']}"),
        a.get(f"/jobs/{ids['job']}"),
        a.get(f"/jobs/{ids['job']}/weights"),
        a.get(f"/jobs/{ids['job']}/weights", params={"format": "json"}),
        a.post(f"/jobs/{ids['job']}/predict", json={"X": [[1, 2, 3]]}),
        a.post(f"/jobs/{ids['queued']}/cancel"),
        a.post(f"/jobs/{ids['job']}/cancel"),
    ]:
        body = f.assert_problem(response, 404)
        assert ids["dataset"] not in body["detail"] or "no " in body["detail"]
    f.assert_problem(a.post("/jobs", json=f.job_body(ids["dataset"])), 422, "dataset_id")
    missing = a.get("/jobs/00000000-0000-0000-0000-000000000001").json()
    assert a.get(f"/jobs/{ids['job']}").json()["title"] == missing["title"]

    # Lists: nothing of B, also when filtering by B's dataset.
    assert all(d["id"] != ids["dataset"] for d in a.get("/datasets", params={"limit": 500}).json()["items"])
    listed = a.get("/jobs", params={"limit": 500}).json()["items"]
    assert not {j["id"] for j in listed} & set(ids.values())
    assert a.get("/jobs", params={"dataset_id": ids["dataset"]}).json()["items"] == []

    # And nothing changed for B: its jobs were not cancelled, its dataset and weights are there.
    assert b.get(f"/jobs/{ids['queued']}").json()["status"] != "cancelled"
    assert b.get(f"/jobs/{ids['job']}").json()["status"] == "succeeded"
    assert b.get(f"/datasets/{ids['dataset']}").status_code == 200
    assert b.get(f"/jobs/{ids['job']}/weights").status_code == 200
