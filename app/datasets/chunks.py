"""A stored dataset read chunk by chunk: one Parquet row group in memory at a time, fetched by
byte ranges from its store, for passes whose partial results add up (issue 19's out-of-core path).

The exact linear path needs only sums per (environment, fold) (:func:`sal_core.cross_fit.fold_sums`),
and a row's fold is a hash of its own content (:func:`sal_core.cross_fit.folds_of`), so chunks read
on different workers agree on the folds and their sums add up to the whole table's.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import torch
from numpy.typing import NDArray

from app.datasets.tables import ENV_COLUMN
from app.storage import ObjectStore, RangeFile
from sal_core.cross_fit import FoldSums, fold_sums
from sal_core.minibatches import ChunkRows

__all__ = ["add_sums", "chunk_fold_sums", "decode_group", "iter_chunks", "n_chunks", "open_table"]

FOOTERS_KEPT = 2  # parsed footers a process keeps: ~25 MB each at 2,515 row groups, ~110 MB at 5,000
_footers: OrderedDict[tuple[str, str, int], pq.FileMetaData] = OrderedDict()
_footers_lock = threading.Lock()


def open_table(store: ObjectStore, key: str) -> pq.ParquetFile:
    """The stored table as a Parquet file read by byte ranges, its footer parsed once per process.

    A footer grows with the row groups: at 2,515 groups of 22 columns it is about 6 MB and took
    60-90 ms to fetch and parse, and every chunk task paid it for its one or few groups, so a
    chunk's cost grew with the table (docs/scale.md). A dataset's object is never rewritten (its
    key holds the content's sha256 and the dataset's id), so a footer is kept under (the store's
    identity, key, size)."""
    source = RangeFile(store, key)
    ident = (store.identity, key, source.size)
    with _footers_lock:
        metadata = _footers.get(ident)
        if metadata is not None:
            _footers.move_to_end(ident)
    handle = pq.ParquetFile(source, metadata=metadata)
    if metadata is None:
        with _footers_lock:
            _footers[ident] = handle.metadata
            while len(_footers) > FOOTERS_KEPT:
                _footers.popitem(last=False)
    return handle


def n_chunks(store: ObjectStore, key: str) -> int:
    """Row groups of the stored table, from its footer."""
    return int(open_table(store, key).metadata.num_row_groups)


def decode_group(
    handle: pq.ParquetFile, group: int, *, known: pa.Array, feature_names: Sequence[str], target: str
) -> ChunkRows:
    """Row group ``group`` decoded: environment names to indices into ``known`` (``env``), X and y
    as float64."""
    part = handle.read_row_group(group, columns=[ENV_COLUMN, *feature_names, target])
    found = pc.index_in(part.column(ENV_COLUMN), value_set=known)  # vectorised name -> index
    if found.null_count:
        raise KeyError(f"row group {group} names an environment the dataset does not list")
    X = np.column_stack([part.column(c).to_numpy() for c in feature_names]).astype(np.float64)
    return ChunkRows(
        env=found.to_numpy().astype(np.int64),
        X=X,
        y=part.column(target).to_numpy().astype(np.float64),
    )


def iter_chunks(
    store: ObjectStore,
    key: str,
    *,
    environments: Sequence[str],
    feature_names: Sequence[str],
    target: str,
    only: Sequence[int] | None = None,
) -> Iterator[ChunkRows]:
    """The table's row groups in order (or the ``only`` ones: a worker's share), one at a time."""
    handle = open_table(store, key)
    known = pa.array(list(environments), pa.string())
    for group in only if only is not None else range(handle.metadata.num_row_groups):
        yield decode_group(handle, group, known=known, feature_names=feature_names, target=target)


def chunk_fold_sums(
    chunk: ChunkRows,
    *,
    transform: Callable[[NDArray[np.float64]], NDArray[np.float64]],
    folds_of_rows: Callable[[NDArray[np.float64], NDArray[np.float64]], NDArray[np.int64]],
    n_envs: int,
    k: int,
) -> FoldSums:
    """One chunk's sums per (environment, fold) of ``transform(X)`` (the standardiser, fitted
    beforehand) and y; ``folds_of_rows(Z, y)`` decides each row's fold from its content."""
    Z = transform(chunk.X)
    folds = folds_of_rows(Z, chunk.y)
    return fold_sums(
        torch.from_numpy(np.ascontiguousarray(Z)),
        torch.from_numpy(np.ascontiguousarray(chunk.y)),
        torch.from_numpy(chunk.env),
        torch.from_numpy(np.asarray(folds, dtype=np.int64)),
        n_envs,
        k,
    )


def add_sums(parts: Sequence[FoldSums]) -> FoldSums:
    """The sums of several chunks, cell by cell, as the reduce step of a fan-out adds them."""
    if not parts:
        raise ValueError("no chunk sums to add")
    return FoldSums(
        n=np.sum([s.n for s in parts], axis=0),
        z=np.sum([s.z for s in parts], axis=0),
        y=np.sum([s.y for s in parts], axis=0),
        zz=np.sum([s.zz for s in parts], axis=0),
        zy=np.sum([s.zy for s in parts], axis=0),
        yy=np.sum([s.yy for s in parts], axis=0),
    )
