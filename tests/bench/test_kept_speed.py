"""bench.kept_speed: SAL at defaults against score_all=True on real table-directions, the two fits
compared. No time is asserted (the figures live in docs/sal.md); what is checked is what a unit
records and that the report counts each group and names any fit that differs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import kept_speed as ks
from bench import real_dev as rd


def test_each_table_direction_once_on_its_first_seed() -> None:
    try:
        units = ks.first_seeds("dev", ["mpg", "cps1988"])
    except rd.DataUnavailable as err:
        pytest.skip(str(err))
    assert sorted(units) == [
        ("cps1988", False, 0),
        ("cps1988", True, 10),
        ("mpg", False, 0),
        ("mpg", True, 10),
    ]


def test_a_unit_where_erm_is_kept_and_one_where_it_is_not_record_the_same_fits(tmp_path: Path) -> None:
    try:
        rd.dataset("mpg")
        rd.dataset("cps1988")
    except rd.DataUnavailable as err:
        pytest.skip(str(err))
    out = tmp_path / "kept.jsonl"
    ks.run(str(out), [("mpg", False, 0), ("cps1988", False, 0)])
    kept, other = [json.loads(line) for line in out.read_text().splitlines()]
    assert kept["erm_kept"] and not other["erm_kept"]  # mpg's slopes look alike, CPS 1988's differ
    assert kept["same"] and other["same"]
    assert all(r["default_s"] > 0 and r["score_all_s"] > 0 for r in (kept, other))
    text = ks.report([kept, other], "cmd")
    assert "| regression | ERM kept | 1 |" in text and "| regression | elsewhere | 1 |" in text
    assert "Fits that differ: none (of 2)." in text
    assert "Fits that differ: mpg forward (of 2)." in ks.report([{**kept, "same": False}, other], "cmd")
