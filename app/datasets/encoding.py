"""Text columns as features: a column of a few named values (a region, a sex, a kind of job) becomes
one indicator column per value but one, as the real tables the defaults were judged on encode them
(``pandas.get_dummies(drop_first=True)``, docs/sal.md).

A text column with 2 to :data:`MAX_LEVELS` distinct values (:data:`MAX_LISTED_LEVELS` where the
uploader lists it in ``features``; a missing cell counts as one more value) is one-hot encoded:
its values sorted, the first is the reference (no column of its own, the intercept carries it) and
each other value ``v`` is a feature ``"<column>=<v>"``, 1.0 on its rows and 0.0 elsewhere. Where
cells are missing, a last feature ``"<column> is missing"`` marks their rows. Any other text column
is left out, and the upload says why (one value, too many); a column the uploader lists in
``features`` is encoded or refused with a 422 naming it, never left out.

A numeric column with missing cells keeps every row (:class:`Filled`): a missing cell is filled
with the mean of the column's present cells, and a feature ``"<column> is missing"`` after it is
1.0 on those rows, so a linear model learns its own value for them (the indicator's coefficient)
and the fill only sets where the column's scale is measured from (what scikit-learn's
``SimpleImputer(add_indicator=True)`` does). The mean is summed in fixed blocks of rows in the
file's order (:class:`Mean`), so it is the same number whichever way the file was read. A row
whose target is missing is left out: it has nothing to learn from (the upload counts them).

A column of numbers and words is text (a category written with digits: "1", "2", "3+"), and the
upload names its first word; numbers beside missing-value markers alone ("." or "?") are numbers
with gaps (``tables.MISSING_MARKERS``). A value the dataset stores (a one-hot level, a label) may not
be a spreadsheet formula (:func:`check_value`); cells of columns left out are never stored.

A column named as a row index (:data:`ROW_INDEX_NAMES`: R's ``rownames``, the unnamed first column
that ``write.csv`` or pandas' ``to_csv`` writes for a frame's index) is left out unless listed: its
values label the file's rows, and a model that used them would learn the file's order (where a file
is sorted by its target, as many are, the row number alone predicts it in the file and nowhere else).

A text target of exactly two values is a binary label: its values sorted, the first is read as 0
and the second as 1 (``"<=50K"`` and ``">50K"``: 0 and 1), and the upload says so.

The levels are those of the whole file: :func:`tables.from_frame` reads them from the frame, the
streaming parser from a first pass over the text columns, so both give the same features and the
same content id.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from sal_core import InvalidDataError

__all__ = [
    "FORMULA_STARTS",
    "MAX_LEVELS",
    "ROW_INDEX_NAMES",
    "Columns",
    "Filled",
    "Levels",
    "Mean",
    "OneHot",
    "binary_target",
    "check_value",
    "looks_like_formula",
    "missing_name",
    "plan",
]

MAX_LEVELS = 32
"""Most distinct values a text column may have to be one-hot encoded: more is an identifier or free
text far more often than a category (and 31 indicator columns already widen the fit). The 52 text
columns the real-table benches encode have at most 28 values (a city), so every one of them is
encoded here as it was there."""

MAX_LISTED_LEVELS = 256
"""Most distinct values of a text column the uploader lists in ``features``: naming it says it is a
category (a US state, a product line), so it is encoded past :data:`MAX_LEVELS`."""


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""A text cell starting with one of these is a formula to a spreadsheet that opens an export of it
(CSV injection); numbers like "-1.5" are not text, and a cell of dashes alone ("-", a common
placeholder) calls nothing."""

ROW_INDEX_NAMES = frozenset({"rownames", "Unnamed: 0", "", "...1"})
"""Column names that say a column is a row index, not a measurement: Rdatasets' ``rownames``, the
empty header R's ``write.csv`` writes over row names (and pandas' ``to_csv`` over its index), which
pandas reads as ``Unnamed: 0`` and readr as ``...1``."""

ROW_INDEX_WHY = (
    "is named as a row index (R's row names, or a frame's index written to the file): it labels the "
    "file's rows, and a model that used it would learn their order"
)

MEAN_BLOCK_ROWS = 1 << 14
"""A fill's mean sums present cells this many at a time, in the file's order (:class:`Mean`)."""


def looks_like_formula(value: object) -> bool:
    """A text a spreadsheet would run as a formula (:data:`FORMULA_STARTS`)."""
    if not isinstance(value, str) or not value.startswith(FORMULA_STARTS) or not value.strip("-"):
        return False
    try:
        float(value)
    except ValueError:
        return True
    return False


def check_value(column: str, value: str, field: str) -> None:
    """A value the dataset stores (a one-hot level, a label): no NUL character (PostgreSQL cannot
    store one) and not a spreadsheet formula; a 422 naming ``field`` else. Cells of columns left
    out are never stored, so they are not checked."""
    if "\x00" in value:
        raise InvalidDataError(f"column {column!r} has a value with the NUL character (\\u0000)", field=field)
    if looks_like_formula(value):
        raise InvalidDataError(
            f"column {column!r} has a value that looks like a spreadsheet formula ({value[:40]!r}); "
            "remove it or quote it without the leading =, +, -, @",
            field=field,
        )


def missing_name(column: str) -> str:
    """The feature that marks a column's missing cells."""
    return f"{column} is missing"


@dataclass(frozen=True)
class OneHot:
    """A text column's indicator features: ``levels`` sorted, ``levels[0]`` the reference; with
    ``missing``, one more that marks the rows whose cell is missing."""

    column: str
    levels: tuple[str, ...]
    missing: bool = False

    @property
    def names(self) -> tuple[str, ...]:
        names = tuple(f"{self.column}={v}" for v in self.levels[1:])
        return (*names, missing_name(self.column)) if self.missing else names

    def encode(self, series: pd.Series) -> np.ndarray:
        """(n, len(names)) float64 indicators of ``series``'s values; its values are levels or
        missing (the plan read them from the same rows)."""
        absent = series.isna().to_numpy()
        values = series.astype(str).to_numpy()
        ind = (values[:, None] == np.asarray(self.levels[1:], dtype=object)[None, :]) & ~absent[:, None]
        if self.missing:
            ind = np.column_stack([ind, absent])
        return ind.astype(np.float64)


@dataclass(frozen=True)
class Filled:
    """A numeric column with ``missing`` empty cells among the rows kept: each filled with ``fill``
    (the mean of its present cells), and a feature :func:`missing_name` after it marking them."""

    column: str
    fill: float
    missing: int

    @property
    def names(self) -> tuple[str, str]:
        return self.column, missing_name(self.column)

    def encode(self, values: np.ndarray) -> np.ndarray:
        """(n, 2): the column with its missing cells filled, and the indicator of them."""
        absent = np.isnan(values)
        return np.column_stack([np.where(absent, self.fill, values), absent.astype(np.float64)])


@dataclass
class Mean:
    """A numeric column's missing cells and the mean of its present ones, over a pass of chunks:
    present cells are summed :data:`MEAN_BLOCK_ROWS` at a time in the file's order, so the mean is
    bit for bit the same however the rows were chunked (the content id depends on it)."""

    missing: int = 0
    count: int = 0
    total: float = 0.0
    _rest: np.ndarray = field(default_factory=lambda: np.empty(0))

    def add(self, values: np.ndarray) -> None:
        absent = np.isnan(values)
        self.missing += int(absent.sum())
        present = values[~absent]
        if self._rest.size:
            present = np.concatenate([self._rest, present])
        full = len(present) // MEAN_BLOCK_ROWS * MEAN_BLOCK_ROWS
        for start in range(0, full, MEAN_BLOCK_ROWS):
            self.total += float(np.sum(np.ascontiguousarray(present[start : start + MEAN_BLOCK_ROWS])))
        self.count += full
        self._rest = np.array(present[full:])

    @property
    def present(self) -> int:
        return self.count + len(self._rest)

    @property
    def value(self) -> float:
        n = self.present
        return (self.total + float(np.sum(self._rest))) / n if n else 0.0


@dataclass
class Levels:
    """A text column's distinct values so far (at most ``MAX_LISTED_LEVELS + 1`` kept) and whether a
    cell was missing: what a pass over the file's chunks learns of it."""

    values: set[str] = field(default_factory=set)
    missing: bool = False

    def add(self, series: pd.Series) -> None:
        present = series.dropna()
        self.missing = self.missing or len(present) < len(series)
        room = MAX_LISTED_LEVELS + 1 - len(self.values)  # enough to tell "too many" from the most allowed
        if room > 0:
            self.values.update(str(v) for v in present.unique()[: room + len(self.values)])

    @classmethod
    def of(cls, series: pd.Series) -> Levels:
        levels = cls()
        levels.add(series)
        return levels

    def why_not(self, listed: bool = False) -> str | None:
        """Why the column cannot be one-hot encoded (``listed``: the uploader named it in
        ``features``); None where it can. A missing cell counts as a value of its own."""
        if len(self.values) + self.missing < 2:
            return "holds one value"
        if len(self.values) > MAX_LISTED_LEVELS:
            return f"has more than {MAX_LISTED_LEVELS} distinct values"
        if len(self.values) > MAX_LEVELS and not listed:
            return (
                f"has {len(self.values)} distinct values, more than the {MAX_LEVELS} encoded unless it is "
                f"listed in features (up to {MAX_LISTED_LEVELS})"
            )
        return None


@dataclass(frozen=True)
class Columns:
    """What the features are made of, in the file's column order: a numeric column by name, or a
    text column's :class:`OneHot`; and the text columns left out, each with why."""

    sources: tuple[str | OneHot | Filled, ...]
    left_out: tuple[tuple[str, str], ...] = ()
    # The encoded text columns that mix numbers and words, each with its first word (said back).
    mixed: tuple[tuple[str, str], ...] = ()

    @property
    def feature_names(self) -> list[str]:
        names: list[str] = []
        for source in self.sources:
            names.extend((source,) if isinstance(source, str) else source.names)
        return names

    @property
    def encoded(self) -> tuple[OneHot, ...]:
        return tuple(s for s in self.sources if isinstance(s, OneHot))

    @property
    def filled(self) -> tuple[Filled, ...]:
        return tuple(s for s in self.sources if isinstance(s, Filled))


def plan(
    candidates: Sequence[str],
    text: Iterable[str],
    levels: dict[str, Levels],
    other: Mapping[str, str] | None = None,
    *,
    chosen: bool,
    means: Mapping[str, Mean] | None = None,
    mixed: Mapping[str, str] | None = None,
) -> Columns:
    """The features from the candidate columns (``text`` those that hold text, ``levels`` their
    values over the whole file; ``other`` those that hold neither numbers nor text, each with why;
    ``means`` what a pass read of numeric columns, where one did: those with missing cells are
    :class:`Filled`; ``mixed`` the text columns that mix numbers and words, each with its first
    word). ``chosen``: the uploader listed them, so a column that cannot be a feature is a 422 naming
    it rather than a column left out, and a row index (:data:`ROW_INDEX_NAMES`) is a feature as asked."""
    text = set(text)
    other = other or {}
    means = means or {}
    mixed = mixed or {}
    sources: list[str | OneHot | Filled] = []
    left_out: list[tuple[str, str]] = []
    for column in candidates:
        if column in ROW_INDEX_NAMES and not chosen:
            left_out.append((column, ROW_INDEX_WHY))
            continue
        if column in other:
            if chosen:
                raise InvalidDataError(f"column {column!r} {other[column]}", field=f"file.{column}")
            left_out.append((column, other[column]))
            continue
        if column not in text:
            mean = means.get(column)
            if mean is not None and mean.present == 0:
                if chosen:
                    raise InvalidDataError(
                        f"column {column!r} has no value in any row", field=f"file.{column}"
                    )
                left_out.append((column, "has no value in any row"))
            elif mean is not None and mean.missing:
                sources.append(Filled(column, mean.value, mean.missing))
            else:
                sources.append(column)
            continue
        why = levels[column].why_not(listed=chosen)
        if why is None:
            for value in sorted(levels[column].values):
                check_value(column, value, f"file.{column}")
            sources.append(OneHot(column, tuple(sorted(levels[column].values)), levels[column].missing))
        else:
            kind = (
                f"mixes numbers and words{mixed[column]}, and as text {why}"
                if column in mixed
                else f"is text and {why}"
            )
            if chosen:
                raise InvalidDataError(
                    f"column {column!r} {kind}; a listed text column is encoded when it has 2 "
                    f"to {MAX_LISTED_LEVELS} values (a missing cell counts as one)",
                    field=f"file.{column}",
                )
            left_out.append((column, kind))
    encoded = {s.column for s in sources if isinstance(s, OneHot)}
    return Columns(tuple(sources), tuple(left_out), tuple((c, w) for c, w in mixed.items() if c in encoded))


def binary_target(target: str, levels: Levels) -> tuple[str, str]:
    """A text target's two values, sorted: the first read as 0, the second as 1; a 422 naming the
    target where it has not exactly two values (rows whose target is missing are left out)."""
    if len(levels.values) != 2:
        count = "one value" if len(levels.values) < 2 else "more than two values"
        raise InvalidDataError(
            f"target column {target!r} is text with {count}; a text target needs exactly two (the "
            "first in sorted order read as 0, the other as 1), else numbers",
            field="target",
        )
    first, second = sorted(levels.values)
    for value in (first, second):
        check_value(target, value, "target")
    return first, second
