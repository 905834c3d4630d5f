"""API keys managed through the API by an operator's key (issue 22): create with scopes and an
expiry, list (never a secret), revoke; each scope enforced; every bad input a 422 naming its field.
On PostgreSQL with keys required (``keys_app``); the key rule itself is pure (``needed_scope``)."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterator

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from app.auth import needed_scope
from app.db.models import ApiKey
from tests.app import factories as f
from tests.conftest import bearer, make_api_key

pytestmark = pytest.mark.services


@pytest.mark.parametrize(
    ("method", "path", "scope"),
    [
        ("GET", "/jobs", "read"),
        ("HEAD", "/datasets/x", "read"),
        ("POST", "/jobs/abc/predict", "read"),
        ("POST", "/jobs", "write"),
        ("PATCH", "/jobs/abc", "write"),
        ("DELETE", "/datasets/abc", "write"),
        ("POST", "/jobs/abc/cancel", "write"),
        ("GET", "/admin/keys", "admin"),
        ("POST", "/admin/keys", "admin"),
        ("GET", "/metrics", "admin"),
        ("GET", "/administrators", "read"),
    ],
)
def test_the_scope_a_request_needs(method: str, path: str, scope: str) -> None:
    assert needed_scope(method, path) == scope


@pytest.fixture
def api(keys_app) -> Iterator[httpx.Client]:  # type: ignore[no-untyped-def]
    """keys_app with an operator's key (tenant "admin", made before scopes: every scope)."""
    with TestClient(keys_app, headers=bearer(make_api_key(keys_app.state.engine, "admin"))) as c:
        yield c


def _tenant() -> str:
    return f"t-{uuid.uuid4().hex[:8]}"


def test_create_use_list_and_revoke_a_key(api: httpx.Client) -> None:
    tenant = _tenant()
    made = api.post(
        "/admin/keys", json={"tenant": tenant, "scopes": ["read"], "name": "dashboard", "expires_in_days": 30}
    )
    assert made.status_code == 201, made.text
    key = made.json()
    assert key["key"].startswith("sal_") and key["key"].startswith(key["prefix"])
    assert (key["tenant"], key["scopes"], key["state"], key["name"]) == (
        tenant,
        ["read"],
        "active",
        "dashboard",
    )
    expires = dt.datetime.fromisoformat(key["expires_at"]) - dt.datetime.now(dt.UTC)
    assert dt.timedelta(days=29) < expires <= dt.timedelta(days=30)

    as_key = bearer(key["key"])
    assert api.get("/datasets", headers=as_key).status_code == 200
    refused = f.assert_problem(api.post("/jobs", json={}, headers=as_key), 403)
    assert "'write' scope" in refused["detail"]
    f.assert_problem(api.get("/admin/keys", headers=as_key), 403)

    listed = api.get("/admin/keys", params={"tenant": tenant}).json()["items"]
    assert [k["id"] for k in listed] == [key["id"]]
    assert "key" not in listed[0] and key["key"] not in api.get("/admin/keys").text

    revoked = api.delete(f"/admin/keys/{key['id']}")
    assert revoked.status_code == 200 and revoked.json()["state"] == "revoked"
    assert "revoked" in f.assert_problem(api.get("/datasets", headers=as_key), 401)["detail"]
    again = api.delete(f"/admin/keys/{key['id']}")  # revoking a revoked key changes nothing
    assert again.json()["revoked_at"] == revoked.json()["revoked_at"]
    assert api.get("/admin/keys", params={"tenant": tenant, "state": "active"}).json()["items"] == []
    f.assert_problem(api.delete(f"/admin/keys/{uuid.uuid4()}"), 404)


def test_a_write_key_writes_and_an_expired_one_is_listed_so(api: httpx.Client, keys_app) -> None:  # type: ignore[no-untyped-def]
    tenant = _tenant()
    key = api.post("/admin/keys", json={"tenant": tenant}).json()
    assert key["scopes"] == ["read", "write"] and key["expires_at"] is None
    upload = api.post(
        "/datasets",
        files={"file": ("data.csv", f.csv_bytes(f.frame(seed=7)), "text/csv")},
        data={"target": "y", "environment": "env"},
        headers=bearer(key["key"]),
    )
    assert upload.status_code == 201, upload.text
    with keys_app.state.sessionmaker() as session:
        past = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=1)
        session.execute(update(ApiKey).where(ApiKey.id == key["id"]).values(expires_at=past))
        session.commit()
    assert api.get("/admin/keys", params={"tenant": tenant}).json()["items"][0]["state"] == "expired"
    f.assert_problem(api.get("/datasets", headers=bearer(key["key"])), 401)


def test_an_operator_key_with_the_admin_scope_manages_keys(api: httpx.Client) -> None:
    operator = api.post("/admin/keys", json={"tenant": "admin", "scopes": ["admin"]}).json()
    as_operator = bearer(operator["key"])
    made = api.post("/admin/keys", json={"tenant": _tenant()}, headers=as_operator)
    assert made.status_code == 201, made.text
    f.assert_problem(api.get("/datasets", headers=as_operator), 403)  # admin alone reads no tenant data
    reader = api.post("/admin/keys", json={"tenant": "admin", "scopes": ["read"]}).json()
    f.assert_problem(api.get("/admin/keys", headers=bearer(reader["key"])), 403)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "tenant"),
        ({"tenant": "   "}, "tenant"),
        ({"tenant": "x", "scopes": []}, "scopes"),
        ({"tenant": "x", "scopes": ["read", "delete"]}, "scopes[1]"),
        ({"tenant": "x", "scopes": ["read", "admin"]}, "scopes"),  # x is no operator tenant
        ({"tenant": "x", "expires_in_days": 0}, "expires_in_days"),
        ({"tenant": "x", "expires_at": "2020-01-01T00:00:00Z"}, "expires_at"),
        ({"tenant": "x", "expires_at": "2999-01-01T00:00:00"}, "expires_at"),  # no time zone
        ({"tenant": "x", "expires_at": "2999-01-01T00:00:00Z", "expires_in_days": 1}, "expires_in_days"),
        ({"tenant": "x", "owner": "me"}, "owner"),
    ],
)
def test_bad_key_requests_name_the_field(api: httpx.Client, body: dict[str, object], field: str) -> None:
    before = len(api.get("/admin/keys").json()["items"])
    f.assert_problem(api.post("/admin/keys", json=body), 422, field)
    assert len(api.get("/admin/keys").json()["items"]) == before


def test_only_an_operator_manages_keys(keys_app) -> None:  # type: ignore[no-untyped-def]
    with TestClient(keys_app) as c:
        f.assert_problem(c.get("/admin/keys"), 401)
        tenant_key = bearer(make_api_key(keys_app.state.engine, _tenant()))  # made before scopes: all
        body = f.assert_problem(c.post("/admin/keys", json={"tenant": "y"}, headers=tenant_key), 403)
        assert "operator" in body["detail"]
        f.assert_problem(c.delete(f"/admin/keys/{uuid.uuid4()}", headers=tenant_key), 403)


def test_every_operation_that_takes_a_key_documents_the_scope_403(keys_app) -> None:  # type: ignore[no-untyped-def]
    operations = [op for path in keys_app.openapi()["paths"].values() for op in path.values()]
    keyed = [op for op in operations if "401" in op["responses"]]
    assert len(keyed) >= 20
    assert [op["operationId"] for op in keyed if "403" not in op["responses"]] == []
