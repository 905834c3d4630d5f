"""A connection checked out across ``engine.dispose()`` (a request thread still finishing as the app
shuts down) is closed when it comes back (app.db.session.make_engine), not left open in the pool
that dispose replaced until the garbage collector finds it: psycopg warns about such a connection,
and the suite turns that warning into a failure of whichever test happens to be running."""

from __future__ import annotations

import gc
import os
import weakref
from pathlib import Path

import pytest
from sqlalchemy import text

from app.db import session
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


def test_an_engine_dropped_without_dispose_closes_its_connections(url: str) -> None:
    """An app or runner dropped without closing it: its idle connections are closed as the engine is
    collected, not left for psycopg to warn about in whichever test the collector runs (a
    ResourceWarning failed test_chunked at random in a fresh clone's run), and the engine is not
    kept alive by what tracks them."""
    engine = make_engine(url)
    with engine.connect() as connection:
        connection.execute(text("SELECT 1"))
        raw = connection.connection.dbapi_connection
    collected = weakref.ref(engine)
    del engine, connection
    gc.collect()
    assert collected() is None
    assert _is_closed(raw)


def test_another_process_does_not_close_the_connections() -> None:
    """A forked child that drops an engine it inherited leaves its parent's connections open."""

    class Connection:
        closed = False

        def close(self) -> None:
            self.closed = True

    mine = Connection()
    session._close_if_owner({mine}, os.getpid() + 1)
    assert not mine.closed
    session._close_if_owner({mine}, os.getpid())
    assert mine.closed
