"""The schema comes only from Alembic: upgrade from empty and downgrade back, on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, inspect, text

from app.db import migrate
from app.db.models import Base
from app.db.session import make_engine

TABLES = {"datasets", "jobs", "job_results"}


def _roundtrip(url: str) -> None:
    engine = make_engine(url)
    try:
        assert not TABLES & set(inspect(engine).get_table_names())
        migrate.upgrade(url)
        insp = inspect(engine)
        assert set(insp.get_table_names()) >= TABLES
        # The migration matches the ORM models, column for column.
        for table in Base.metadata.sorted_tables:
            assert {c["name"] for c in insp.get_columns(table.name)} == set(table.columns.keys())
        migrate.downgrade(url, "base")
        assert not TABLES & set(inspect(engine).get_table_names())
        migrate.upgrade(url)  # and up again
        assert set(inspect(engine).get_table_names()) >= TABLES
        migrate.downgrade(url, "base")
    finally:
        engine.dispose()


def test_sqlite_upgrade_and_downgrade(tmp_path: Path) -> None:
    _roundtrip(f"sqlite:///{tmp_path / 'm.db'}")


@pytest.fixture
def pg_scratch_schema(pg_engine: Engine, suite_lock: None) -> Iterator[str]:
    schema = "migration_check"
    with pg_engine.begin() as conn:
        conn.execute(text(f"DROP SCHEMA IF EXISTS {schema} CASCADE"))
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    url = pg_engine.url.update_query_dict({"options": f"-csearch_path={schema}"})
    yield url.render_as_string(hide_password=False)
    with pg_engine.begin() as conn:
        conn.execute(text(f"DROP SCHEMA IF EXISTS {schema} CASCADE"))


@pytest.mark.services
def test_postgresql_upgrade_and_downgrade(pg_scratch_schema: str) -> None:
    _roundtrip(pg_scratch_schema)
