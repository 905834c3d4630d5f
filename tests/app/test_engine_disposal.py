"""A connection checked out across ``engine.dispose()`` (a request thread still finishing as the app
shuts down) is closed when it comes back (app.db.session.make_engine), not left open in the pool
that dispose replaced until the garbage collector finds it: psycopg warns about such a connection,
and the suite turns that warning into a failure of whichever test happens to be running."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text

from app.db.session import make_engine


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.services)])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'disposal.db'}"
    return str(request.getfixturevalue("pg_url"))


def _is_closed(dbapi_connection: object) -> bool:
    closed = getattr(dbapi_connection, "closed", None)  # psycopg
    if closed is not None:
        return bool(closed)
    try:  # sqlite3 has no flag: a closed connection refuses work
        dbapi_connection.execute("SELECT 1")  # type: ignore[attr-defined]
    except Exception:
        return True
    return False


def test_a_connection_returned_after_dispose_is_closed(url: str) -> None:
    engine = make_engine(url)
    late = engine.connect()
    late.execute(text("SELECT 1"))
    raw = late.connection.dbapi_connection
    engine.dispose()
    late.close()
    assert _is_closed(raw)
    engine.dispose()


def test_connections_returned_before_dispose_stay_pooled(url: str) -> None:
    engine = make_engine(url)
    try:
        with engine.connect() as first:
            first.execute(text("SELECT 1"))
            raw = first.connection.dbapi_connection
        assert not _is_closed(raw)
        with engine.connect() as again:  # the same connection, reused
            assert again.connection.dbapi_connection is raw
        engine.dispose()
        with engine.connect() as fresh:  # after dispose a new one opens, and is pooled in turn
            fresh.execute(text("SELECT 1"))
            renewed = fresh.connection.dbapi_connection
        assert renewed is not raw and not _is_closed(renewed)
    finally:
        engine.dispose()
