"""Register a dataset by reference: Parquet files already in a bucket (``s3://bucket/prefix``).

Everything that can be wrong with a reference is found from metadata, before any row is read:

    the URL is not s3://bucket/...                 422 url
    no Parquet object under it                     422 url
    the store refuses the service's credentials    422 url   (the message names no credential)
    an object is not Parquet                       422 url
    a footer over MAX_FOOTER_BYTES                 422 url   (a million columns: 8 bytes read)
    the files' columns differ                      422 url
    too many columns, rows or cells                422 url   (max_features, max_rows, max_cells)
    no such environment, target or feature column  422 environment / target / features
    a target not numbers, true/false or text       422 target
    a feature not numbers, true/false or text      422 features
    the store does not answer                      503

Only then are the rows read, file by file in key order, into the canonical table, which is stored
like an uploaded one (same content id as uploading the same rows as one file): text columns are
one-hot encoded or left out with why as in an upload, and a listed text column that cannot be
encoded (too many values, a missing cell) is the one refusal found from the rows (422 file.<column>). The service reads
the bucket with its own S3 settings (endpoint, credentials); per-reference credentials are not
taken: they would have to be stored.
"""

from __future__ import annotations

import dataclasses
import io
import struct
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.parquet as pq
from pydantic import BaseModel, Field
from sqlalchemy.orm import Session

from app.datasets import service, tables
from app.db.models import Dataset
from app.errors import ServiceUnavailable, UnprocessableEntity
from app.settings import Settings
from app.storage import (
    AccessDenied,
    ObjectNotFound,
    ObjectStore,
    RangeFile,
    StorageError,
    StoreUnavailable,
    open_bucket,
)

__all__ = ["DatasetReference", "MAX_FOOTER_BYTES", "Plan", "check", "load", "register"]

MAX_FOOTER_BYTES = 64 * 1024 * 1024
MAX_FILES = 10_000


class DatasetReference(BaseModel):
    """Parquet files in a bucket to register as one dataset."""

    url: str = Field(
        description="s3://bucket/prefix: every object under the prefix ending in .parquet, in key order.",
        max_length=1024,
    )
    target: str = Field(max_length=255)
    environment: str = Field(max_length=255, description="The column naming each row's environment.")
    features: list[str] | None = Field(
        default=None,
        description="Default: every other column of numbers, true/false, or text of 2 to 32 values.",
    )
    name: str | None = Field(default=None, max_length=255)


@dataclass(frozen=True)
class Plan:
    """What the metadata said: the files (keys in key order), their schema and rows."""

    bucket: str
    keys: tuple[str, ...]
    schema: pa.Schema
    n_rows: int
    features: tuple[str, ...]
    left_out: tuple[tuple[str, str], ...] = ()  # columns of other types, each with why (no features list)


def _bad(field: str, message: str) -> UnprocessableEntity:
    return UnprocessableEntity.on(field, message)


def parse_url(url: str) -> tuple[str, str]:
    """(bucket, prefix) of an ``s3://bucket/prefix`` URL."""
    if not url.startswith("s3://"):
        raise _bad("url", "must be an s3://bucket/prefix URL")
    bucket, _, prefix = url.removeprefix("s3://").partition("/")
    if not bucket:
        raise _bad("url", "names no bucket")
    return bucket, prefix


def _footer(store: ObjectStore, key: str, where: str) -> pq.FileMetaData:
    size = store.size(key)
    tail = store.get_range(key, max(0, size - 8), 8)
    if size < 12 or tail[4:] != tables.PARQUET_MAGIC:
        raise _bad("url", f"{where} is not a Parquet file")
    (footer_len,) = struct.unpack("<I", tail[:4])
    if footer_len > MAX_FOOTER_BYTES:
        raise _bad(
            "url", f"{where} has a {footer_len}-byte footer (over {MAX_FOOTER_BYTES}): too many columns"
        )
    try:
        return pq.ParquetFile(RangeFile(store, key)).metadata
    except (pa.ArrowException, OSError) as exc:
        raise _bad("url", f"{where} is not a readable Parquet file: {exc}") from None


def _numeric(schema: pa.Schema, column: str) -> bool:
    """Numbers (decimals too), or true/false (read as 1 and 0)."""
    t = schema.field(column).type
    return bool(
        pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t) or pa.types.is_boolean(t)
    )


def _usable(schema: pa.Schema, column: str) -> bool:
    """A feature candidate: numeric, or text (plain or dictionary-encoded), which the table one-hot
    encodes or leaves out with why (app.datasets.encoding)."""
    t = schema.field(column).type
    if pa.types.is_dictionary(t):
        t = t.value_type
    return _numeric(schema, column) or bool(pa.types.is_string(t) or pa.types.is_large_string(t))


def _why_not(schema: pa.Schema, column: str) -> str:
    """Why a column that is not :func:`_usable` is left out."""
    t = schema.field(column).type
    if pa.types.is_null(t):
        return "has no value in any row"
    return tables.DATES if pa.types.is_temporal(t) else tables.OTHER


def check(store: ObjectStore, ref: DatasetReference, settings: Settings) -> Plan:
    """The reference's files and schema, from listings and footers only; 422/503 when wrong."""
    bucket, prefix = parse_url(ref.url)
    try:
        return _check(store, bucket, prefix, ref, settings)
    except ObjectNotFound:
        raise _bad("url", f"{ref.url}: no such bucket or object") from None
    except AccessDenied:
        raise _bad("url", f"{ref.url}: the store refused the service's credentials for it") from None
    except ValueError as exc:  # a key the store interface does not take
        raise _bad("url", str(exc)) from None
    except StoreUnavailable:
        raise ServiceUnavailable(
            "the object store did not answer; retry shortly", headers={"Retry-After": "10"}
        ) from None


def _check(store: ObjectStore, bucket: str, prefix: str, ref: DatasetReference, settings: Settings) -> Plan:
    keys = tuple(o.key for o in store.list(prefix) if o.key.endswith(".parquet"))
    if not keys:
        raise _bad("url", f"{ref.url}: no .parquet object under it")
    if len(keys) > MAX_FILES:
        raise _bad("url", f"{ref.url}: {len(keys)} files; a reference may have {MAX_FILES}")
    schema: pa.Schema | None = None
    n_rows = 0
    for key in keys:
        where = f"s3://{bucket}/{key}"
        meta = _footer(store, key, where)
        if meta.num_columns > 2 * settings.max_features + 2:
            raise _bad(
                "url", f"{where} has {meta.num_columns} columns; the limit is {2 * settings.max_features + 2}"
            )
        file_schema = meta.schema.to_arrow_schema().remove_metadata()
        if schema is None:
            schema = file_schema
        elif not file_schema.equals(schema):
            raise _bad("url", f"{where}'s columns differ from the first file's")
        n_rows += meta.num_rows
    assert schema is not None
    columns = schema.names
    if n_rows > settings.max_rows:
        raise _bad("url", f"{n_rows} rows; datasets are limited to {settings.max_rows} (max_rows)")
    if ref.environment not in columns:
        raise _bad("environment", f"environment column {ref.environment!r} not found; columns are {columns}")
    if ref.target not in columns:
        raise _bad("target", f"target column {ref.target!r} not found; columns are {columns}")
    if not _usable(schema, ref.target):
        raise _bad(
            "target",
            f"column {ref.target!r} must be numbers, true/false or two text values, not "
            f"{schema.field(ref.target).type}",
        )
    left_out: tuple[tuple[str, str], ...] = ()
    if ref.features is None:
        features = tuple(c for c in columns if c not in (ref.target, ref.environment) and _usable(schema, c))
        left_out = tuple(
            (c, _why_not(schema, c)) for c in columns if c not in (ref.target, ref.environment, *features)
        )
    else:
        missing = [c for c in ref.features if c not in columns]
        if missing:
            raise _bad("features", f"feature column(s) {missing} not found")
        other = [c for c in ref.features if not _usable(schema, c)]
        if other:
            raise _bad("features", f"feature column(s) {other} are not numbers, true/false or text")
        features = tuple(ref.features)
    if not features:
        raise _bad("features", "no feature columns found (numbers, true/false or text)")
    if n_rows * (len(features) + 2) > settings.max_cells:
        raise _bad(
            "url", f"{n_rows} rows x {len(features) + 2} columns; the limit is {settings.max_cells} cells"
        )
    return Plan(bucket, keys, schema, n_rows, features, left_out)


def load(store: ObjectStore, plan: Plan, ref: DatasetReference) -> tables.Table:
    """Read the planned files' rows (only the columns used) into the canonical table."""
    columns = [ref.environment, *plan.features, ref.target]
    try:
        parts = [pq.read_table(io.BytesIO(store.get(key)), columns=columns) for key in plan.keys]
    except StorageError:
        raise ServiceUnavailable("reading the referenced files failed; retry shortly") from None
    frame = pa.concat_tables(parts).to_pandas()
    # Without a features list the table decides, as for an upload: text columns one-hot or left out.
    table = tables.from_frame(
        frame,
        target=ref.target,
        environment=ref.environment,
        features=None if ref.features is None else list(plan.features),
    )
    order = plan.schema.names
    left_out = sorted((*plan.left_out, *table.ignored_columns), key=lambda left: order.index(left[0]))
    return dataclasses.replace(table, ignored_columns=tuple(left_out))


def register(
    session: Session, tenant_id: str, ref: DatasetReference, settings: Settings
) -> tuple[Dataset, bool, list[str]]:
    """Check the reference, read its rows and store the table (committed) like an upload: the
    dataset, whether it is new, and the upload's warnings."""
    bucket, _ = parse_url(ref.url)
    if not (settings.s3_endpoint_url or settings.s3_bucket):
        raise _bad(
            "url", "this service reads no S3 store (its operator sets SAL_S3_ENDPOINT_URL or SAL_S3_BUCKET)"
        )
    store = open_bucket(settings, bucket)
    plan = check(store, ref, settings)
    table = load(store, plan, ref)
    name = tables.check_text(ref.name or ref.url.rstrip("/").rsplit("/", 1)[-1], "name")
    dataset, created = service.store(session, tenant_id, table, name, settings=settings)
    return dataset, created, service.upload_warnings(table, dataset, name, created)
