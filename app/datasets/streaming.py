"""An uploaded CSV or Parquet file parsed chunk by chunk into chunked Parquet, in bounded memory.

A file is read a chunk of rows at a time (``pandas.read_csv(chunksize=...)``, Parquet by record
batches) and each chunk, once checked, goes two ways:

* into a Parquet file on disk, one row group per chunk, rows in the file's order (a stored table's
  readers group rows by environment themselves, :meth:`Table.from_parquet`, :mod:`chunks`);
* into two spool files per environment (its X rows and its y, float64), because the content id
  (:meth:`Table.sha256`) hashes every environment's X, then its y, in order of first appearance:
  those bytes can only be hashed once the last row is in.

So the API holds one chunk at a time, decoded (about 10x its text: pandas keeps text cells as
Python objects), its float64 copy and its Arrow form, never the file: a 1 GB CSV costs the same
memory as a 100 MB one, and disk about twice its float64 size while it is staged. The checks are
:func:`tables.from_frame`'s, made per chunk against what the first chunk decided (which columns
are numbers, which text, which neither). Where some hold text, a first pass over those columns alone
reads their values in every chunk, so a text column is one-hot encoded on the whole file's values
(:mod:`encoding`); the content id equals the one :func:`tables.from_file` gives the same file
(tests/app/test_streaming.py). A numeric column's missing cells are filled with its mean over the
whole file: where a chunk shows one the first plan did not expect, a pass over every column reads
the means, and the rows are parsed again under the new plan (a file with missing numbers is read
three times, one without them once or twice).

What a chunk cannot know of the rest of the file: an error names the first bad row of the data
but not how many more follow it.
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import shutil
import tempfile
from collections.abc import Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from app.datasets import encoding, tables
from app.datasets.tables import ENV_COLUMN, PARQUET_MAGIC, Limits
from sal_core import InvalidDataError

__all__ = ["StagedTable", "Stager", "parse_file", "parse_rows"]

_HEADER_BYTES = 16 * 1024 * 1024  # a header line longer than this is refused (20,002 long names fit)
_SCAN_BYTES = 1024 * 1024


def parse_rows(bytes_per_row: float, chunk_bytes: int) -> int:
    """Rows per parsed chunk: about ``chunk_bytes`` of the file (CSV text, or Parquet's decoded
    size). Decoded, a chunk takes several times its text (pandas' text cells are Python objects),
    so the bound is on what the file says a row costs, not on the float64 cells it ends as."""
    return max(1, int(chunk_bytes // max(bytes_per_row, 1.0)))


@dataclass
class StagedTable:
    """A parsed upload on disk: what :class:`tables.Table` says of its content, and its chunked
    Parquet at ``parquet_path`` (under a temporary directory :meth:`close` removes)."""

    feature_names: tuple[str, ...]
    target: str
    env_rows: dict[str, int]  # rows per environment, in order of first appearance
    env_binary: dict[str, bool]  # every y of the environment is 0 or 1
    env_ones: dict[str, int]  # rows of the environment whose y is 1
    ignored_columns: tuple[tuple[str, str], ...]  # columns left out of the features, each with why
    target_levels: tuple[str, ...]  # a text target's two values (0 and 1); () for numbers
    encoded: tuple[encoding.OneHot, ...]  # the text columns one-hot encoded, with their values
    filled: tuple[encoding.Filled, ...]  # the numeric columns with missing cells, with their fills
    rows_without_target: int  # rows left out: no target
    rows_without_environment: int  # rows left out: a target but no environment
    mixed_columns: tuple[tuple[str, str], ...]  # encoded text columns mixing numbers and words
    parquet_path: Path
    content_sha256: str
    n_chunks: int
    _dir: Path = field(repr=False)

    @property
    def n_rows(self) -> int:
        return sum(self.env_rows.values())

    def sha256(self) -> str:
        return self.content_sha256

    def summary(self) -> list[dict[str, object]]:
        return [
            {"name": name, "n_rows": n, "binary": self.env_binary[name], "n_ones": self.env_ones[name]}
            for name, n in self.env_rows.items()
        ]

    def close(self) -> None:
        shutil.rmtree(self._dir, ignore_errors=True)

    def __enter__(self) -> StagedTable:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


class _Spool:
    """Per environment, its X rows (row-major) and y as little-endian float64 files."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.rows: dict[str, int] = {}
        self.binary: dict[str, bool] = {}
        self.ones: dict[str, int] = {}
        self._ids: dict[str, int] = {}

    def _paths(self, name: str) -> tuple[Path, Path]:
        i = self._ids[name]
        return self.root / f"{i}.X", self.root / f"{i}.y"

    def add(self, env: np.ndarray, X: np.ndarray, y: np.ndarray) -> None:
        codes, names = pd.factorize(env, sort=False)  # names in order of first appearance
        order = np.argsort(codes, kind="stable")
        bounds = np.searchsorted(codes[order], np.arange(len(names) + 1))
        for i, name in enumerate(names):
            rows = order[bounds[i] : bounds[i + 1]]
            if name not in self._ids:
                tables.check_text(name, "environment")
                self._ids[name] = len(self._ids)
                self.rows[name], self.binary[name], self.ones[name] = 0, True, 0
            x_path, y_path = self._paths(name)
            with x_path.open("ab") as fx, y_path.open("ab") as fy:
                fx.write(np.ascontiguousarray(X[rows], dtype="<f8").tobytes())
                fy.write(np.ascontiguousarray(y[rows], dtype="<f8").tobytes())
            self.rows[name] += len(rows)
            self.binary[name] = self.binary[name] and bool(np.isin(y[rows], (0.0, 1.0)).all())
            self.ones[name] += int((y[rows] == 1.0).sum())

    def sha256(self, feature_names: Sequence[str], target: str, target_levels: Sequence[str] = ()) -> str:
        """:meth:`tables.Table.sha256` of the spooled rows, read back a megabyte at a time."""
        header = tables.content_header(feature_names, target, list(self.rows.items()), target_levels)
        h = hashlib.sha256(header)
        for name in self.rows:
            for path in self._paths(name):
                with path.open("rb") as f:
                    while block := f.read(_SCAN_BYTES):
                        h.update(block)
        return h.hexdigest()


def _csv_header(file: BinaryIO) -> tuple[list[str], int, int]:
    """The header's cells, the file's line count and its size (linear, a megabyte at a time)."""
    file.seek(0)
    first = file.readline(_HEADER_BYTES + 1)
    if len(first) > _HEADER_BYTES and not first.endswith(b"\n"):
        raise InvalidDataError(f"the header line is longer than {_HEADER_BYTES} bytes", field="file")
    try:
        header = next(csv.reader(io.StringIO(first.decode("utf-8-sig"))), [])
    except UnicodeDecodeError:
        raise InvalidDataError("the CSV file is not valid UTF-8", field="file") from None
    lines, size = first.count(b"\n"), len(first)
    while block := file.read(_SCAN_BYTES):
        lines += block.count(b"\n")
        size += len(block)
    file.seek(0)
    return header, lines, size


# The cells pandas reads as true and false in a CSV file (its default true_values, false_values).
_BOOL_SPELLINGS = frozenset({"True", "TRUE", "true", "False", "FALSE", "false"})


@dataclass
class _Reader:
    """How the upload's file is read, pass after pass: a bounded number of rows at a time, and the
    CSV columns read as text because some chunk holds words besides true/false (``as_text``)."""

    file: BinaryIO
    filename: str | None
    limits: Limits | None
    chunk_bytes: int
    as_text: frozenset[str] = frozenset()

    @property
    def is_parquet(self) -> bool:
        head = self.file.read(4)
        self.file.seek(0)
        if not head:
            raise InvalidDataError("the uploaded file is empty", field="file")
        is_parquet = head == PARQUET_MAGIC
        if self.filename and self.filename.lower().endswith((".parquet", ".pq")) and not is_parquet:
            raise InvalidDataError("the file is named .parquet but is not a Parquet file", field="file")
        return is_parquet

    def frames(
        self, only: Sequence[str] | None = None, as_text: Sequence[str] | None = None
    ) -> Generator[pd.DataFrame, None, None]:
        """The file's rows as frames of a bounded number of rows (``only``: of these columns alone;
        ``as_text``: these CSV columns as the text of their cells, else :attr:`as_text`); the first
        one may be empty (a file with a header and no rows), and there is always a first one. Shape
        limits are checked before any row is decoded. The file is left at its start."""
        self.file.seek(0)
        if self.is_parquet:
            yield from _parquet_frames(self.file, self.limits, self.chunk_bytes, only)
        else:
            text = self.as_text if as_text is None else as_text
            yield from _csv_frames(self.file, self.limits, self.chunk_bytes, only, text)
        self.file.seek(0)

    def first(self) -> pd.DataFrame:
        frames = self.frames()
        first = next(frames)
        frames.close()
        self.file.seek(0)
        first.columns = pd.Index([str(c) for c in first.columns])
        return first


def _parquet_frames(
    file: BinaryIO, limits: Limits | None, chunk_bytes: int, only: Sequence[str] | None
) -> Iterator[pd.DataFrame]:
    try:
        handle = pq.ParquetFile(file)  # the footer only: nothing decoded
        metadata = handle.metadata
        tables._check_shape(metadata.num_rows, metadata.num_columns, limits)
        decoded = sum(metadata.row_group(i).total_byte_size for i in range(metadata.num_row_groups))
        rows = parse_rows(decoded / max(metadata.num_rows, 1), chunk_bytes)
        batches = handle.iter_batches(batch_size=rows, columns=None if only is None else list(only))
        first = True
        for batch in batches:
            first = False
            yield batch.to_pandas()
        if first:
            yield handle.schema_arrow.empty_table().to_pandas()
    except (pa.ArrowException, OSError) as exc:
        raise InvalidDataError(f"unreadable Parquet file: {exc}", field="file") from None


def _csv_frames(
    file: BinaryIO,
    limits: Limits | None,
    chunk_bytes: int,
    only: Sequence[str] | None,
    as_text: Iterable[str] = (),
) -> Iterator[pd.DataFrame]:
    header, lines, size = _csv_header(file)
    # Lines bound rows from above (a quoted cell may span lines): linear, before any parsing.
    tables._check_shape(max(lines - 1, 0), len(header), limits)
    counts: dict[str, int] = {}
    for h in header:
        counts[h] = counts.get(h, 0) + 1
    duplicates = sorted(h for h, n in counts.items() if n > 1)
    if duplicates:
        raise InvalidDataError(f"duplicate column names {duplicates}", field="file")
    text = io.TextIOWrapper(file, encoding="utf-8-sig", newline="")
    try:
        usecols = None if only is None else list(only)
        dtype = {c: str for c in as_text if usecols is None or c in usecols} or None
        rows = parse_rows(size / max(lines, 1), chunk_bytes)
        reader = pd.read_csv(text, chunksize=rows, usecols=usecols, dtype=dtype)
        first = True
        with reader:
            for frame in reader:
                first = False
                yield frame
        if first:
            yield pd.DataFrame(columns=header)
    except pd.errors.EmptyDataError:
        raise InvalidDataError("the CSV file has no columns", field="file") from None
    except UnicodeDecodeError:
        raise InvalidDataError("the CSV file is not valid UTF-8", field="file") from None
    except (pd.errors.ParserError, ValueError) as exc:
        raise InvalidDataError(f"malformed CSV: {exc}", field="file") from None
    finally:
        text.detach()  # the upload's file stays open for its owner


@dataclass
class _Columns:
    """What the file's columns are, which every chunk must agree with: decided from the first chunk,
    the levels of its text columns from a pass over the whole file (:func:`_decide_columns`)."""

    names: list[str]
    plan: encoding.Columns
    chosen: bool  # the uploader listed the features
    target_levels: tuple[str, str] | None  # a text target's two values, read as 0 and 1
    candidates: list[str]
    text: list[str]
    other: dict[str, str]
    mixed: dict[str, str]  # text columns that mix numbers and words: the first word

    @property
    def numeric(self) -> list[str]:
        return [c for c in self.candidates if c not in self.text and c not in self.other]


def _decide_columns(
    reader: _Reader, *, target: str, environment: str, features: Sequence[str] | None
) -> _Columns:
    """The first chunk says which columns are candidates and which of them hold text; where some
    do, or a column's first chunk holds no value to tell (an empty CSV column reads as numbers), a
    pass over those columns alone reads their values in every chunk. A numeric column with a word
    in a later chunk is found while the rows are staged (:func:`_replan`). The file is left at its
    start."""
    first = reader.first()
    tables.check_column_names(first)
    candidates = tables.choose_features(first, target=target, environment=environment, features=features)
    if not reader.is_parquet:
        reader.as_text = _csv_text_columns(reader, first, [*candidates, target, environment])
        if any(pd.api.types.infer_dtype(first[c], skipna=True) != "string" for c in reader.as_text):
            first = reader.first()  # a true/false chunk of a text column: read again as its cells
    text, other, _ = tables.text_columns(first, candidates)
    untold = [c for c in candidates if c not in text and c not in other and not first[c].notna().any()]
    read = [*text, *untold, target] if tables.is_text_target(first[target]) else [*text, *untold]
    levels = {c: encoding.Levels() for c in read}
    mixed: dict[str, str] = {}
    if read:
        only = list(dict.fromkeys([*read, target, environment]))
        survey = _survey(reader.frames(only=only), levels, {}, target, environment)
        worded = [c for c in untold if c in survey.words]  # words in a later chunk: a text column
        mixed = {c: w for c, w in survey.mixed.items() if c not in worded}
        text = [c for c in text if c not in survey.marked]  # numbers with gaps, as in the whole file
        if worded:
            more = _read_as_text(reader, worded, target, environment)
            levels.update(more.levels)
            mixed.update(more.mixed)
            text += worded
    plan = encoding.plan(candidates, text, levels, other, chosen=features is not None, mixed=mixed)
    tables.check_features(plan, target)
    target_levels = (
        encoding.binary_target(target, levels[target])
        if target in levels
        else _numeric_label(reader, first, target)
    )
    return _Columns(
        list(first.columns), plan, features is not None, target_levels, candidates, text, other, mixed
    )


def _numeric_label(reader: _Reader, first: pd.DataFrame, target: str) -> tuple[str, str] | None:
    """:func:`tables.numeric_label` of the whole file's target: where the first chunk holds at most
    two whole numbers, a pass over the target column alone reads the rest (stopping at a third
    value); a cell that is not a number stops it too, and the rows' staging names that cell as the
    whole-file parse does."""
    try:
        seen = np.unique(tables.target_values(first, target, None))
    except InvalidDataError:
        return None
    seen = seen[~np.isnan(seen)]
    if seen.size > 2 or not bool(np.all(seen == np.round(seen))) or set(seen) == {0.0, 1.0}:
        return None  # numbers, or a 0/1 label read as it is, whatever the later chunks hold
    frames = reader.frames(only=[target])
    try:
        for frame in frames:
            frame.columns = pd.Index([str(c) for c in frame.columns])
            seen = np.union1d(seen, tables.target_values(frame, target, None))
            seen = seen[~np.isnan(seen)]
            if seen.size > 2:
                return None
    except InvalidDataError:
        return None
    finally:
        frames.close()
        reader.file.seek(0)
    return tables.numeric_label(seen)


@dataclass
class _Text:
    levels: dict[str, encoding.Levels]
    mixed: dict[str, str]


def _read_as_text(reader: _Reader, columns: Sequence[str], target: str, environment: str) -> _Text:
    """Columns found to be text in a later chunk, read as text from now on (a CSV chunk of numbers
    alone parses them as numbers, where the whole file reads the cells as written), and their
    values read so."""
    if not reader.is_parquet:
        reader.as_text = reader.as_text | frozenset(columns)
    levels = {c: encoding.Levels() for c in columns}
    only = list(dict.fromkeys([*columns, target, environment]))
    survey = _survey(reader.frames(only=only), levels, {}, target, environment)
    return _Text(levels, survey.mixed)


def _csv_text_columns(reader: _Reader, first: pd.DataFrame, columns: Sequence[str]) -> frozenset[str]:
    """The CSV columns that the whole file reads as text, to be read so in every chunk: pandas
    reads a chunk whose cells are all true/false spellings ("FALSE") as true/false, where the file
    holds other words too (R writes a logical padded, "FALSE" and " TRUE"). Those the first chunk
    reads as text, and those it reads as true/false but a pass finds other words in."""
    kinds = {c: pd.api.types.infer_dtype(first[c], skipna=True) for c in dict.fromkeys(columns)}
    text = {c for c, kind in kinds.items() if kind == "string"}
    boolish = [c for c, kind in kinds.items() if kind == "boolean"]
    if boolish:
        for frame in reader.frames(only=boolish, as_text=boolish):
            for c in boolish:
                if c not in text and not set(frame[c].dropna().unique()) <= _BOOL_SPELLINGS:
                    text.add(c)
    return frozenset(text)


def _replan(reader: _Reader, columns: _Columns, target: str, environment: str) -> _Columns:
    """The columns planned again from a pass over every candidate: the text columns' values and the
    numeric columns' missing cells and means (:func:`tables.from_frame` reads the same of a frame)."""
    levels = {c: encoding.Levels() for c in columns.text}
    means = {c: encoding.Mean() for c in columns.numeric}
    only = [*levels, *means, target, environment]
    survey = _survey(reader.frames(only=only), levels, means, target, environment)
    text, mixed = list(columns.text), dict(columns.mixed)
    if survey.worded:  # numbers in the first chunk, words in a later one: a text column
        more = _read_as_text(reader, list(survey.worded), target, environment)
        levels.update(more.levels)
        mixed.update(more.mixed)
        text += list(survey.worded)
        for c in survey.worded:
            del means[c]
    plan = encoding.plan(
        columns.candidates, text, levels, columns.other, chosen=columns.chosen, means=means, mixed=mixed
    )
    tables.check_features(plan, target)
    return dataclasses.replace(columns, plan=plan, text=text, mixed=mixed)


@dataclass
class _Survey:
    words: set[str]  # columns of ``levels`` that hold a word
    mixed: dict[str, str]  # columns of ``levels`` that hold numbers and words: the first word
    worded: dict[str, str]  # columns of ``means`` that hold a word (text after all): the first
    marked: set[str]  # columns of ``levels`` of numbers and missing-value markers alone: numbers


def _survey(
    frames: Iterator[pd.DataFrame],
    levels: dict[str, encoding.Levels],
    means: dict[str, encoding.Mean],
    target: str,
    environment: str,
) -> _Survey:
    """Every chunk's values of the rows kept (:func:`tables.kept_rows`) into ``levels`` (text
    columns) and ``means`` (numeric ones, until one shows a word); a 422 for a text target with
    numbers in some cells and words in others, naming its first word (as :func:`tables.from_frame`
    does). Says which columns hold words, and where."""
    numbers = dict.fromkeys(levels, False)
    markers = dict.fromkeys(levels, False)
    first_word: dict[str, str] = {}
    worded: dict[str, str] = {}
    offset = 0
    for frame in frames:
        frame.columns = pd.Index([str(c) for c in frame.columns])
        kept = tables.rows_with_target_and_environment(frame, target, environment)
        for c, mean in means.items():
            if c not in worded and (word := _first_word(frame[c], offset)):
                worded[c] = word
            if c not in worded:
                mean.add(tables._numeric(frame, c, f"file.{c}", offset)[kept])
        for c, seen in levels.items():
            series = frame[c]
            has_number, has_word = tables.number_and_text_cells(series)
            numbers[c] = numbers[c] or has_number
            markers[c] = markers[c] or bool(series.isin(tables.MISSING_MARKERS).any())
            if has_word and c not in first_word:
                first_word[c] = tables._text_cell(series, offset)
            if c == target and numbers[c] and c in first_word:
                raise InvalidDataError(f"column {c!r} must be numeric{first_word[c]}", field="target")
            seen.add(series if c == target else series[kept])
        offset += len(frame)
    mixed = {c: word for c, word in first_word.items() if numbers[c] and c != target}
    marked = {c for c in levels if numbers[c] and markers[c] and c not in first_word and c != target}
    return _Survey(set(first_word), mixed, worded, marked)


def _first_word(series: pd.Series, offset: int) -> str:
    """Where a column read as numbers holds a word in this chunk ("" where it holds none)."""
    if pd.api.types.is_numeric_dtype(series):
        return ""
    return tables._text_cell(series, offset)


class _UnplannedText(Exception):
    """A column planned as numbers holds a word in a later chunk: the columns are planned again."""


def _check_chunk(frame: pd.DataFrame, columns: _Columns, offset: int) -> None:
    """A chunk agrees with the first: the same columns, and numbers (or missing-value markers) where
    the plan has numbers; a word there is :class:`_UnplannedText`."""
    if list(frame.columns) != columns.names:
        raise InvalidDataError("the file's columns change between rows", field="file")
    for source in columns.plan.sources:
        if isinstance(source, encoding.OneHot):
            continue
        c = source.column if isinstance(source, encoding.Filled) else source
        if _first_word(frame[c], offset):
            raise _UnplannedText(c)


def parse_file(
    file: BinaryIO,
    *,
    filename: str | None,
    target: str,
    environment: str,
    features: Sequence[str] | None,
    limits: Limits | None = None,
    chunk_bytes: int = 4 * 1024 * 1024,
    workdir: Path | None = None,
) -> StagedTable:
    """Parse a seekable CSV or Parquet file into a :class:`StagedTable` (its caller closes it),
    about ``chunk_bytes`` of the file at a time; the same checks and content id as
    :func:`tables.from_file`, whose 422s it raises as :class:`InvalidDataError`."""
    root = Path(tempfile.mkdtemp(prefix="sal-upload-", dir=workdir))
    try:
        return _parse(file, root, filename, target, environment, features, limits, chunk_bytes)
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise


def _parse(
    file: BinaryIO,
    root: Path,
    filename: str | None,
    target: str,
    environment: str,
    features: Sequence[str] | None,
    limits: Limits | None,
    chunk_bytes: int,
) -> StagedTable:
    reader = _Reader(file, filename, limits, chunk_bytes)
    columns = _decide_columns(reader, target=target, environment=environment, features=features)
    try:
        return _stage(reader, root, environment, target, columns)
    except (tables.UnplannedMissing, _UnplannedText):  # gaps or words the first plan did not know
        for staged in root.iterdir():
            staged.unlink()
    columns = _replan(reader, columns, target, environment)
    return _stage(reader, root, environment, target, columns)


def _stage(reader: _Reader, root: Path, environment: str, target: str, columns: _Columns) -> StagedTable:
    """The file's rows, checked and encoded by the plan, into a staged table under ``root``."""
    stager: Stager | None = None
    offset = kept_rows = without_target = without_environment = 0
    try:
        for frame in reader.frames():
            frame.columns = pd.Index([str(c) for c in frame.columns])
            _check_chunk(frame, columns, offset)
            y = tables.target_values(frame, target, columns.target_levels, offset)
            has_target = ~np.isnan(y)
            kept = has_target & frame[environment].notna().to_numpy()
            env = tables.environment_names(frame[environment][kept])
            X = tables.feature_matrix(frame, columns.plan, offset, kept=kept)
            del frame
            if stager is None:
                stager = Stager(root, columns.plan.feature_names, target, columns.target_levels or ())
            if kept.all():
                stager.add(env, X, y)
            elif kept.any():
                stager.add(env, np.asfortranarray(X[kept]), y[kept])
            offset += len(y)
            kept_rows += int(kept.sum())
            without_target += int((~has_target).sum())
            without_environment += int((has_target & ~kept).sum())
    finally:
        if stager is not None:
            stager.close_writer()
    if stager is None or offset == 0:  # pragma: no cover - no frame, no rows
        raise InvalidDataError("the file has no rows", field="file")
    tables.check_kept(kept_rows, without_target, without_environment, target, environment)
    if reader.limits is not None:
        tables._check_shape(offset, len(columns.names), reader.limits)
    return stager.staged(
        ignored=columns.plan.left_out,
        encoded=columns.plan.encoded,
        filled=columns.plan.filled,
        rows_without_target=without_target,
        rows_without_environment=without_environment,
        mixed_columns=columns.plan.mixed,
    )


class Stager:
    """Checked rows, a chunk at a time, into a :class:`StagedTable` under ``root``: each chunk one
    row group of the stored table's Parquet (in the rows' order) and spooled per environment for
    the content id. The streaming parser stages an upload with it; ``bench.scale`` stages rows it
    generates (a table larger than an upload's disk allows)."""

    def __init__(
        self, root: Path, feature_names: Sequence[str], target: str, target_levels: Sequence[str] = ()
    ) -> None:
        self.root = root
        self.feature_names = tuple(feature_names)
        self.target = target
        self.target_levels = tuple(target_levels)  # a label's two values (tables.target_of)
        self.parquet_path = root / "table.parquet"
        self._spool = _Spool(root)
        self._schema = _schema(self.feature_names, target, self.target_levels)
        self._writer: pq.ParquetWriter | None = pq.ParquetWriter(
            self.parquet_path, self._schema, compression="zstd"
        )
        self.chunks = 0

    def add(self, env: np.ndarray, X: np.ndarray, y: np.ndarray) -> None:
        """A chunk: environment names (n,), X (n, p) float64 (Fortran order copies nothing), y (n,)."""
        if self._writer is None:
            raise ValueError("the stager's table is closed")
        self._writer.write_table(_arrow(env, X, y, self._schema))
        self._spool.add(env, X, y)
        self.chunks += 1

    def close_writer(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def __enter__(self) -> Stager:
        return self

    def __exit__(self, *_: object) -> None:
        self.close_writer()

    def staged(
        self,
        ignored: tuple[tuple[str, str], ...] = (),
        encoded: tuple[encoding.OneHot, ...] = (),
        filled: tuple[encoding.Filled, ...] = (),
        rows_without_target: int = 0,
        rows_without_environment: int = 0,
        mixed_columns: tuple[tuple[str, str], ...] = (),
    ) -> StagedTable:
        self.close_writer()
        return StagedTable(
            feature_names=self.feature_names,
            target=self.target,
            env_rows=dict(self._spool.rows),
            env_binary=dict(self._spool.binary),
            env_ones=dict(self._spool.ones),
            ignored_columns=ignored,
            target_levels=self.target_levels,
            encoded=encoded,
            filled=filled,
            rows_without_target=rows_without_target,
            rows_without_environment=rows_without_environment,
            mixed_columns=mixed_columns,
            parquet_path=self.parquet_path,
            content_sha256=self._spool.sha256(self.feature_names, self.target, self.target_levels),
            n_chunks=self.chunks,
            _dir=self.root,
        )


def _schema(features: Sequence[str], target: str, target_levels: Sequence[str] = ()) -> pa.Schema:
    """The stored table's schema, as :meth:`tables.Table.to_parquet` writes it."""
    fields = [pa.field(ENV_COLUMN, pa.string())]
    fields += [pa.field(c, pa.float64()) for c in features]
    fields.append(pa.field(target, pa.float64()))
    return pa.schema(fields, metadata=tables.parquet_metadata(target, target_levels))


def _arrow(env: np.ndarray, X: np.ndarray, y: np.ndarray, schema: pa.Schema) -> pa.Table:
    arrays = [pa.array(env, pa.string())]
    arrays += [pa.array(X[:, j], pa.float64()) for j in range(X.shape[1])]  # F order: no copy per column
    arrays.append(pa.array(y, pa.float64()))
    return pa.Table.from_arrays(arrays, schema=schema)
