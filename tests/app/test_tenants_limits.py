"""Many tenants, one service (issue 24): per-tenant request rates shared by API processes, failed
keys throttled per source, and /metrics for operators only."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.db import migrate
from app.main import create_app
from app.settings import Settings
from tests.app import factories as f
from tests.conftest import bearer, make_api_key

pytestmark = pytest.mark.services


def _tenant() -> str:
    return f"tenant-{uuid.uuid4().hex[:10]}"  # fresh counts in the shared store, whatever ran before


@pytest.fixture
def limited(pg_settings: Settings) -> Iterator[tuple[FastAPI, FastAPI]]:
    """Two API "processes" (apps) in keys mode on one PostgreSQL and one Redis."""
    settings = pg_settings.model_copy(
        update={"auth": "keys", "tenant_rate_limit": "5/minute", "auth_failure_limit": "3/minute"}
    )
    one, two = create_app(settings), create_app(settings)
    yield one, two
    one.state.engine.dispose()
    two.state.engine.dispose()


def _assert_limited(response, policy: str) -> None:  # type: ignore[no-untyped-def]
    f.assert_problem(response, 429)
    assert int(response.headers["retry-after"]) >= 1
    assert response.headers["ratelimit-policy"].startswith(f'"{policy}";q=')
    assert response.headers["ratelimit"].startswith(f'"{policy}";r=0;t=')


def test_a_tenants_rate_is_shared_by_api_processes_and_spares_other_tenants(
    limited: tuple[FastAPI, FastAPI],
) -> None:
    one, two = limited
    a_key, b_key = make_api_key(one.state.engine, _tenant()), make_api_key(one.state.engine, _tenant())
    with TestClient(one, headers=bearer(a_key)) as a1, TestClient(two, headers=bearer(a_key)) as a2:
        statuses = [c.get("/datasets").status_code for c in (a1, a2, a1, a2, a1)]
        assert statuses == [200] * 5
        _assert_limited(a2.get("/datasets"), "tenant")  # the sixth, in the other process
        _assert_limited(a1.get("/jobs"), "tenant")
    with TestClient(two, headers=bearer(b_key)) as b:
        assert b.get("/datasets").status_code == 200


def test_wrong_keys_are_throttled_per_source(limited: tuple[FastAPI, FastAPI]) -> None:
    one, _ = limited
    good = make_api_key(one.state.engine, _tenant())
    with (
        TestClient(one, client=("203.0.113.7", 4000)) as guesser,
        TestClient(one, client=("203.0.113.8", 4000)) as other,
    ):
        for i in range(3):
            assert guesser.get("/datasets", headers=bearer(f"sal_wrong-{i}")).status_code == 401
        _assert_limited(guesser.get("/datasets", headers=bearer("sal_wrong-3")), "auth-failure")
        _assert_limited(guesser.get("/datasets", headers={"Authorization": "Basic eDp5"}), "auth-failure")
        # guessing stops even on a right key from that source; another source is not affected
        _assert_limited(guesser.get("/datasets", headers=bearer(good)), "auth-failure")
        assert other.get("/datasets", headers=bearer(good)).status_code == 200


def test_the_in_memory_store_limits_the_embedded_default_in_keys_mode(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, broker_url="memory://", auth="keys", tenant_rate_limit="2/minute")
    migrate.upgrade(settings.database_url)
    app = create_app(settings, queue=f.RecordingQueue(settings, None))
    key = make_api_key(app.state.engine, "solo")
    with TestClient(app, headers=bearer(key)) as c:
        assert [c.get("/datasets").status_code for _ in range(2)] == [200, 200]
        _assert_limited(c.get("/datasets"), "tenant")
        assert c.get("/healthz").status_code == 200  # probes carry no key and are never limited
    app.state.engine.dispose()


def test_single_user_mode_is_not_limited_unless_asked(tmp_path: Path) -> None:
    for limit_single_user, expected in ((False, 200), (True, 429)):
        settings = Settings(
            data_dir=tmp_path / str(limit_single_user),
            broker_url="memory://",
            tenant_rate_limit="2/minute",
            rate_limit_single_user=limit_single_user,
        )
        settings.prepare_dirs()
        migrate.upgrade(settings.database_url)
        app = create_app(settings, queue=f.RecordingQueue(settings, None))
        with TestClient(app) as c:
            assert [c.get("/datasets").status_code for _ in range(3)][-1] == expected
        app.state.engine.dispose()


def test_metrics_need_an_operator_key(keys_app) -> None:  # type: ignore[no-untyped-def]
    engine = keys_app.state.engine
    with TestClient(keys_app) as c:
        tenant = c.get("/metrics", headers=bearer(make_api_key(engine, _tenant())))
        assert f.assert_problem(tenant, 403)["type"] == "/problems/forbidden"
        operator = c.get("/metrics", headers=bearer(make_api_key(engine, "admin")))
        assert operator.status_code == 200 and "sal_jobs" in operator.text
        f.assert_problem(c.get("/metrics"), 401)


def test_metrics_in_single_user_mode_need_no_key(client) -> None:  # type: ignore[no-untyped-def]
    assert client.get("/metrics").status_code == 200
