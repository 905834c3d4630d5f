"""A refused tenant's (or source's) next requests are answered from the process's memory until the
Retry-After it was given has passed (app.api.ratelimit.RateGate): a 429 with the same headers,
without the rate-limit store or the database. Behaviour only; the cost is bench.tenants' figure."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.api.ratelimit import RateLimited, RateLimits
from app.auth import key_sha256
from app.db import migrate
from app.db.models import DEFAULT_TENANT_ID
from app.main import create_app
from app.settings import Settings
from tests.app import factories as f
from tests.conftest import bearer, make_api_key


@dataclass
class Clock:
    """Wall-clock seconds, as the store's (limits uses time.time), moved by the test."""

    now: float = field(default_factory=time.time)

    def __call__(self) -> float:
        return self.now


@dataclass
class Counting:
    """Forwards every call to ``inner``, counting them."""

    inner: Any
    calls: int = 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return self.inner(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self.inner, name)

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            return attribute(*args, **kwargs)

        return counted


@dataclass
class Gated:
    app: FastAPI
    clock: Clock
    store: Counting
    sessions: Counting

    def touched(self) -> int:
        return self.store.calls + self.sessions.calls


@pytest.fixture
def gated(tmp_path: Path) -> Iterator[Gated]:
    """The embedded default in keys mode (SQLite, the in-memory store), its limiter on a clock the
    test moves, its store and sessionmaker counted."""
    settings = Settings(
        data_dir=tmp_path,
        broker_url="memory://",
        auth="keys",
        tenant_rate_limit="2/minute",
        auth_failure_limit="2/minute",
    )
    migrate.upgrade(settings.database_url)
    app = create_app(settings, queue=f.RecordingQueue(settings, None))
    clock = Clock()
    limits = RateLimits(settings, clock=clock)
    store = Counting(limits._limiter)
    limits._limiter = store  # type: ignore[assignment]
    app.state.limits = limits
    sessions = Counting(app.state.sessionmaker)
    app.state.sessionmaker = sessions
    yield Gated(app, clock, store, sessions)
    app.state.engine.dispose()


def _assert_limited(response: Any, policy: str) -> None:
    f.assert_problem(response, 429)
    assert int(response.headers["retry-after"]) >= 1
    assert response.headers["ratelimit-policy"].startswith(f'"{policy}";q=2;w=60')
    assert response.headers["ratelimit"].startswith(f'"{policy}";r=0;t=')


def test_a_refused_tenant_is_refused_again_without_the_store_or_the_database(gated: Gated) -> None:
    key, other = (make_api_key(gated.app.state.engine, f"t-{uuid.uuid4().hex[:8]}") for _ in range(2))
    with TestClient(gated.app, headers=bearer(key)) as c:
        assert [c.get("/datasets").status_code for _ in range(2)] == [200, 200]
        _assert_limited(c.get("/datasets"), "tenant")  # counted in the store: over the rate
        touched = gated.touched()
        for path in ("/datasets", "/jobs", "/datasets/nothing-here"):
            _assert_limited(c.get(path), "tenant")
        _assert_limited(c.post("/jobs", json={"dataset_id": "x"}), "tenant")
        assert gated.touched() == touched
        assert c.get("/healthz").status_code == 200  # probes are never refused
        assert c.get("/datasets", headers=bearer(other)).status_code == 200  # another tenant

        gated.clock.now += 61  # its Retry-After has passed: the store decides again
        asked = gated.store.calls
        c.get("/datasets")
        assert gated.store.calls > asked


def test_a_source_refused_for_wrong_keys_is_refused_from_memory_even_with_a_right_key(
    gated: Gated,
) -> None:
    good = make_api_key(gated.app.state.engine, f"t-{uuid.uuid4().hex[:8]}")
    with (
        TestClient(gated.app, client=("203.0.113.9", 4000)) as guesser,
        TestClient(gated.app, client=("203.0.113.10", 4000)) as other,
    ):
        for i in range(2):
            assert guesser.get("/datasets", headers=bearer(f"sal_wrong-{i}")).status_code == 401
        _assert_limited(guesser.get("/datasets", headers=bearer("sal_wrong-2")), "auth-failure")
        touched = gated.touched()
        _assert_limited(guesser.get("/datasets", headers=bearer(good)), "auth-failure")
        _assert_limited(guesser.get("/datasets", headers={"Authorization": "Basic eDp5"}), "auth-failure")
        assert gated.touched() == touched
        assert other.get("/datasets", headers=bearer(good)).status_code == 200


def test_refusals_lapse_at_their_retry_after(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, broker_url="memory://", tenant_rate_limit="1/second")
    clock = Clock()
    limits = RateLimits(settings, clock=clock)
    assert limits.refusal("Bearer k", "10.0.0.1", single_user=False) is None  # an unknown key
    limits.remember(key_sha256("k"), "tenant-1")  # as the key's first lookup does
    limits.hit_tenant("tenant-1")
    with pytest.raises(RateLimited) as first:
        limits.hit_tenant("tenant-1")
    assert first.value.headers is not None
    retry_after = first.value.headers["Retry-After"]
    refused = limits.refusal("Bearer k", "10.0.0.1", single_user=False)
    assert refused is not None and refused.headers is not None
    assert refused.headers["Retry-After"] == retry_after
    assert refused.headers["RateLimit-Policy"] == first.value.headers["RateLimit-Policy"]
    clock.now += int(retry_after) + 0.01
    assert limits.refusal("Bearer k", "10.0.0.1", single_user=False) is None


def test_single_user_keyless_requests_are_gated_only_when_limited(tmp_path: Path) -> None:
    settings = Settings(
        data_dir=tmp_path, broker_url="memory://", tenant_rate_limit="1/minute", rate_limit_single_user=True
    )
    limits = RateLimits(settings)
    limits.hit_tenant(DEFAULT_TENANT_ID)
    with pytest.raises(RateLimited, match="over its request rate"):
        limits.hit_tenant(DEFAULT_TENANT_ID)
    assert limits.refusal(None, "127.0.0.1", single_user=True) is not None
    assert limits.refusal(None, "127.0.0.1", single_user=False) is None
