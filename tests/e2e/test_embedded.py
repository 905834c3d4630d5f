"""End to end on the embedded default: ``python -m app.embedded`` (SQLite WAL + kombu's
filesystem transport + a real worker process), over real HTTP."""

from __future__ import annotations

import httpx
import pytest

from tests.e2e import scenario

pytestmark = [pytest.mark.services, pytest.mark.slow]


def test_every_algorithm_end_to_end_embedded(embedded: str) -> None:
    with httpx.Client(base_url=embedded, timeout=30) as client:
        assert client.get("/healthz").json() == {"status": "ok"}
        assert client.get("/readyz").json() == {"database": "ok", "broker": "ok"}
        scenario.run_all(client, "embedded")
