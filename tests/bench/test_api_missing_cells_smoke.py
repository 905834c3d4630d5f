"""bench.api_missing_cells against the embedded service: real files with gaps upload as they are (a
gap filled and marked, a row without a target or environment left out), and the models trained on
them predict every test row, gaps given as null. It asserts what the upload decided and that every
model scored its rows, not the errors (those are the bench's to report)."""

from __future__ import annotations

import math

import httpx
import pytest

from bench import api_missing_cells as amc
from bench import real_dev as rd

pytestmark = [pytest.mark.services, pytest.mark.slow]


def _table_or_skip(name: str) -> amc.GappyTable:
    try:
        return amc.TABLES[name]()
    except rd.DataUnavailable as err:
        pytest.skip(str(err))


def test_files_with_gaps_keep_their_rows_and_predict_every_test_row(embedded: str) -> None:
    titanic, slid = _table_or_skip("titanic"), _table_or_skip("slid")
    with httpx.Client(base_url=embedded, timeout=120) as client:
        rows = {(r.table, r.upload): r for t in (titanic, slid) for r in amc.measure(client, t)}
    # Titanic: a fifth of the ages missing; every passenger kept, the gap marked by a feature.
    raw, complete = rows["titanic", "raw"], rows["titanic", "complete rows"]
    assert raw.rows == len(titanic.frame) and complete.rows == len(titanic.complete) < raw.rows
    assert raw.p == complete.p + 1 and raw.metric == "error_rate"
    gaps = int(titanic.frame["age"].isna().sum())
    assert any(w.startswith(f"column 'age' is missing in {gaps} row(s)") for w in raw.warnings), raw.warnings
    # SLID: rows without a wage or a language are left out, and said to be.
    raw = rows["slid", "raw"]
    no_wage = int(slid.frame["log_wage"].isna().sum())
    assert raw.rows == len(slid.frame.dropna(subset=["log_wage", "language"]))
    assert f"the target 'log_wage' is missing in {no_wage} row(s); they are left out" in raw.warnings
    assert any("'education is missing'" in w for w in raw.warnings)
    for r in rows.values():
        assert math.isfinite(r.sal_complete) and math.isfinite(r.erm_complete)
        assert math.isfinite(r.sal_all) == (r.upload == "raw")
    text = amc.render(list(rows.values()), "python -m bench.api_missing_cells --test")
    assert f"| titanic | raw | {len(titanic.frame)} | 3 | error_rate |" in text
