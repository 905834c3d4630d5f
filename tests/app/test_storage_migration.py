"""Datasets stored in database rows move into an object store (issue 19): `python -m app.admin
datasets migrate-storage`, with content ids unchanged, nothing lost, and idempotent. Each test has
its own SQLite database: a migration of the shared PostgreSQL test database would move other
tests' datasets."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from app.datasets import objects, relocate, service, tables
from app.db import migrate
from app.db.models import DEFAULT_TENANT_ID, Dataset
from app.db.session import make_engine, make_sessionmaker
from app.settings import Settings
from app.storage import open_store
from tests.app import factories as f
from tests.app.s3server import S3Server
from tests.conftest import ROOT


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'sal.db'}"
    migrate.upgrade(url)
    return url


@pytest.fixture
def sessions(db_url: str) -> Iterator[sessionmaker[Session]]:
    engine = make_engine(db_url)
    yield make_sessionmaker(engine)
    engine.dispose()


def _table(seed: int) -> tables.Table:
    return tables.from_file(
        f.csv_bytes(f.frame(seed=seed, n_per_env=400)),
        filename="d.csv",
        target="y",
        environment="env",
        features=None,
    )


def _blob_datasets(sessions: sessionmaker[Session], seeds: list[int]) -> dict[str, str]:
    """Datasets as every one was stored before issue 19 (bytes in the row): {id: sha256}."""
    out = {}
    with sessions() as session:
        for seed in seeds:
            dataset, created = service.store(session, DEFAULT_TENANT_ID, _table(seed), f"d{seed}")
            assert created and dataset.data is not None and dataset.storage is None
            out[dataset.id] = dataset.sha256
    return out


@pytest.fixture(params=["local", "s3"])
def store_settings(request: pytest.FixtureRequest, db_url: str, tmp_path: Path) -> Settings:
    if request.param == "local":
        return Settings(data_dir=tmp_path, database_url=db_url, dataset_store="local")
    server: S3Server = request.getfixturevalue("s3_server")
    return Settings(data_dir=tmp_path, database_url=db_url, **server.settings(prefix=f"mig-{tmp_path.name}/"))


def test_blob_datasets_move_with_content_ids_unchanged(
    sessions: sessionmaker[Session], store_settings: Settings
) -> None:
    kind = store_settings.dataset_store
    moved = _blob_datasets(sessions, [1, 2])
    corrupt = next(iter(_blob_datasets(sessions, [3])))
    with sessions() as session:  # a row whose bytes no longer have its content id
        session.execute(update(Dataset).where(Dataset.id == corrupt).values(data=_table(4).to_parquet()))
        session.commit()

    said: list[str] = []
    report = relocate.migrate_storage(sessions, store_settings, kind, say=said.append)
    assert sorted(report.moved) == sorted(moved) and report.already == 0
    assert list(report.failed) == [corrupt] and "corrupt" in report.failed[corrupt]
    assert len(said) == 3

    store = open_store(store_settings, kind)
    with sessions() as session:
        for dataset_id, sha in moved.items():
            row = session.scalar(select(Dataset).where(Dataset.id == dataset_id))
            assert row is not None
            assert (row.sha256, row.storage, row.data) == (sha, kind, None)
            assert row.storage_key == objects.object_key(DEFAULT_TENANT_ID, sha, dataset_id)
            assert row.size_bytes == store.size(row.storage_key)
            data = objects.read_bytes(store_settings, row.storage, row.storage_key, row.data)
            assert tables.Table.from_parquet(data, expected_sha256=sha).n_rows == 1200
        left = session.scalar(select(Dataset).where(Dataset.id == corrupt))
        assert left is not None and left.storage is None and left.data is not None

    again = relocate.migrate_storage(sessions, store_settings, kind, say=said.append)
    assert (again.moved, again.already, list(again.failed)) == ([], 2, [corrupt])


def test_a_dry_run_moves_nothing(sessions: sessionmaker[Session], tmp_path: Path, db_url: str) -> None:
    ids = _blob_datasets(sessions, [5])
    settings = Settings(data_dir=tmp_path, database_url=db_url, dataset_store="local")
    report = relocate.migrate_storage(sessions, settings, "local", dry_run=True, say=lambda _: None)
    assert report.moved == []
    with sessions() as session:
        assert session.scalar(select(Dataset.storage).where(Dataset.id.in_(ids))) is None
    assert not (tmp_path / "objects").exists()


def test_the_admin_command_moves_then_has_nothing_left(
    sessions: sessionmaker[Session], tmp_path: Path, db_url: str
) -> None:
    (dataset_id,) = _blob_datasets(sessions, [6])
    env = {k: v for k, v in os.environ.items() if not k.startswith("SAL_")}
    env |= {"SAL_DATA_DIR": str(tmp_path), "SAL_DATABASE_URL": db_url}
    command = [sys.executable, "-m", "app.admin", "datasets", "migrate-storage"]

    def run(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*command, *extra], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120
        )

    first = run("--to", "local")
    assert first.returncode == 0, first.stderr
    assert "moved 1 dataset(s)" in first.stdout and dataset_id in first.stdout
    second = run()  # SQLite: the local store is the default
    assert second.returncode == 0, second.stderr
    assert "moved 0 dataset(s)" in second.stdout and "1 were in a store already" in second.stdout
    with sessions() as session:
        assert session.scalar(select(Dataset.storage).where(Dataset.id == dataset_id)) == "local"
    (stored,) = (tmp_path / "objects" / "datasets" / DEFAULT_TENANT_ID).iterdir()
    verified = subprocess.run(
        [sys.executable, "-m", "app.admin", "datasets", "verify", "--content"],
        env=env, cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert verified.returncode == 0 and "1 dataset(s) in object stores: 0 problem(s)" in verified.stdout
    stored.unlink()
    lost = subprocess.run(
        [sys.executable, "-m", "app.admin", "datasets", "verify"],
        env=env, cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert lost.returncode == 1 and dataset_id in lost.stdout and "no object" in lost.stdout


def test_verify_finds_a_changed_object(sessions: sessionmaker[Session], tmp_path: Path, db_url: str) -> None:
    settings = Settings(data_dir=tmp_path, database_url=db_url, dataset_store="local")
    ids = _blob_datasets(sessions, [7, 8])
    relocate.migrate_storage(sessions, settings, "local", say=lambda _: None)
    assert relocate.verify_storage(sessions, settings, content=True, say=lambda _: None) == {}
    with sessions() as session:
        first, second = (session.scalar(select(Dataset).where(Dataset.id == i)) for i in sorted(ids))
        assert first is not None and second is not None and second.storage_key is not None
        # Another table's bytes under the first's key: the same size check may pass, the content not.
        store = open_store(settings, "local")
        store.put(first.storage_key or "", store.get(second.storage_key))
    problems = relocate.verify_storage(sessions, settings, content=True, say=lambda _: None)
    assert list(problems) == [first.id]
