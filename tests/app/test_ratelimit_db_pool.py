"""Each process's PostgreSQL pool is bounded by settings (app.db.session.engine_for), so
processes x (db_pool_size + db_max_overflow) bounds what the server sees: a request that finds its
process's connections all in use waits db_pool_timeout_s, then gets a 503, never a new connection."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from app.db.session import engine_for, make_engine
from app.main import create_app
from app.settings import Settings
from tests.app import factories as f

pytestmark = pytest.mark.services

BOUNDED = {"db_pool_size": 2, "db_max_overflow": 1, "db_pool_timeout_s": 0.2}


def _backends(engine_url: str, application: str) -> int:
    probe = make_engine(engine_url, isolation_level="AUTOCOMMIT")
    with probe.connect() as conn:
        count = conn.execute(
            text("SELECT count(*) FROM pg_stat_activity WHERE application_name = :name"),
            {"name": application},
        ).scalar_one()
    probe.dispose()
    return int(count)


def test_a_process_opens_no_more_than_its_pool_and_overflow(pg_settings: Settings) -> None:
    application = "sal-pool-bound-test"
    url = pg_settings.database_url + ("&" if "?" in pg_settings.database_url else "?")
    settings = pg_settings.model_copy(
        update={**BOUNDED, "database_url": f"{url}application_name={application}"}
    )
    engine = engine_for(settings)
    held = [engine.connect() for _ in range(3)]
    try:
        with pytest.raises(Exception, match="QueuePool limit of size 2 overflow 1 reached"):
            engine.connect()
        assert _backends(pg_settings.database_url, application) == 3
    finally:
        for conn in held:
            conn.close()
        engine.dispose()


def test_a_request_that_finds_no_free_connection_gets_a_503(pg_settings: Settings) -> None:
    app = create_app(pg_settings.model_copy(update={**BOUNDED, "auth": "single-user"}))
    held = [app.state.engine.connect() for _ in range(3)]
    try:
        with TestClient(app) as c:
            response = c.get("/datasets")
            f.assert_problem(response, 503)
            assert response.headers["retry-after"] == "1"
    finally:
        for conn in held:
            conn.close()
        app.state.engine.dispose()
