"""Move datasets whose table still sits in its database row (``Dataset.data``) into an object
store: ``python -m app.admin datasets migrate-storage``.

Per dataset, nothing is lost and the content id stays:

    1. decode the row's bytes, checked against the dataset's sha256 (a corrupt row is reported
       and left where it is);
    2. re-encode as chunked Parquet (``dataset_chunk_bytes``) and put it under the dataset's key;
    3. read the object back: its bytes must have the sha256 of what was written, and its content
       the dataset's sha256;
    4. only then, in one conditional UPDATE, point the row at the object and drop its bytes.

Running it again moves only what is left (a crash between 2 and 4 leaves an object that the next
run overwrites with the same bytes); two runs at once move each dataset once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session, undefer

from app.datasets import objects
from app.datasets.tables import CorruptDatasetError, Table
from app.db.models import Dataset
from app.settings import Settings
from app.storage import ObjectStore, StorageError, open_store

__all__ = ["MoveReport", "migrate_storage", "move_one", "verify_storage"]


class LostInTransit(StorageError):
    """The object read back is not what was written."""


@dataclass
class MoveReport:
    moved: list[str] = field(default_factory=list)
    bytes_moved: int = 0
    already: int = 0  # in a store before this run
    failed: dict[str, str] = field(default_factory=dict)  # dataset id -> why it stayed


def move_one(session: Session, settings: Settings, store: ObjectStore, dataset_id: str) -> int | None:
    """Move one dataset's table into ``store`` and commit; its object's size, or None when it was
    not in its row any more (moved by another run, or deleted)."""
    row = session.scalar(select(Dataset).options(undefer(Dataset.data)).where(Dataset.id == dataset_id))
    if row is None or row.storage is not None or row.data is None:
        return None
    sha = row.sha256
    table = Table.from_parquet(row.data, expected_sha256=sha)
    payload = objects.encode(table, settings)
    key = objects.object_key(row.tenant_id, sha, row.id)
    store.put(key, payload)
    back = store.get(key)
    if hashlib.sha256(back).hexdigest() != hashlib.sha256(payload).hexdigest():
        raise LostInTransit(f"the object {key} read back differs from what was written")
    Table.from_parquet(back, expected_sha256=sha)  # the content id, unchanged
    moved = session.execute(
        update(Dataset)
        .where(Dataset.id == dataset_id, Dataset.storage.is_(None))
        .values(storage=store.kind, storage_key=key, size_bytes=len(payload), data=None)
    ).rowcount  # type: ignore[attr-defined]
    session.commit()
    return len(payload) if moved else None


def migrate_storage(
    sessions: Callable[[], Session],
    settings: Settings,
    kind: str,
    *,
    dry_run: bool = False,
    say: Callable[[str], None] = print,
) -> MoveReport:
    """Move every dataset still in its row into the ``kind`` store ("local" or "s3")."""
    store = open_store(settings, kind)
    report = MoveReport()
    with sessions() as session:
        pending = list(
            session.scalars(select(Dataset.id).where(Dataset.storage.is_(None)).order_by(Dataset.id))
        )
        report.already = session.scalar(select(func.count()).where(Dataset.storage.is_not(None))) or 0
    for dataset_id in pending:
        if dry_run:
            say(f"would move {dataset_id}")
            continue
        try:
            with sessions() as session:
                size = move_one(session, settings, store, dataset_id)
        except (CorruptDatasetError, StorageError) as exc:
            report.failed[dataset_id] = str(exc)
            say(f"left {dataset_id} in the database: {exc}")
            continue
        if size is not None:
            report.moved.append(dataset_id)
            report.bytes_moved += size
            say(f"moved {dataset_id} ({size} bytes) to the {kind} store")
    return report


def verify_storage(
    sessions: Callable[[], Session],
    settings: Settings,
    *,
    content: bool = False,
    say: Callable[[str], None] = print,
) -> dict[str, str]:
    """Check that every dataset in a store has its object, of the recorded size (and, with
    ``content``, decoding to its sha256): {dataset id: what is wrong}."""
    with sessions() as session:
        rows = session.execute(
            select(Dataset.id, Dataset.storage, Dataset.storage_key, Dataset.size_bytes, Dataset.sha256)
            .where(Dataset.storage.is_not(None))
            .order_by(Dataset.id)
        ).all()
    problems: dict[str, str] = {}
    for dataset_id, storage, key, size_bytes, sha in rows:
        try:
            if storage is None or key is None:
                raise StorageError(f"the row names no object ({storage!r}, {key!r})")
            store = open_store(settings, storage)
            size = store.size(key)
            if size != size_bytes:
                raise StorageError(f"{key} has {size} bytes, the row says {size_bytes}")
            if content:
                Table.from_parquet(store.get(key), expected_sha256=sha)
        except (StorageError, CorruptDatasetError) as exc:
            problems[dataset_id] = str(exc)
            say(f"{dataset_id}: {exc}")
    say(f"checked {len(rows)} dataset(s) in object stores: {len(problems)} problem(s)")
    return problems
