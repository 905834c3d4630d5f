"""Engines and sessions. SQLite gets WAL, a busy timeout and foreign keys on every connection."""

from __future__ import annotations

import contextlib
import os
import weakref
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

from app.settings import Settings

__all__ = ["engine_for", "make_engine", "make_sessionmaker"]


def engine_for(settings: Settings) -> Engine:
    """The process's engine: ``settings.database_url`` with the per-process pool bound of
    ``db_pool_size``, ``db_max_overflow`` and ``db_pool_timeout_s`` (PostgreSQL; SQLite has no
    server to run out of connections)."""
    if settings.is_sqlite:
        return make_engine(settings.database_url)
    return make_engine(
        settings.database_url,
        pool_size=settings.db_pool_size,
        max_overflow=settings.db_max_overflow,
        pool_timeout=settings.db_pool_timeout_s,
    )


def make_engine(url: str, **kwargs: Any) -> Engine:
    return _closing_idle_when_collected(_closing_late_returns(_create(url, **kwargs)))


def _create(url: str, **kwargs: Any) -> Engine:
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30}, **kwargs)

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA busy_timeout=30000")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.close()

        return engine
    # Sync routes run on a 40-thread pool. SQLAlchemy's default (5 kept, 10 more) made every request
    # beyond the fifth concurrent one open and close a PostgreSQL connection of its own. 20 kept and
    # 20 more took the server from 33 to 53 connections under one tenant's flood (issue 24), two API
    # processes of 40 against a server of 100: the bound is a setting now (engine_for), whose
    # defaults apply here too. Connections open lazily, so an idle process (or a worker) holds few.
    if "poolclass" not in kwargs:
        kwargs.setdefault("pool_size", Settings.model_fields["db_pool_size"].default)
        kwargs.setdefault("max_overflow", Settings.model_fields["db_max_overflow"].default)
    return create_engine(url, pool_pre_ping=True, **kwargs)


def _closing_late_returns(engine: Engine) -> Engine:
    """``engine``, closing each connection that comes back after a ``dispose()`` it was checked out
    across (a request thread still finishing when the app shuts down, say). SQLAlchemy returns such a
    connection to the pool that dispose replaced, where it stays open until the garbage collector
    finds that pool, and psycopg then warns that an open connection was deleted. Each connection is
    stamped with the engine's generation and the process when it opens; a connection of an older
    generation is invalidated (closed) as it returns, unless another process opened it (a forked
    child must not close its parent's connection)."""
    generation = [0]

    @event.listens_for(engine, "connect")
    def _stamp(_dbapi_connection: Any, record: Any) -> None:
        record.info["engine_generation"] = (os.getpid(), generation[0])

    @event.listens_for(engine, "engine_disposed")
    def _next_generation(_engine: Engine) -> None:
        generation[0] += 1

    @event.listens_for(engine, "checkin")
    def _close_if_disposed(dbapi_connection: Any, record: Any) -> None:
        pid, opened_in = record.info.get("engine_generation", (None, None))
        if dbapi_connection is not None and pid == os.getpid() and opened_in != generation[0]:
            record.invalidate()

    return engine


def _closing_idle_when_collected(engine: Engine) -> Engine:
    """``engine``, whose open connections are closed when the engine itself is garbage-collected
    without a ``dispose()`` (an app or runner dropped without being closed). Otherwise its pool goes
    with it, the idle connections still open, and psycopg warns for each, in whichever code the
    collector happens to run. The connections are tracked as they open and close (the pool refers
    back to the engine, so holding the pool would keep the engine alive). Only the process that
    opened them closes them: a forked child that drops an inherited engine must not close its
    parent's connections."""
    live: set[Any] = set()
    owner = os.getpid()

    @event.listens_for(engine, "connect")
    def _opened(dbapi_connection: Any, _record: Any) -> None:
        live.add(dbapi_connection)

    @event.listens_for(engine, "close")
    def _closed(dbapi_connection: Any, _record: Any) -> None:
        live.discard(dbapi_connection)

    @event.listens_for(engine, "close_detached")
    def _closed_detached(dbapi_connection: Any) -> None:
        live.discard(dbapi_connection)

    finalizer = weakref.finalize(engine, _close_if_owner, live, owner)
    finalizer.atexit = False  # at exit the process's sockets close with it
    return engine


def _close_if_owner(live: set[Any], owner: int) -> None:
    if os.getpid() != owner:
        return
    for dbapi_connection in list(live):
        with contextlib.suppress(Exception):  # a connection the server already dropped
            dbapi_connection.close()
    live.clear()


def make_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(bind=engine, expire_on_commit=False)
