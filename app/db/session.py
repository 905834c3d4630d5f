"""Engines and sessions. SQLite gets WAL, a busy timeout and foreign keys on every connection."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker


def make_engine(url: str, **kwargs: Any) -> Engine:
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
    # beyond the fifth concurrent one open and close a PostgreSQL connection of its own; keep up to
    # 20 and allow 20 more. Connections open lazily, so an idle process (or a worker) holds few.
    if "poolclass" not in kwargs:
        kwargs.setdefault("pool_size", 20)
        kwargs.setdefault("max_overflow", 20)
    return create_engine(url, pool_pre_ping=True, **kwargs)


def make_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(bind=engine, expire_on_commit=False)
