"""Text columns as features: a column of a few named values (a region, a sex, a kind of job) becomes
one indicator column per value but one, as the real tables the defaults were judged on encode them
(``pandas.get_dummies(drop_first=True)``, docs/sal.md).

A text column with 2 to :data:`MAX_LEVELS` distinct values (:data:`MAX_LISTED_LEVELS` where the
uploader lists it in ``features``) and no missing cell is one-hot encoded:
its values sorted, the first is the reference (no column of its own, the intercept carries it) and
each other value ``v`` is a feature ``"<column>=<v>"``, 1.0 on its rows and 0.0 elsewhere. Any other
text column is left out, and the upload says why (one value, too many, missing cells); a column the
uploader lists in ``features`` is encoded or refused with a 422 naming it, never left out.

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

__all__ = ["MAX_LEVELS", "Columns", "Levels", "OneHot", "binary_target", "plan"]

MAX_LEVELS = 32
"""Most distinct values a text column may have to be one-hot encoded: more is an identifier or free
text far more often than a category (and 31 indicator columns already widen the fit). The 52 text
columns the real-table benches encode have at most 28 values (a city), so every one of them is
encoded here as it was there."""

MAX_LISTED_LEVELS = 256
"""Most distinct values of a text column the uploader lists in ``features``: naming it says it is a
category (a US state, a product line), so it is encoded past :data:`MAX_LEVELS`."""


@dataclass(frozen=True)
class OneHot:
    """A text column's indicator features: ``levels`` sorted, ``levels[0]`` the reference."""

    column: str
    levels: tuple[str, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(f"{self.column}={v}" for v in self.levels[1:])

    def encode(self, series: pd.Series) -> np.ndarray:
        """(n, len(levels) - 1) float64 indicators of ``series``'s values; its values are levels
        (the plan read them from the same rows)."""
        values = series.astype(str).to_numpy()
        return (values[:, None] == np.asarray(self.levels[1:], dtype=object)[None, :]).astype(np.float64)


@dataclass
class Levels:
    """A text column's distinct values so far (at most ``MAX_LEVELS + 1`` kept) and whether a cell
    was missing: what a pass over the file's chunks learns of it."""

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
        ``features``); None where it can."""
        if self.missing:
            return "has missing cells"
        if len(self.values) < 2:
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

    sources: tuple[str | OneHot, ...]
    left_out: tuple[tuple[str, str], ...] = ()

    @property
    def feature_names(self) -> list[str]:
        names: list[str] = []
        for source in self.sources:
            names.extend(source.names if isinstance(source, OneHot) else (source,))
        return names

    @property
    def encoded(self) -> tuple[OneHot, ...]:
        return tuple(s for s in self.sources if isinstance(s, OneHot))


def plan(
    candidates: Sequence[str],
    text: Iterable[str],
    levels: dict[str, Levels],
    other: Mapping[str, str] | None = None,
    *,
    chosen: bool,
) -> Columns:
    """The features from the candidate columns (``text`` those that hold text, ``levels`` their
    values over the whole file; ``other`` those that hold neither numbers nor text, each with why).
    ``chosen``: the uploader listed them, so a column that cannot be a feature is a 422 naming it
    rather than a column left out."""
    text = set(text)
    other = other or {}
    sources: list[str | OneHot] = []
    left_out: list[tuple[str, str]] = []
    for column in candidates:
        if column in other:
            if chosen:
                raise InvalidDataError(f"column {column!r} {other[column]}", field=f"file.{column}")
            left_out.append((column, other[column]))
            continue
        if column not in text:
            sources.append(column)
            continue
        why = levels[column].why_not(listed=chosen)
        if why is None:
            sources.append(OneHot(column, tuple(sorted(levels[column].values))))
        elif chosen:
            raise InvalidDataError(
                f"column {column!r} is text and {why}; a listed text column is encoded when it has 2 "
                f"to {MAX_LISTED_LEVELS} values and no missing cell",
                field=f"file.{column}",
            )
        else:
            left_out.append((column, f"is text and {why}"))
    return Columns(tuple(sources), tuple(left_out))


def binary_target(target: str, levels: Levels) -> tuple[str, str]:
    """A text target's two values, sorted: the first read as 0, the second as 1; a 422 naming the
    target where it has missing cells or not exactly two values."""
    if levels.missing:
        raise InvalidDataError(f"target column {target!r} is text with missing cells", field="target")
    if len(levels.values) != 2:
        count = "one value" if len(levels.values) < 2 else "more than two values"
        raise InvalidDataError(
            f"target column {target!r} is text with {count}; a text target needs exactly two (the "
            "first in sorted order read as 0, the other as 1), else numbers",
            field="target",
        )
    first, second = sorted(levels.values)
    return first, second
