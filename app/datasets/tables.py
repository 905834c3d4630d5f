"""The canonical multi-environment table: parsed from CSV, Parquet or JSON, stored as Parquet.

A dataset is content-addressed: its sha256 is taken over a canonical byte layout (a JSON header
with feature names, target and environments, then each environment's X and y as little-endian
float64), so it does not depend on the Parquet writer's version. The same hash is checked again
whenever the stored Parquet bytes are read back.

Bad input raises :class:`sal_core.InvalidDataError` naming the offending field, which the API
renders as a 422.
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from app.datasets import encoding
from sal_core import Environment, InvalidDataError

ENV_COLUMN = "__environment__"
PARQUET_MAGIC = b"PAR1"
# Every value of a dataset is finite and at most this large in magnitude: squares and sums of
# squares of such values (the metrics) stay finite in float64 (1e300 ** 2 would overflow to inf).
MAX_ABS_VALUE = 1e100


class CorruptDatasetError(RuntimeError):
    """Stored Parquet bytes whose content no longer has the dataset's sha256."""


@dataclass(frozen=True)
class Limits:
    """The shape a dataset may have, checked before the work that scales with it: Parquet from its
    metadata, CSV from its header line and a count of its lines, so a small file that would
    decode to gigabytes is refused before it is decoded. ``max_cells`` bounds rows x columns, and
    with it the decoded size (8 bytes a cell per copy)."""

    max_rows: int
    max_columns: int
    max_cells: int


@dataclass(frozen=True)
class Table:
    """Rows grouped by environment, in order of first appearance; X is (n_e, p), y is (n_e,)."""

    feature_names: tuple[str, ...]
    target: str
    environments: tuple[Environment, ...]
    # Columns of the file left out of the features by default (text that cannot be one-hot, dates,
    # lists), each with why, said back to the uploader; not part of the content (sha256).
    ignored_columns: tuple[tuple[str, str], ...] = ()
    # A label's two values (text, or two whole numbers other than 0 and 1), read as 0 and 1 (said back
    # to the uploader); () for numbers.
    target_levels: tuple[str, ...] = ()
    # The text columns one-hot encoded, each with its values (the dataset row records them).
    encoded: tuple[encoding.OneHot, ...] = ()
    # The numeric columns with missing cells, each with its fill (the dataset row records them).
    filled: tuple[encoding.Filled, ...] = ()
    # Rows of the file left out (said back; not part of the content): with no target, and with a
    # target but no environment.
    rows_without_target: int = 0
    rows_without_environment: int = 0
    # Encoded text columns that mix numbers and words, each with its first word (said back).
    mixed_columns: tuple[tuple[str, str], ...] = ()

    @property
    def n_rows(self) -> int:
        return sum(e.n_rows for e in self.environments)

    def environment(self, name: str) -> Environment:
        for env in self.environments:
            if env.name == name:
                return env
        raise KeyError(name)

    def summary(self) -> list[dict[str, object]]:
        return [
            {
                "name": e.name,
                "n_rows": e.n_rows,
                "binary": bool(np.isin(e.y, (0.0, 1.0)).all()),
                "n_ones": int((e.y == 1.0).sum()),
            }
            for e in self.environments
        ]

    def sha256(self) -> str:
        header = content_header(
            self.feature_names,
            self.target,
            [(e.name, e.n_rows) for e in self.environments],
            self.target_levels,
        )
        h = hashlib.sha256(header)
        for e in self.environments:
            h.update(np.ascontiguousarray(e.X, dtype="<f8").tobytes())
            h.update(np.ascontiguousarray(e.y, dtype="<f8").tobytes())
        return h.hexdigest()

    def to_parquet(self, *, row_group_rows: int | None = None) -> bytes:
        """The table as zstd Parquet; ``row_group_rows`` bounds a row group (a chunk a reader can
        decode alone). The bytes depend on it, the content (``sha256``) does not."""
        env_col = [e.name for e in self.environments for _ in range(e.n_rows)]
        X = np.concatenate([e.X for e in self.environments]) if self.environments else np.empty((0, 0))
        y = np.concatenate([e.y for e in self.environments])
        columns = {ENV_COLUMN: pa.array(env_col, pa.string())}
        for j, name in enumerate(self.feature_names):
            columns[name] = pa.array(X[:, j], pa.float64())
        columns[self.target] = pa.array(y, pa.float64())
        table = pa.table(columns, metadata=parquet_metadata(self.target, self.target_levels))
        sink = io.BytesIO()
        pq.write_table(table, sink, compression="zstd", row_group_size=row_group_rows)
        return sink.getvalue()

    @classmethod
    def from_parquet(cls, data: bytes, *, expected_sha256: str) -> Table:
        """Decode stored bytes and check them against the dataset's content hash."""
        arrow = pq.read_table(io.BytesIO(data))
        meta = arrow.schema.metadata or {}
        target = meta[b"sal.target"].decode()
        levels = tuple(json.loads(meta[b"sal.target_levels"])) if b"sal.target_levels" in meta else ()
        features = [c for c in arrow.column_names if c not in (ENV_COLUMN, target)]
        table = _group(
            np.asarray(arrow.column(ENV_COLUMN).to_pylist(), dtype=object),
            np.column_stack([arrow.column(c).to_numpy() for c in features]) if features else None,
            arrow.column(target).to_numpy(),
            features,
            target,
        )
        table = dataclasses.replace(table, target_levels=levels)
        actual = table.sha256()
        if actual != expected_sha256:
            raise CorruptDatasetError(f"stored dataset is corrupt: sha256 {actual} != {expected_sha256}")
        return table


def _group(
    env: np.ndarray, X: np.ndarray | None, y: np.ndarray, features: Sequence[str], target: str
) -> Table:
    order: dict[str, list[int]] = {}
    for i, name in enumerate(env):
        order.setdefault(name, []).append(i)
    for name in order:
        check_text(name, "environment")
    envs = []
    for name, idx in order.items():
        rows = np.asarray(idx)
        Xe = X[rows] if X is not None else np.empty((len(rows), 0))
        envs.append(
            Environment(name, np.asarray(Xe, dtype=np.float64), np.asarray(y[rows], dtype=np.float64))
        )
    return Table(tuple(features), target, tuple(envs))


def check_text(value: str, field: str) -> str:
    """A name the service stores: no NUL character (PostgreSQL cannot store one, so neither
    database is given one) and not a spreadsheet formula."""
    if "\x00" in value:
        raise InvalidDataError("must not contain the NUL character (\\u0000)", field=field)
    if encoding.looks_like_formula(value):
        raise InvalidDataError(f"{value[:40]!r} looks like a spreadsheet formula", field=field)
    return value


def _check_names(feature_names: Sequence[str], target: str) -> None:
    names = [*feature_names, target]
    for name in names:
        if "\x00" in name:
            raise InvalidDataError("column names must not contain the NUL character", field="feature_names")
    if len(set(names)) != len(names):
        raise InvalidDataError(
            f"feature and target names must be distinct, got {names}", field="feature_names"
        )
    for name in names:
        if encoding.looks_like_formula(name):
            raise InvalidDataError(
                f"column name {name!r} looks like a spreadsheet formula", field="feature_names"
            )
        if not name or name.startswith("__"):
            raise InvalidDataError(
                f"column name {name!r} is not allowed (empty or starting with '__')", field="feature_names"
            )


def _at_row(bad: np.ndarray, rows: bool, offset: int | None = None) -> str:
    """Where the first bad cell is: a file's data row (1 is the row after the header). ``offset``:
    the rows are a part of the file starting after that many data rows (a streamed upload's chunk),
    whose count says nothing of the rest."""
    if not rows or not bad.any():
        return ""
    first = int(np.flatnonzero(bad)[0])
    if offset is not None:
        return f" (first at row {offset + first + 1} of the data)"
    return f" (first at row {first + 1} of the data, {int(bad.sum())} row(s) in all)"


def _check_finite(
    values: np.ndarray, field: str, rows: bool = False, offset: int | None = None, missing_ok: bool = False
) -> None:
    """Every value finite (``missing_ok``: or NaN, a missing cell of a file) and within
    :data:`MAX_ABS_VALUE`."""
    bad = np.isinf(values) if missing_ok else ~np.isfinite(values)
    if bad.any():
        raise InvalidDataError(
            ("contains infinite values" if missing_ok else "contains NaN, infinite or missing values")
            + _at_row(bad.reshape(len(values), -1).any(axis=1), rows, offset),
            field=field,
        )
    big = np.abs(values) > MAX_ABS_VALUE  # False where NaN
    if big.any():
        big = big.reshape(len(values), -1).any(axis=1)
        raise InvalidDataError(
            f"contains a value larger than {MAX_ABS_VALUE:g} in magnitude{_at_row(big, rows, offset)}; "
            "rescale the column",
            field=field,
        )


def _check_shape(n_rows: int, n_columns: int, limits: Limits | None) -> None:
    if limits is None:
        return
    if n_columns > limits.max_columns:
        raise InvalidDataError(
            f"{n_columns} columns; files are limited to {limits.max_columns} (2 x max_features + 2)",
            field="file",
        )
    if n_rows > limits.max_rows:
        raise InvalidDataError(
            f"{n_rows} rows; datasets are limited to {limits.max_rows} (max_rows)", field="file"
        )
    if n_rows * n_columns > limits.max_cells:
        raise InvalidDataError(
            f"{n_rows} rows x {n_columns} columns; datasets are limited to {limits.max_cells} cells (max_cells)",
            field="file",
        )


def from_arrays(
    feature_names: Sequence[str],
    target: str,
    environments: Sequence[tuple[str, Sequence[Sequence[float]], Sequence[float]]],
) -> Table:
    """Build a table from the JSON upload body: [(name, X rows, y)]."""
    _check_names(feature_names, target)
    if not environments:
        raise InvalidDataError("at least one environment is required", field="environments")
    p = len(feature_names)
    envs = []
    seen: set[str] = set()
    for k, (name, X_rows, y_values) in enumerate(environments):
        where = f"environments[{k}]"
        if not name:
            raise InvalidDataError("environment name must not be empty", field=f"{where}.name")
        check_text(name, f"{where}.name")
        if name in seen:
            raise InvalidDataError(f"duplicate environment name {name!r}", field=f"{where}.name")
        if encoding.looks_like_formula(name):
            raise InvalidDataError(
                f"environment name {name!r} looks like a spreadsheet formula", field=f"{where}.name"
            )
        seen.add(name)
        for i, row in enumerate(X_rows):
            if len(row) != p:
                raise InvalidDataError(f"row {i} has {len(row)} values, expected {p}", field=f"{where}.X")
        X = np.asarray(X_rows, dtype=np.float64).reshape(len(X_rows), p)
        y = np.asarray(y_values, dtype=np.float64)
        if y.ndim != 1 or y.shape[0] != X.shape[0]:
            raise InvalidDataError(f"y must have one value per row of X ({X.shape[0]})", field=f"{where}.y")
        if X.shape[0] == 0:
            raise InvalidDataError("an environment needs at least one row", field=f"{where}.X")
        _check_finite(X, f"{where}.X")
        _check_finite(y, f"{where}.y")
        envs.append(Environment(name, X, y))
    return Table(tuple(feature_names), target, tuple(envs))


def _read_frame(data: bytes, filename: str | None, limits: Limits | None = None) -> pd.DataFrame:
    if not data:
        raise InvalidDataError("the uploaded file is empty", field="file")
    is_parquet = data[:4] == PARQUET_MAGIC
    if filename and filename.lower().endswith((".parquet", ".pq")) and not is_parquet:
        raise InvalidDataError("the file is named .parquet but is not a Parquet file", field="file")
    if is_parquet:
        try:
            metadata = pq.ParquetFile(io.BytesIO(data)).metadata  # the footer only: nothing decoded
            _check_shape(metadata.num_rows, metadata.num_columns, limits)
            return pq.read_table(io.BytesIO(data)).to_pandas()
        except (pa.ArrowException, OSError) as exc:
            raise InvalidDataError(f"unreadable Parquet file: {exc}", field="file") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InvalidDataError("the CSV file is not valid UTF-8", field="file") from None
    first_line = text[: text.find("\n") + 1 or len(text)]
    header = next(csv.reader(io.StringIO(first_line)), [])
    # Lines bound rows from above (a quoted cell may span lines): linear, before any parsing.
    _check_shape(max(text.count("\n") - 1, 0), len(header), limits)
    counts = Counter(header)  # linear; header.count per cell was quadratic in the columns
    duplicates = sorted(h for h, n in counts.items() if n > 1)
    if duplicates:
        raise InvalidDataError(f"duplicate column names {duplicates}", field="file")
    try:
        return pd.read_csv(io.StringIO(text))  # pandas 3 parses floats exactly (round trip)
    except pd.errors.EmptyDataError:
        raise InvalidDataError("the CSV file has no columns", field="file") from None
    except (pd.errors.ParserError, ValueError) as exc:
        raise InvalidDataError(f"malformed CSV: {exc}", field="file") from None


def check_column_names(frame: pd.DataFrame) -> None:
    """No column name a spreadsheet would run as a formula. Cells are checked where they are stored:
    one-hot levels and labels (:func:`encoding.check_value`), environment names (:func:`check_text`)."""
    for column in frame.columns:
        if encoding.looks_like_formula(column):
            raise InvalidDataError(f"column name {column!r} looks like a spreadsheet formula", field="file")


_TEXT = frozenset({"string", "empty"})
_NUMBERS = frozenset({"integer", "floating", "mixed-integer-float", "decimal", "boolean"})
_DATES = frozenset({"datetime64", "datetime", "date", "time", "timedelta64", "timedelta", "period"})
DATES = "holds dates or times; give them as numbers (days since a date, say) to use them"
OTHER = "holds values that are neither numbers nor text"


def column_kind(series: pd.Series) -> tuple[str, str]:
    """What a column holds: ("numeric", "") for numbers (true/false counts, as 1 and 0; so do
    Parquet decimals), ("text", "") for words (a categorical column, or codes typed as text, counts),
    or ("other", why) for what is neither (dates, bytes, lists), which is never a feature."""
    inferred = pd.api.types.infer_dtype(series, skipna=True)
    if pd.api.types.is_numeric_dtype(series):
        return "numeric", ""
    if isinstance(series.dtype, pd.CategoricalDtype):
        return "text", ""
    if inferred in _TEXT:
        return "text", ""
    if inferred in _NUMBERS:
        return "numeric", ""
    if inferred in _DATES:
        return "other", DATES
    if all(isinstance(v, (str, int, float, np.number)) for v in series.dropna()):
        return "text", ""  # words beside numbers: refused by name, as a column mixing them
    return "other", OTHER


MISSING_MARKERS = frozenset({".", "?", "*", "-", "--"})
"""Cells that mark a missing value among numbers (SAS's ".", UCI's "?"), beside the empty cell and
the spellings pandas reads as missing ("NA", "n/a", "null", ...): a column of numbers and these is
numbers with gaps. Among words they are values like any other."""


def _words(series: pd.Series) -> pd.Series:
    """The cells that are neither numbers, nor missing, nor a missing-value marker."""
    return series.notna() & pd.to_numeric(series, errors="coerce").isna() & ~series.isin(MISSING_MARKERS)


def number_and_text_cells(series: pd.Series) -> tuple[bool, bool]:
    """Whether some cell of a text column reads as a number, and whether some other cell is a word
    (neither a number nor a missing-value marker). Read from the distinct values: a category of
    three values in a million rows parses three strings."""
    values = pd.Series(series.dropna().unique(), dtype=object)
    parsed = pd.to_numeric(values, errors="coerce")
    return bool(parsed.notna().any()), bool((parsed.isna() & ~values.isin(MISSING_MARKERS)).any())


def numbers_with_markers(series: pd.Series) -> bool:
    """A text column that is numbers with gaps: numbers, missing-value markers, and no word."""
    numbers, words = number_and_text_cells(series)
    return numbers and not words and bool(series.isin(MISSING_MARKERS).any())


def _text_cell(series: pd.Series, offset: int = 0) -> str:
    """The first cell of a column that is a word (neither a number nor a missing-value marker): its
    row and value (``offset``: data rows before this part of the file)."""
    bad = _words(series).to_numpy()
    if not bad.any():
        return ""
    first = int(np.flatnonzero(bad)[0])
    return f": row {offset + first + 1} of the data holds {str(series.iloc[first])[:40]!r}"


class UnplannedMissing(InvalidDataError):
    """A numeric feature column with a missing cell that the plan of the columns did not know of:
    the streaming parser learns of it in a later chunk and plans again (a 422 if it escapes)."""

    def __init__(self, column: str) -> None:
        super().__init__(f"column {column!r} has missing cells", field=f"file.{column}")
        self.column = column


def _numeric(frame: pd.DataFrame, column: str, field: str, offset: int | None = None) -> np.ndarray:
    """A numeric column's values, NaN where a cell is missing; a 422 naming ``field`` for a word,
    an infinite value or one past :data:`MAX_ABS_VALUE`."""
    series = frame[column]
    if not pd.api.types.is_numeric_dtype(series):
        if _words(series).any():
            raise InvalidDataError(
                f"column {column!r} must be numeric{_text_cell(series, offset or 0)}", field=field
            )
        # numbers as text, Python numbers (Parquet decimals), true/false; markers are gaps
        series = pd.to_numeric(series.where(~series.isin(MISSING_MARKERS)), errors="coerce")
    values = series.to_numpy(dtype=np.float64, na_value=np.nan)
    _check_finite(values, field, rows=True, offset=offset, missing_ok=True)
    return values


def from_file(
    data: bytes,
    *,
    filename: str | None,
    target: str,
    environment: str,
    features: Sequence[str] | None,
    limits: Limits | None = None,
) -> Table:
    """Parse an uploaded CSV or Parquet file into the canonical table, refusing one over ``limits``
    before decoding it."""
    return from_frame(
        _read_frame(data, filename, limits), target=target, environment=environment, features=features
    )


def from_frame(
    frame: pd.DataFrame, *, target: str, environment: str, features: Sequence[str] | None
) -> Table:
    """The canonical table from a decoded frame (a file's, or Parquet files' read by reference):
    the same checks and the same content id whichever way the rows came."""
    columns = [str(c) for c in frame.columns]
    frame.columns = pd.Index(columns)
    check_column_names(frame)
    candidates = choose_features(frame, target=target, environment=environment, features=features)
    text, other, mixed = text_columns(frame, candidates)
    levels, y = target_of(frame, target)
    kept, without_target, without_environment = kept_rows(frame, target, environment)
    rows = frame if kept.all() else frame[kept]
    numeric = [c for c in candidates if c not in text and c not in other]
    means = {c: encoding.Mean() for c in numeric}
    for c, mean in means.items():
        mean.add(_numeric(frame, c, f"file.{c}")[kept])
    plan = encoding.plan(
        candidates,
        text,
        {c: encoding.Levels.of(rows[c]) for c in text},
        other,
        chosen=features is not None,
        means=means,
        mixed=mixed,
    )
    feature_names = check_features(plan, target)
    env = environment_names(frame[environment][kept])
    X = feature_matrix(frame, plan, kept=kept)
    table = _group(env, X[kept], y[kept], feature_names, target)
    # Columns left out by default are said back, with why; a `features` list leaves none out.
    return dataclasses.replace(
        table,
        ignored_columns=plan.left_out,
        target_levels=levels or (),
        encoded=plan.encoded,
        filled=plan.filled,
        rows_without_target=without_target,
        rows_without_environment=without_environment,
        mixed_columns=plan.mixed,
    )


def environment_names(series: pd.Series) -> np.ndarray:
    """Each row's environment as text. A whole number reads as one ("2003"), also where a gap in the
    column made pandas read its numbers as floats (2003.0), so a year is the same name in every
    chunk of a file and with or without gaps."""
    return np.asarray(
        [str(int(v)) if isinstance(v, float) and v.is_integer() else str(v) for v in series.tolist()],
        dtype=object,
    )


def rows_with_target_and_environment(frame: pd.DataFrame, target: str, environment: str) -> np.ndarray:
    """The rows a dataset keeps: those with a target (a row without one has nothing to learn from)
    and an environment (one without cannot be put in any)."""
    return (frame[target].notna() & frame[environment].notna()).to_numpy()


def kept_rows(frame: pd.DataFrame, target: str, environment: str) -> tuple[np.ndarray, int, int]:
    """:func:`rows_with_target_and_environment`, and how many rows lack a target, and how many
    have one but no environment; a 422 where no row is kept."""
    has_target = frame[target].notna().to_numpy()
    kept = rows_with_target_and_environment(frame, target, environment)
    without_target, without_environment = int((~has_target).sum()), int((has_target & ~kept).sum())
    check_kept(int(kept.sum()), without_target, without_environment, target, environment)
    return kept, without_target, without_environment


def check_kept(
    kept: int, without_target: int, without_environment: int, target: str, environment: str
) -> None:
    """A 422 where no row has both a target and an environment, naming which column is empty, or,
    where neither is, that the rows with a target have no environment."""
    if kept:
        return
    if not without_environment:
        raise InvalidDataError(f"target column {target!r} has no value in any row", field="target")
    if not without_target:
        raise InvalidDataError(
            f"environment column {environment!r} has no value in any row", field="environment"
        )
    raise InvalidDataError(
        f"no row has both a target and an environment: the {without_environment} row(s) with a value in "
        f"target column {target!r} have none in environment column {environment!r}",
        field="environment",
    )


def is_text_target(series: pd.Series) -> bool:
    """A target of text alone (a label such as "yes"/"no"); one that mixes numbers and text is a bad
    cell, which :func:`target_values` names by its row."""
    if pd.api.types.is_numeric_dtype(series) or not series.notna().any():
        return False
    return not bool(pd.to_numeric(series, errors="coerce").notna().any())


def parquet_metadata(target: str, target_levels: Sequence[str] = ()) -> dict[str, str]:
    """The stored table's Parquet metadata: the target's name and, for a label, its two values (read
    back by :meth:`Table.from_parquet`, whose content id hashes them; tables stored before labels
    were hashed have none, and their ids did not hash them)."""
    meta = {"sal.target": target}
    if target_levels:
        meta["sal.target_levels"] = json.dumps(list(target_levels))
    return meta


def content_header(
    feature_names: Sequence[str],
    target: str,
    environments: Sequence[tuple[str, int]],
    target_levels: Sequence[str] = (),
) -> bytes:
    """What a content id hashes before the rows: names, environments' sizes and, for a label, its two
    values (the same 0s and 1s read from "no"/"yes" and from 1/2 are different datasets: a dataset
    found by its content id answers with its own labels). Without a label the header is as it was
    before labels were hashed, so numeric targets keep their ids."""
    header: dict[str, object] = {
        "v": 1,
        "feature_names": list(feature_names),
        "target": target,
        "environments": [[name, n] for name, n in environments],
    }
    if target_levels:
        header["target_levels"] = list(target_levels)
    return json.dumps(header, sort_keys=True, separators=(",", ":")).encode()


_WHOLE_NUMBER = re.compile(r"-?[0-9]+")


def numeric_label(values: np.ndarray) -> tuple[str, str] | None:
    """A numeric target's two values where it is a label other than 0/1: exactly two distinct whole
    numbers (1 and 2, −1 and 1), as scikit-learn's ``type_of_target`` reads such a column
    ("binary"), written as whole numbers ("1", "2"); the first is read as 0 and the second as 1. None
    for any other target, and for 0 and 1, which are read as they are."""
    present = np.unique(values[~np.isnan(values)])
    if present.size != 2 or not bool(np.all(present == np.round(present))) or set(present) <= {0.0, 1.0}:
        return None
    low, high = (f"{v:.0f}" for v in present)
    return low, high


def target_of(frame: pd.DataFrame, target: str) -> tuple[tuple[str, str] | None, np.ndarray]:
    """The whole target column: its two values where it is a label read as 0 and 1 (text,
    :func:`is_text_target`, or two whole numbers, :func:`numeric_label`; None where its numbers are
    the target), and y as :func:`target_values` gives it, the column converted once."""
    if is_text_target(frame[target]):
        text = encoding.binary_target(target, encoding.Levels.of(frame[target]))
        return text, target_values(frame, target, text)
    values = _numeric(frame, target, "target")
    numbers = numeric_label(values)
    return numbers, values if numbers is None else _as_label(values, float(numbers[1]))


def _as_label(values: np.ndarray, second: float) -> np.ndarray:
    """1.0 where a numeric label holds its second value, 0.0 where the first, NaN where missing."""
    y = (values == second).astype(np.float64)
    y[np.isnan(values)] = np.nan
    return y


def _label_numbers(levels: tuple[str, str]) -> tuple[float, float] | None:
    """A numeric label's two values as numbers (:func:`numeric_label` writes them as whole numbers);
    None for a text target's, none of whose values pandas reads as a number (:func:`is_text_target`),
    so none is written as one ("1_000", which Python's float would read, is text)."""
    if not all(_WHOLE_NUMBER.fullmatch(v) for v in levels):
        return None
    return float(levels[0]), float(levels[1])


def numeric_label_levels(levels: Sequence[str]) -> bool:
    """Whether a dataset's ``target_levels`` are two whole numbers (:func:`numeric_label`), not text."""
    return len(levels) == 2 and _label_numbers((levels[0], levels[1])) is not None


def target_values(
    frame: pd.DataFrame, target: str, levels: tuple[str, str] | None, offset: int | None = None
) -> np.ndarray:
    """y: the target's numbers, checked; or, for a label (``levels``: a text target's two values, or
    two whole numbers, :func:`target_of`), 1.0 where the row holds the second value and 0.0
    where it holds the first. NaN where the target is missing (a row the dataset leaves out,
    :func:`kept_rows`)."""
    if levels is None:
        return _numeric(frame, target, "target", offset)
    numbers = _label_numbers(levels)
    if numbers is not None:
        return _as_label(_numeric(frame, target, "target", offset), numbers[1])
    y = (frame[target].astype(str).to_numpy() == levels[1]).astype(np.float64)
    y[frame[target].isna().to_numpy()] = np.nan
    return y


def text_columns(
    frame: pd.DataFrame, candidates: Sequence[str], offset: int = 0
) -> tuple[list[str], dict[str, str], dict[str, str]]:
    """The candidate feature columns that hold text; those that hold neither numbers nor text, each
    with why; and the text columns that mix numbers and words, each with its first word (a
    category such as "7+" beside "1" and "2", or a stray word: as text, it is encoded or left out
    with why). A text column whose every cell reads as a number (codes typed as text in Parquet) is
    text; numbers beside missing-value markers (:data:`MISSING_MARKERS`) are numbers with gaps."""
    text: list[str] = []
    other: dict[str, str] = {}
    mixed: dict[str, str] = {}
    for c in candidates:
        kind, why = column_kind(frame[c])
        if kind == "other":
            other[c] = why
        elif kind == "text" and not numbers_with_markers(frame[c]):
            numbers, words = number_and_text_cells(frame[c])
            if numbers and words:
                mixed[c] = _text_cell(frame[c], offset)
            text.append(c)
    return text, other, mixed


def check_features(plan: encoding.Columns, target: str) -> list[str]:
    """The planned feature names, checked: at least one, and names a dataset may have."""
    feature_names = plan.feature_names
    if not feature_names:
        why = "; ".join(f"column {c!r} {reason}" for c, reason in plan.left_out)
        raise InvalidDataError(
            f"no feature columns found (numeric, true/false, or text of 2 to {encoding.MAX_LEVELS} values)"
            + (f": {why}; list the features to use one" if why else ""),
            field="features",
        )
    _check_names(feature_names, target)
    return feature_names


def feature_matrix(
    frame: pd.DataFrame, plan: encoding.Columns, offset: int | None = None, kept: np.ndarray | None = None
) -> np.ndarray:
    """X (n, p) float64 in Fortran order: each numeric column checked (finite, bounded), filled
    where the plan says so, each text column's indicators. ``offset``: the frame is a part of the
    file after that many data rows; ``kept``: the rows the dataset keeps, where a missing cell of a
    column the plan does not fill is :class:`UnplannedMissing` (on the others X holds NaN there)."""
    n = len(frame)
    X = np.empty((n, len(plan.feature_names)), dtype=np.float64, order="F")
    j = 0
    for source in plan.sources:
        if isinstance(source, encoding.OneHot):
            k = len(source.names)
            X[:, j : j + k] = source.encode(frame[source.column])
        elif isinstance(source, encoding.Filled):
            k = 2
            X[:, j : j + k] = source.encode(_numeric(frame, source.column, f"file.{source.column}", offset))
        else:
            k = 1
            X[:, j] = values = _numeric(frame, source, f"file.{source}", offset)
            absent = np.isnan(values) if kept is None else np.isnan(values) & kept
            if absent.any():
                raise UnplannedMissing(source)
        j += k
    return X


def choose_features(
    frame: pd.DataFrame, *, target: str, environment: str, features: Sequence[str] | None
) -> list[str]:
    """The candidate feature columns of a decoded frame (str column names, formulas checked):
    ``features`` checked against it, or every column besides target and environment (which of them
    are text, and how each is encoded, :mod:`encoding` decides)."""
    columns = list(frame.columns)
    if target not in columns:
        raise InvalidDataError(f"target column {target!r} not found; columns are {columns}", field="target")
    if environment not in columns:
        raise InvalidDataError(
            f"environment column {environment!r} not found; columns are {columns}", field="environment"
        )
    if target == environment:
        raise InvalidDataError("target and environment must be different columns", field="environment")
    if len(frame) == 0:
        raise InvalidDataError("the file has no rows", field="file")
    if features is None:
        feature_names = [c for c in columns if c not in (target, environment)]
    else:
        feature_names = list(features)
        if not feature_names:
            raise InvalidDataError("features must name at least one column", field="features")
        missing = [f for f in feature_names if f not in columns]
        if missing:
            raise InvalidDataError(f"feature column(s) {missing} not found", field="features")
        if target in feature_names or environment in feature_names:
            raise InvalidDataError(
                "features must not include the target or environment column", field="features"
            )
        if len(set(feature_names)) != len(feature_names):
            raise InvalidDataError("features lists a column twice", field="features")
    return feature_names
