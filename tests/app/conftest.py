from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from app.settings import Settings
from tests.app.factories import RecordingQueue


@pytest.fixture
def stub_queue(pg_settings: Settings, pg_app) -> RecordingQueue:  # type: ignore[no-untyped-def]
    return RecordingQueue(pg_settings, pg_app.state.engine)


@pytest.fixture
def stub_client(pg_settings: Settings, stub_queue: RecordingQueue) -> Iterator[httpx.Client]:
    """The API on PostgreSQL with a queue that only records: jobs stay queued."""
    from fastapi.testclient import TestClient

    from app.main import create_app

    app = create_app(pg_settings, queue=stub_queue)
    with TestClient(app) as c:
        yield c
    app.state.engine.dispose()
