from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from app.settings import Settings
from tests.app.factories import RecordingQueue
from tests.app.s3server import S3Server


@pytest.fixture
def stub_queue(stub_settings: Settings, pg_app) -> RecordingQueue:  # type: ignore[no-untyped-def]
    return RecordingQueue(stub_settings, pg_app.state.engine)


@pytest.fixture
def stub_client(stub_settings: Settings, stub_queue: RecordingQueue) -> Iterator[httpx.Client]:
    """The API on PostgreSQL with a queue that only records: jobs stay queued."""
    from fastapi.testclient import TestClient

    from app.main import create_app

    app = create_app(stub_settings, queue=stub_queue)
    with TestClient(app) as c:
        yield c
    app.state.engine.dispose()


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3Server]:
    """moto's S3 API server on a free loopback port (tests/app/s3server.py), stopped by its pid."""
    server = S3Server(tmp_path_factory.mktemp("s3") / "moto.log")
    yield server
    server.stop()
