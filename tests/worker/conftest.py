"""The worker's job runner on the suite's PostgreSQL database."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.settings import Settings
from worker.runner import Runner


@pytest.fixture
def runner(pg_settings: Settings) -> Iterator[Runner]:
    r = Runner.from_settings(pg_settings)
    yield r
    r.close()
