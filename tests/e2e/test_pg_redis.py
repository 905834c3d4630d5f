"""End to end on PostgreSQL + Redis with a real Celery worker process."""

from __future__ import annotations

import httpx
import pytest

from tests.e2e import scenario

pytestmark = [pytest.mark.services, pytest.mark.slow]


def test_every_algorithm_end_to_end(client: httpx.Client, pg_worker: object) -> None:
    scenario.run_all(client, "pg")


def test_readyz(client: httpx.Client) -> None:
    assert client.get("/readyz").json() == {"database": "ok", "broker": "ok"}
