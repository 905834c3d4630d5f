"""Fixtures of the fault tests: private PostgreSQL and Redis (see servers.py) and short leases."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from app.db.session import make_engine
from app.settings import Settings
from tests.faults.servers import PG_BIN, PrivatePostgres, PrivateRedis


@pytest.fixture(scope="session")
def private_pg() -> Iterator[PrivatePostgres]:
    if PG_BIN is None or shutil.which("redis-server") is None:  # pragma: no cover
        pytest.fail("the fault tests need PostgreSQL's initdb/pg_ctl and redis-server installed")
    root = Path(tempfile.mkdtemp(prefix="sal-faults-pg-"))
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
    pg = PrivatePostgres(root)
    pg.start()
    try:
        yield pg
    finally:
        pg.stop()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    server = PrivateRedis(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def fault_settings(
    private_pg: PrivatePostgres, private_redis: PrivateRedis, tmp_path: Path, request: pytest.FixtureRequest
) -> Settings:
    """The service's default recovery settings (lease, heartbeat, reaper, re-send): the budgets
    these tests check are the defaults' budgets. Two attempts, so a job can be lost twice."""
    database = "faults_" + request.node.name.lower().replace("[", "_").replace("]", "")[:40]
    return Settings(
        data_dir=tmp_path,
        database_url=private_pg.new_database(database),
        broker_url=private_redis.url,
        max_attempts=2,
        progress_min_interval_s=0.2,
    )


@pytest.fixture
def fault_engine(fault_settings: Settings) -> Iterator[Engine]:
    engine = make_engine(fault_settings.database_url)
    yield engine
    engine.dispose()
