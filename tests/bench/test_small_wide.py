"""bench.small_wide: the scoreboard's regression tables cut to few rows per training environment,
so that no slopes test runs; a unit records SAL at defaults, the baseline SAL and ERM on the same
rows, and the report reads only the fits with no test. No measured figure is asserted (they live in
docs/sal.md, "More folds where no slopes test runs")."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from bench import real_dev as rd
from bench import small_wide as sw
from sal_core.data import Environment


def _envs(sizes: tuple[int, ...], p: int) -> list[Environment]:
    rng = np.random.default_rng(0)
    return [
        Environment(f"e{i}", rng.standard_normal((n, p)), rng.standard_normal(n)) for i, n in enumerate(sizes)
    ]


def test_the_cuts_keep_p_plus_one_or_about_half_and_never_more_than_there_are() -> None:
    envs = _envs((50, 7, 30), p=9)
    assert [e.n_rows for e in sw.few_rows(envs, 200)] == [10, 7, 10]
    assert [e.n_rows for e in sw.few_rows(envs, 200, "half")] == [5, 5, 5]
    assert [e.n_rows for e in sw.few_rows(_envs((50,), p=30), 200, "half")] == [15]
    a, b = sw.few_rows(envs, 200)[0], sw.few_rows(envs, 201)[0]
    assert not np.array_equal(a.y, b.y)  # a draw per seed
    np.testing.assert_array_equal(a.y, sw.few_rows(envs, 200)[0].y)  # the same draw again


def _record(name: str, seed: int, sal: float, base: float, tested: bool = False) -> dict[str, object]:
    return {
        "name": name,
        "reverse": False,
        "seed": seed,
        "p": 9,
        "tested": tested,
        "sal": sal,
        "base": base,
        "erm": 1.0,
    }


def test_the_report_reads_only_fits_with_no_test_and_counts_both_sals() -> None:
    records = [_record("a", s, r, 1.0) for s, r in zip((200, 201), (0.9, 1.0), strict=True)]
    records += [_record("b", s, 1.0, r) for s, r in zip((200, 201), (1.02, 1.08), strict=True)]
    records += [_record("c", 200, 2.0, 2.0, tested=True)]
    text = sw.report(records)
    assert "| a | forward | 9 | 0.9500 (1.0000) | 1.0000 (1.0000) |" in text
    assert "| b | forward | 9 | 1.0000 (1.0000) | **1.0500 (1.0800)** |" in text
    assert "| c |" not in text
    assert "no slopes test: 2 (1 others had one)" in text
    assert "defaults **2 of 2**, baseline 1 of 2" in text
    assert "defaults better than the baseline on 3, worse on 0" in text


def test_a_unit_records_three_fits_on_rows_too_few_for_a_test(tmp_path: Path) -> None:
    try:
        units = [u for u in sw.units([200]) if u[0] == "mlb_teams" and not u[1]]
    except rd.DataUnavailable as err:
        pytest.skip(str(err))
    assert units == [("mlb_teams", False, 200)]
    out = tmp_path / "small.jsonl"
    sw.run(str(out), units, jobs=1, baseline={"folds_untested": 5})
    (record,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert record["tested"] is False and record["rows"] == [record["p"] + 1] * len(record["rows"])
    assert record["scoring"].startswith("10-fold")
    assert all(record[k] > 0 for k in ("sal", "base", "erm"))
    sw.run(str(out), units, jobs=1, baseline={"folds_untested": 5})
    assert len(out.read_text().splitlines()) == 1  # resumed: nothing left to run


def test_classification_units_are_the_classification_tables_and_a_one_label_draw_is_not_fitted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``--task classification``: the units are the scoreboard's classification tables of enough
    covariates; a draw whose rows hold one label is recorded untested and left out of the report."""
    try:
        units = sw.units([200], "classification")
    except rd.DataUnavailable as err:
        pytest.skip(str(err))
    assert units and all(rd.dataset(name).task == "classification" for name, _, _ in units)
    assert not set(units) & set(sw.units([200]))
    name, reverse, _ = units[0]
    data = rd.dataset(name, reverse)
    one_label = [Environment(e.name, e.X, np.zeros(e.n_rows)) for e in data.train]
    monkeypatch.setattr(sw, "few_rows", lambda envs, seed, cut="p+1": one_label)
    record = sw.run_unit(units[0], baseline={"selection_se": 2.0})
    assert record["tested"] is None and "sal" not in record
    text = sw.report([record, _record("a", 200, 0.9, 1.0)])
    assert "no slopes test: 1 (0 others had one)" in text


def test_classification_needs_a_baseline() -> None:
    with pytest.raises(SystemExit):
        sw.main(["run", "unused.jsonl", "--task", "classification"])
