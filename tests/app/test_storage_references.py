"""Datasets registered by reference (issue 19): Parquet files already in a bucket on a real S3 API
server (moto's, on loopback), checked from their footers before any row is read."""

from __future__ import annotations

import io
import struct
from collections.abc import Iterator
from typing import Any

import httpx
import numpy as np
import pandas as pd
import pytest

from app.datasets import references
from app.settings import Settings
from app.storage import ObjectStore, open_bucket
from tests.app import factories as f
from tests.app.s3server import S3Server

pytestmark = pytest.mark.services

USER_BUCKET = "user-data"


def _parquet(df: pd.DataFrame) -> bytes:
    sink = io.BytesIO()
    df.to_parquet(sink, index=False)
    return sink.getvalue()


@pytest.fixture(scope="module")
def user_bucket(s3_server: S3Server) -> Any:
    """The user's bucket, written with the S3 API directly (not through the service)."""
    client = s3_server.client(s3_server.access_key_id, s3_server.secret_access_key)
    client.create_bucket(Bucket=USER_BUCKET)
    # Files larger than the 64 KiB a Parquet reader fetches from the end for the footer.
    df = f.frame(seed=2100, n_per_env=8000)
    for i, env in enumerate(["a", "b", "c"]):  # one file per environment, in key order
        client.put_object(Bucket=USER_BUCKET, Key=f"multi/part-{i}.parquet", Body=_parquet(df[df.env == env]))
    client.put_object(Bucket=USER_BUCKET, Key="multi/_SUCCESS", Body=b"")  # not .parquet: ignored
    client.put_object(Bucket=USER_BUCKET, Key="noenv/p.parquet", Body=_parquet(df.drop(columns="env")))
    client.put_object(Bucket=USER_BUCKET, Key="mixed/0.parquet", Body=_parquet(df))
    client.put_object(Bucket=USER_BUCKET, Key="mixed/1.parquet", Body=_parquet(df.drop(columns="x3")))
    client.put_object(Bucket=USER_BUCKET, Key="text/p.parquet", Body=_parquet(df.assign(x2="word")))
    client.put_object(Bucket=USER_BUCKET, Key="csv/p.parquet", Body=f.csv_bytes(df))
    regions = df.assign(region=np.where(df.x1 > 0, "north", "south"), note="word")
    when = pd.date_range("2020-01-01", periods=len(regions), freq="h")
    client.put_object(Bucket=USER_BUCKET, Key="levels/p.parquet", Body=_parquet(regions.assign(when=when)))
    wide = pd.DataFrame({f"c{j}": [1.0] for j in range(40)}).assign(env="a", y=1.0)
    client.put_object(Bucket=USER_BUCKET, Key="wide/p.parquet", Body=_parquet(wide))
    # A footer that claims 200 MB (a million columns): refused from the last 8 bytes.
    huge = b"PAR1" + b"\0" * 16 + struct.pack("<I", 200 * 1024 * 1024) + b"PAR1"
    client.put_object(Bucket=USER_BUCKET, Key="huge/p.parquet", Body=huge)
    return df


def _client(settings: Settings, pg_app: Any) -> Iterator[httpx.Client]:
    from fastapi.testclient import TestClient

    from app.main import create_app

    app = create_app(settings, queue=f.RecordingQueue(settings, pg_app.state.engine))
    with TestClient(app) as c:
        yield c
    app.state.engine.dispose()


@pytest.fixture(scope="module")
def ref_settings(s3_server: S3Server, pg_settings: Settings) -> Settings:
    return pg_settings.model_copy(update={**s3_server.settings(prefix="refs/"), "max_features": 10})


@pytest.fixture(scope="module")
def ref_client(ref_settings: Settings, pg_app: Any) -> Iterator[httpx.Client]:
    yield from _client(ref_settings, pg_app)


def _register(client: httpx.Client, url: str, **fields: Any) -> httpx.Response:
    return client.post(
        "/datasets/references", json={"url": url, "target": "y", "environment": "env", **fields}
    )


def test_a_multi_file_dataset_registers_by_reference(
    ref_client: httpx.Client, user_bucket: pd.DataFrame
) -> None:
    response = _register(ref_client, f"s3://{USER_BUCKET}/multi/", name="by-ref")
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["n_rows"] == 24000 and [e["name"] for e in body["environments"]] == ["a", "b", "c"]
    assert body["feature_names"] == ["x1", "x2", "x3"]
    # The same rows uploaded as one file are the same content: the same dataset.
    again = f.upload_csv(ref_client, user_bucket, name="uploaded")
    assert again.status_code == 200 and again.json()["id"] == body["id"]
    assert _register(ref_client, f"s3://{USER_BUCKET}/multi/").status_code == 200


def test_a_referenced_text_column_is_one_hot_as_in_an_upload(
    ref_client: httpx.Client, user_bucket: pd.DataFrame
) -> None:
    response = _register(ref_client, f"s3://{USER_BUCKET}/levels/")
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["feature_names"] == ["x1", "x2", "x3", "region=south"]
    assert [w for w in body["warnings"] if "'note'" in w and "holds one value" in w] != []
    assert [w for w in body["warnings"] if "'when'" in w and "holds dates or times" in w] != []
    regions = user_bucket.assign(region=np.where(user_bucket.x1 > 0, "north", "south"), note="word")
    again = f.upload_csv(ref_client, regions, name="uploaded-regions")
    assert again.status_code == 200 and again.json()["id"] == body["id"]


class CountingStore:
    """The user's bucket, counting what is read: whole objects and ranged bytes."""

    def __init__(self, inner: ObjectStore) -> None:
        self.inner = inner
        self.kind = inner.kind
        self.whole_reads = 0
        self.range_bytes = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def get(self, key: str) -> bytes:
        self.whole_reads += 1
        return self.inner.get(key)

    def get_range(self, key: str, start: int, length: int) -> bytes:
        data = self.inner.get_range(key, start, length)
        self.range_bytes += len(data)
        return data


def test_a_reference_is_checked_from_footers_only(ref_settings: Settings, user_bucket: pd.DataFrame) -> None:
    store = CountingStore(open_bucket(ref_settings, USER_BUCKET))
    ref = references.DatasetReference(url=f"s3://{USER_BUCKET}/multi/", target="y", environment="env")
    plan = references.check(store, ref, ref_settings)  # type: ignore[arg-type]
    assert plan.keys == ("multi/part-0.parquet", "multi/part-1.parquet", "multi/part-2.parquet")
    assert plan.n_rows == 24000 and plan.features == ("x1", "x2", "x3")
    sizes = sum(store.inner.size(k) for k in plan.keys)
    assert store.whole_reads == 0 and 0 < store.range_bytes < sizes / 3


@pytest.mark.parametrize(
    ("url", "fields", "field", "says"),
    [
        ("https://example.com/x.parquet", {}, "url", "s3://"),
        (f"s3://{USER_BUCKET}/nothing-here/", {}, "url", "no .parquet object"),
        ("s3://no-such-bucket/x/", {}, "url", "no such bucket"),
        (f"s3://{USER_BUCKET}/noenv/", {}, "environment", "'env' not found"),
        (f"s3://{USER_BUCKET}/multi/", {"target": "nope"}, "target", "'nope' not found"),
        (f"s3://{USER_BUCKET}/mixed/", {}, "url", "columns differ"),
        (f"s3://{USER_BUCKET}/text/", {"features": ["x1", "x2"]}, "file.x2", "is text and holds one value"),
        (f"s3://{USER_BUCKET}/csv/", {}, "url", "not a Parquet file"),
        (f"s3://{USER_BUCKET}/wide/", {}, "url", "42 columns"),
        (f"s3://{USER_BUCKET}/huge/", {}, "url", "too many columns"),
    ],
)
def test_a_bad_reference_is_a_422_naming_the_field(
    ref_client: httpx.Client,
    user_bucket: pd.DataFrame,
    url: str,
    fields: dict[str, Any],
    field: str,
    says: str,
) -> None:
    body = f.assert_problem(_register(ref_client, url, **fields), 422, field)
    assert says in body["detail"]


def test_wrong_credentials_are_a_422_that_names_no_credential(
    s3_server: S3Server, pg_settings: Settings, pg_app: Any, user_bucket: pd.DataFrame
) -> None:
    secret = "not-the-secret-0123456789"
    settings = pg_settings.model_copy(update=s3_server.settings(prefix="refs/", secret=secret))
    for client in _client(settings, pg_app):
        response = _register(client, f"s3://{USER_BUCKET}/multi/")
        body = f.assert_problem(response, 422, "url")
        assert "refused" in body["detail"]
        assert secret not in response.text and s3_server.secret_access_key not in response.text


def test_a_service_without_s3_settings_refuses_references(stub_client: httpx.Client) -> None:
    body = f.assert_problem(_register(stub_client, f"s3://{USER_BUCKET}/multi/"), 422, "url")
    assert "SAL_S3_ENDPOINT_URL" in body["detail"]
