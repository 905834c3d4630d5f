"""A dataset's table in its store: written as chunked Parquet under a content-addressed key, read
back by whichever store its row names.

    Dataset.storage      Dataset.storage_key                        the table's bytes
    NULL                 NULL                                       Dataset.data (before issue 19)
    "local" / "s3"       datasets/<tenant id>/<sha256>-<id>.parquet that object

A key belongs to one dataset row: deleting a dataset removes only its own object, never one that a
re-upload of the same content wrote meanwhile (a key by content alone would be shared by the
two). An upload that loses the race for the row removes the object it wrote.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.errors import ServiceUnavailable
from app.settings import Settings
from app.storage import StorageError, open_store

if TYPE_CHECKING:  # the table code (pandas, pyarrow, torch) only where a table is placed
    from app.datasets.streaming import StagedTable
    from app.datasets.tables import Table

__all__ = ["Placement", "chunk_rows", "encode", "object_key", "place", "read_bytes", "remove"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Placement:
    """Where ``place`` put a table: ``data`` for the database row, or a store and key."""

    storage: str | None
    storage_key: str | None
    data: bytes | None
    size_bytes: int


def object_key(tenant_id: str, sha256: str, dataset_id: str) -> str:
    return f"datasets/{tenant_id}/{sha256}-{dataset_id}.parquet"


def chunk_rows(n_features: int, chunk_bytes: int) -> int:
    """Rows per Parquet row group so that one holds about ``chunk_bytes`` of float64 cells
    (features, target; the environment's dictionary-encoded name is small)."""
    return max(1024, chunk_bytes // (8 * (n_features + 1)))


def encode(table: Table, settings: Settings) -> bytes:
    return table.to_parquet(row_group_rows=chunk_rows(len(table.feature_names), settings.dataset_chunk_bytes))


def place(
    table: Table | StagedTable, tenant_id: str, dataset_id: str, settings: Settings | None
) -> Placement:
    """Write the table where new datasets go (``settings.dataset_store_kind``; no settings: the
    database row, as before stores existed). A staged upload's Parquet file is copied as it is,
    a part at a time, unless it goes into a row."""
    from app.datasets.streaming import StagedTable

    kind = settings.dataset_store_kind if settings is not None else "database"
    if settings is None or kind == "database":
        data = table.parquet_path.read_bytes() if isinstance(table, StagedTable) else table.to_parquet()
        return Placement(None, None, data, len(data))
    key = object_key(tenant_id, table.sha256(), dataset_id)
    try:
        if isinstance(table, StagedTable):
            size = table.parquet_path.stat().st_size
            open_store(settings, kind).put_file(key, table.parquet_path)
            return Placement(kind, key, None, size)
        data = encode(table, settings)
        open_store(settings, kind).put(key, data)
    except StorageError as exc:
        log.error("storing a dataset failed: %s", exc)
        raise ServiceUnavailable(
            "the dataset store could not take the table; retry shortly", headers={"Retry-After": "10"}
        ) from None
    return Placement(kind, key, None, len(data))


def read_bytes(settings: Settings, storage: str | None, key: str | None, data: bytes | None) -> bytes:
    """The stored Parquet bytes: the row's own (old datasets) or its object's."""
    if data is not None:
        return data
    if storage is None or key is None:
        raise StorageError("the dataset has neither stored bytes nor an object")
    return open_store(settings, storage).get(key)


def remove(settings: Settings, storage: str | None, key: str | None) -> None:
    """Delete a dataset's object, if it has one (after its row is gone)."""
    if storage is None or key is None:
        return
    try:
        open_store(settings, storage).delete(key)
    except StorageError as exc:  # the row is gone already: an orphan object, not an error for the caller
        log.warning("could not delete dataset object %s from the %s store: %s", key, storage, exc)
