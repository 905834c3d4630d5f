"""Datasets below the routes: store a table content-addressed under its tenant."""

from __future__ import annotations

import uuid

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.datasets import encoding, objects, tables
from app.datasets.streaming import StagedTable
from app.db import erase
from app.db import repository as repo
from app.db.models import Dataset
from app.errors import Conflict, NotFound
from app.settings import Settings


def store(
    session: Session,
    tenant_id: str,
    table: tables.Table | StagedTable,
    name: str,
    *,
    settings: Settings | None = None,
) -> tuple[Dataset, bool]:
    """The tenant's dataset with this table's content (parsed in memory, or a streamed upload
    staged on disk), stored (and committed) unless it already was; True when it is new. Its table
    goes where ``settings`` put new datasets (none: the row)."""
    sha = table.sha256()
    existing = repo.get_dataset_by_sha256(session, sha, tenant_id=tenant_id)
    if existing is not None:
        return existing, False
    dataset_id = str(uuid.uuid4())
    placed = objects.place(table, tenant_id, dataset_id, settings)
    dataset = Dataset(
        id=dataset_id,
        tenant_id=tenant_id,
        name=name,
        sha256=sha,
        n_rows=table.n_rows,
        feature_names=list(table.feature_names),
        target=table.target,
        environments=table.summary(),
        size_bytes=placed.size_bytes,
        data=placed.data,
        storage=placed.storage,
        storage_key=placed.storage_key,
        encoding=encoding_of(table),
    )
    try:
        repo.add_dataset(session, dataset)
        session.commit()
    except IntegrityError:
        # The same content was stored concurrently: return that one (and drop our object).
        session.rollback()
        if settings is not None:
            objects.remove(settings, placed.storage, placed.storage_key)
        existing = repo.get_dataset_by_sha256(session, sha, tenant_id=tenant_id)
        if existing is None:
            raise
        return existing, False
    return dataset, True


def encoding_of(table: tables.Table | StagedTable) -> dict[str, object] | None:
    """What the dataset row records of the upload's encoding (``Dataset.encoding``); None: none."""
    out: dict[str, object] = {}
    if table.encoded:
        out["features"] = {e.column: list(e.levels) for e in table.encoded}
    missing: dict[str, float | None] = {e.column: None for e in table.encoded if e.missing}
    missing.update({f.column: f.fill for f in table.filled})
    if missing:
        out["missing"] = missing
    if table.target_levels:
        out["target"] = list(table.target_levels)
    return out or None


def upload_warnings(
    table: tables.Table | StagedTable, dataset: Dataset, name: str, created: bool
) -> list[str]:
    """What an upload decided without being asked: text columns left out of the features (each with
    why), missing cells filled or marked, rows left out for a missing target, and a name not used
    because the same content was already stored under another."""
    out = [
        f"column {c!r} {why}, so it is not a feature; list the features to silence this"
        for c, why in table.ignored_columns
    ]
    out += [
        f"column {c!r} mixes numbers and words{word}, so it is encoded as text (a feature for each "
        "value but the first); to use it as numbers, leave such cells empty"
        for c, word in table.mixed_columns
    ]
    out += [
        f"column {f.column!r} is missing in {f.missing} row(s): they hold its mean ({f.fill:.6g}) and "
        f"the feature {encoding.missing_name(f.column)!r} marks them (to fit on complete rows only, "
        "upload the table without those rows)"
        for f in table.filled
    ]
    out += [
        f"column {e.column!r} has missing cells: the feature {encoding.missing_name(e.column)!r} marks them"
        for e in table.encoded
        if e.missing
    ]
    if table.rows_without_target:
        out.append(
            f"the target {table.target!r} is missing in {table.rows_without_target} row(s); they are left out"
        )
    if table.rows_without_environment:
        out.append(
            f"the environment is missing in {table.rows_without_environment} more row(s); they are left out"
        )
    if table.target_levels:
        zero, one = table.target_levels
        if tables.numeric_label_levels(table.target_levels):
            out.append(
                f"the target {table.target!r} holds two whole numbers, a label: {zero} is read as 0 and {one} "
                "as 1, so a job classifies unless its task says 'regression'"
            )
        else:
            out.append(f"the target {table.target!r} is text: {zero!r} is read as 0 and {one!r} as 1")
    if not created and name != dataset.name:
        out.append(f"this content is already stored as {dataset.name!r}; the name {name!r} was not used")
    return out


def delete(
    session: Session,
    dataset_id: str,
    tenant_id: str,
    *,
    cascade: bool = False,
    settings: Settings | None = None,
) -> None:
    """Delete the tenant's dataset and commit. 409 while jobs are queued or running on it; 409
    naming the jobs on it unless ``cascade`` (which deletes them, their results and sweeps)."""
    dataset = repo.get_dataset(session, dataset_id, tenant_id=tenant_id)
    if dataset is None:
        raise NotFound(f"no dataset {dataset_id}")
    where = (dataset.storage, dataset.storage_key)
    active = repo.active_jobs_using(session, dataset_id)
    if active:
        raise Conflict(f"{active} queued or running job(s) use this dataset; cancel them first")
    ids, count = repo.jobs_using(session, dataset_id)
    if count and not cascade:
        more = f" and {count - len(ids)} more" if count > len(ids) else ""
        raise Conflict(
            f"{count} job(s) use this dataset ({', '.join(ids)}{more}); delete them first, or "
            "delete with ?cascade=true to delete them with it"
        )
    erase.forget_dataset(session, tenant_id, dataset_id, with_jobs=cascade)
    repo.delete_dataset(session, dataset_id, with_jobs=cascade)
    session.commit()
    if settings is not None:  # the object after the row: a failure here leaves garbage, not a dangling row
        objects.remove(settings, *where)
