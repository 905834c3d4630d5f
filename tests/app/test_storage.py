"""Dataset tables in an object store (issue 19): the store interface on a local directory and on a
real S3 API server (moto's, on loopback, through the production boto3 client), and datasets that
go through the API into either store and back out through the worker's read path."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import pytest
from pydantic import SecretStr
from sqlalchemy import select

from app.datasets import objects, tables
from app.db.models import Dataset
from app.settings import Settings
from app.storage import AccessDenied, ObjectNotFound, ObjectStore, RangeFile, open_store
from app.storage.local import LocalStore
from tests.app import factories as f
from tests.app.s3server import S3Server

pytestmark = pytest.mark.services


@pytest.fixture(params=["local", "s3"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> ObjectStore:
    if request.param == "local":
        return LocalStore(tmp_path / "objects")
    server: S3Server = request.getfixturevalue("s3_server")
    settings = Settings(data_dir=tmp_path, **server.settings(prefix=f"t-{tmp_path.name}/"))
    return open_store(settings, "s3")


def test_a_store_puts_gets_ranges_lists_and_deletes(store: ObjectStore) -> None:
    store.put("a/one.bin", b"0123456789")
    store.put("a/two.bin", b"xy")
    store.put("b/three.bin", b"")
    assert store.get("a/one.bin") == b"0123456789"
    assert store.get_range("a/one.bin", 3, 4) == b"3456"
    assert store.get_range("a/one.bin", 8, 10) == b"89"  # fewer at the end
    assert store.size("a/one.bin") == 10
    assert store.exists("a/two.bin") and not store.exists("a/none.bin")
    assert [(o.key, o.size) for o in store.list("a/")] == [("a/one.bin", 10), ("a/two.bin", 2)]
    store.put("a/one.bin", b"new")  # a put replaces
    assert store.get("a/one.bin") == b"new"
    store.delete("a/one.bin")
    store.delete("a/one.bin")  # deleting what is gone is no error
    assert not store.exists("a/one.bin")
    for read in (lambda: store.get("a/one.bin"), lambda: store.size("a/one.bin")):
        with pytest.raises(ObjectNotFound, match="a/one.bin"):
            read()


def test_a_store_takes_a_file_by_parts_and_lists_below_a_prefix(store: ObjectStore, tmp_path: Path) -> None:
    source = tmp_path / "big.bin"
    data = np.random.default_rng(0).bytes(9 * 1024 * 1024 + 17)  # above boto3's 8 MiB multipart threshold
    source.write_bytes(data)
    store.put_file("files/big.bin", source)
    store.put("files/deeper/x.bin", b"x")
    store.put("filesystem.bin", b"y")  # shares the prefix's text, not its directory
    assert store.get("files/big.bin") == data
    assert store.get_range("files/big.bin", 9 * 1024 * 1024, 17) == data[-17:]
    assert [o.key for o in store.list("files/")] == ["files/big.bin", "files/deeper/x.bin"]
    assert [o.key for o in store.list("files/deeper/")] == ["files/deeper/x.bin"]
    assert [o.key for o in store.list("file")] == ["files/big.bin", "files/deeper/x.bin", "filesystem.bin"]


@pytest.mark.parametrize("key", ["", "/abs", "a/../b", "a//b", "a/./b", "sp ace"])
def test_a_key_outside_the_store_is_refused(tmp_path: Path, key: str) -> None:
    with pytest.raises(ValueError, match="invalid object key"):
        LocalStore(tmp_path).put(key, b"x")
    assert not any(tmp_path.iterdir())


def test_an_s3_key_outside_the_prefix_is_refused(store: ObjectStore) -> None:
    with pytest.raises(ValueError, match="invalid object key"):
        store.get("../other-prefix/secret.bin")


def test_a_parquet_footer_is_read_by_ranges(store: ObjectStore) -> None:
    table = tables.from_file(
        f.csv_bytes(f.frame(n_per_env=2000)), filename="d.csv", target="y", environment="env", features=None
    )
    data = table.to_parquet(row_group_rows=1024)
    store.put("t.parquet", data)
    handle = RangeFile(store, "t.parquet")
    meta = pq.ParquetFile(handle).metadata
    assert (meta.num_rows, meta.num_row_groups) == (6000, 6)
    # The footer, not the rows: a few small ranges, far fewer bytes than the object.
    assert 0 < handle.ranges_read <= 3
    assert handle.tell() <= len(data)


def test_wrong_credentials_are_refused_and_never_echoed(
    s3_server: S3Server, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    secret = "wrong-secret-0123456789"
    good = open_store(Settings(data_dir=tmp_path, **s3_server.settings(prefix="creds/")), "s3")
    good.put("x.bin", b"x")
    bad = open_store(Settings(data_dir=tmp_path, **s3_server.settings(prefix="creds/", secret=secret)), "s3")
    caplog.set_level(logging.DEBUG, logger="app")
    for call in (lambda: bad.get("x.bin"), lambda: bad.put("y.bin", b"y"), lambda: bad.size("x.bin")):
        with pytest.raises(AccessDenied) as info:
            call()
        assert secret not in str(info.value) and s3_server.secret_access_key not in str(info.value)
    assert secret not in caplog.text


def test_settings_never_show_the_secret(s3_server: S3Server, tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, **s3_server.settings())
    assert s3_server.secret_access_key not in repr(settings)
    assert s3_server.secret_access_key not in settings.model_dump_json()


# --- datasets through the API -------------------------------------------------------------------


@pytest.fixture(params=["local", "s3"])
def store_settings(request: pytest.FixtureRequest, pg_settings: Settings, tmp_path: Path) -> Settings:
    # An upload is parsed 64 KiB of its CSV at a time: 3000 rows of about 60 bytes are three chunks.
    update: dict[str, object] = {
        "dataset_chunk_bytes": 64 * 1024,
        "upload_chunk_bytes": 64 * 1024,
        "storage_dir": tmp_path / "objects",
    }
    if request.param == "local":
        update["dataset_store"] = "local"
    else:
        update |= request.getfixturevalue("s3_server").settings(prefix=f"api-{tmp_path.name}/")
    return pg_settings.model_copy(update=update)


@pytest.fixture
def store_client(store_settings: Settings, stub_queue: f.RecordingQueue) -> Iterator[object]:
    from fastapi.testclient import TestClient

    from app.main import create_app

    app = create_app(store_settings, queue=stub_queue)
    with TestClient(app) as c:
        yield c
    app.state.engine.dispose()


def test_a_dataset_round_trips_through_the_store(store_settings: Settings, store_client, pg_app) -> None:  # type: ignore[no-untyped-def]
    df = f.frame(seed=1900 + len(store_settings.dataset_store), n_per_env=1000)
    response = f.upload_csv(store_client, df, name="stored")
    assert response.status_code == 201, response.text
    dataset_id = response.json()["id"]
    with pg_app.state.engine.connect() as conn:
        row = conn.execute(
            select(
                Dataset.storage, Dataset.storage_key, Dataset.data, Dataset.sha256, Dataset.tenant_id
            ).where(Dataset.id == dataset_id)
        ).one()
    storage, key, data, sha, tenant = row
    assert (storage, key, data) == (
        store_settings.dataset_store,
        objects.object_key(tenant, sha, dataset_id),
        None,
    )
    store = open_store(store_settings, storage)
    stored = store.get(key)
    # bounded chunks: 64 KiB of the CSV each (upload_chunk_bytes)
    rows = 64 * 1024 // (len(f.csv_bytes(df)) / 3001)
    assert pq.ParquetFile(io.BytesIO(stored)).metadata.num_row_groups == -(-3000 // rows) > 1
    # What the worker reads (Runner._table): the object, checked against the content id.
    back = tables.Table.from_parquet(
        objects.read_bytes(store_settings, storage, key, data), expected_sha256=sha
    )
    assert back.n_rows == 3000 and back.sha256() == sha
    # The same content again is the same dataset and the same object.
    assert f.upload_csv(store_client, df, name="again").status_code == 200
    assert [o.key for o in store.list(f"datasets/{tenant}/")] == [key]
    assert store_client.delete(f"/datasets/{dataset_id}").status_code == 204
    assert not store.exists(key)


def test_a_job_runs_on_a_dataset_in_the_s3_store(
    s3_server: S3Server, stub_settings: Settings, pg_app, stub_queue
) -> None:  # type: ignore[no-untyped-def]
    from fastapi.testclient import TestClient

    from app.db.session import make_sessionmaker
    from app.main import create_app
    from worker.runner import Runner

    settings = stub_settings.model_copy(update=s3_server.settings(prefix="job/"))
    app = create_app(settings, queue=stub_queue)
    try:
        with TestClient(app) as client:
            dataset = f.upload_csv(client, f.frame(seed=1950), name="s3-job").json()
            job = client.post("/jobs", json=f.job_body(dataset["id"]))
            assert job.status_code == 202, job.text
            runner = Runner(make_sessionmaker(pg_app.state.engine), settings)
            # The worker's read path: the row has no bytes, only the object in the bucket.
            assert open_store(settings, "s3").list("datasets/")
            assert runner.run(job.json()["id"]) == "succeeded"
            assert client.get(f"/jobs/{job.json()['id']}").json()["status"] == "succeeded"
    finally:
        app.state.engine.dispose()


def test_erasing_a_tenant_deletes_its_objects(pg_settings: Settings, tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from app.main import create_app
    from tests.conftest import bearer, make_api_key

    settings = pg_settings.model_copy(
        update={"auth": "keys", "dataset_store": "local", "storage_dir": tmp_path / "objects"}
    )
    app = create_app(settings)
    try:
        with TestClient(app) as client:
            tenant = f"erase-{tmp_path.name}"
            client.headers.update(bearer(make_api_key(app.state.engine, tenant)))
            assert f.upload_csv(client, f.frame(seed=2200), name="mine").status_code == 201
            store = open_store(settings, "local")
            assert len(store.list("datasets/")) == 1
            operator = bearer(make_api_key(app.state.engine, "admin"))
            assert client.delete(f"/admin/tenants/{tenant}", headers=operator).status_code == 200
            assert store.list("datasets/") == []
    finally:
        app.state.engine.dispose()


def test_an_upload_that_loses_the_race_removes_its_object(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.datasets import service
    from app.db import migrate
    from app.db import repository as repo
    from app.db.models import DEFAULT_TENANT_ID
    from app.db.session import make_engine, make_sessionmaker

    url = f"sqlite:///{tmp_path / 'race.db'}"
    migrate.upgrade(url)
    settings = Settings(data_dir=tmp_path, database_url=url, dataset_store="local")
    engine = make_engine(url)
    table = tables.from_file(
        f.csv_bytes(f.frame(seed=2300)), filename="d.csv", target="y", environment="env", features=None
    )
    try:
        with make_sessionmaker(engine)() as session:
            first, created = service.store(session, DEFAULT_TENANT_ID, table, "first", settings=settings)
            assert created
            # The second upload looked before the first committed: it saw no row, wrote its own
            # object, and then lost the insert.
            lookup = repo.get_dataset_by_sha256
            looked: list[str] = []

            def racing(*args: Any, **kwargs: Any) -> Any:
                looked.append("x")
                return None if len(looked) == 1 else lookup(*args, **kwargs)

            monkeypatch.setattr(repo, "get_dataset_by_sha256", racing)
            second, created = service.store(session, DEFAULT_TENANT_ID, table, "second", settings=settings)
            assert not created and second.id == first.id
            assert len(looked) == 2  # the race was run: a lookup before the insert and after it
        assert [o.key for o in open_store(settings, "local").list("datasets/")] == [first.storage_key]
    finally:
        engine.dispose()


def test_an_unreachable_store_is_a_503_and_stores_nothing(pg_settings: Settings, pg_app, stub_queue) -> None:  # type: ignore[no-untyped-def]
    from fastapi.testclient import TestClient

    from app.main import create_app
    from tests.conftest import free_port

    settings = pg_settings.model_copy(
        update={
            "dataset_store": "s3",
            "s3_endpoint_url": f"http://127.0.0.1:{free_port()}",  # nothing listens there
            "s3_bucket": "gone",
            "s3_access_key_id": SecretStr("some-key"),
            "s3_secret_access_key": SecretStr("some-secret"),
        }
    )
    app = create_app(settings, queue=stub_queue)
    df = f.frame(seed=2500)
    try:
        with TestClient(app) as client:
            response = f.upload_csv(client, df, name="nowhere")
            f.assert_problem(response, 503)
            assert response.headers["Retry-After"]
            reference = client.post(
                "/datasets/references", json={"url": "s3://gone/x/", "target": "y", "environment": "env"}
            )
            f.assert_problem(reference, 503)
        table = tables.from_file(
            f.csv_bytes(df), filename="d.csv", target="y", environment="env", features=None
        )
        with pg_app.state.engine.connect() as conn:
            assert conn.execute(select(Dataset.id).where(Dataset.sha256 == table.sha256())).first() is None
    finally:
        app.state.engine.dispose()
