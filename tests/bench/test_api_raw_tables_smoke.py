"""bench.api_raw_tables against the embedded service: raw real files (text columns, a yes/no label)
upload, encode and train at default parameters. It asserts what the upload and the job decided, not
the errors (those are the bench's to report)."""

from __future__ import annotations

import httpx
import pytest

from bench import api_raw_tables as art
from bench import real_dev as rd

pytestmark = [pytest.mark.services, pytest.mark.slow]


def _table_or_skip(name: str) -> art.RawTable:
    try:
        return art.TABLES[name]()
    except rd.DataUnavailable as err:
        pytest.skip(str(err))


def test_raw_files_train_on_their_encoded_columns(embedded: str) -> None:
    wage, hmda = _table_or_skip("wage"), _table_or_skip("hmda")
    with httpx.Client(base_url=embedded, timeout=120) as client:
        rows = {(r.table, r.features): r for t in (wage, hmda) for r in art.measure(client, t)}
    # Wage: age and six text columns, 14 indicators; a regression target.
    assert rows["wage", "text one-hot"].p == 15 and rows["wage", "numbers only"].p == 1
    assert {rows["wage", k].metric for k in ("text one-hot", "numbers only")} == {"rmse"}
    # HMDA: a yes/no label read as 0/1, so the job, given no task, classifies.
    one_hot = rows["hmda", "text one-hot"]
    assert one_hot.p == 6 + 5 and one_hot.metric == "error_rate"
    assert "the target 'deny' is text: 'no' is read as 0 and 'yes' as 1" in one_hot.warnings
    assert rows["hmda", "numbers only"].metric == "error_rate"
    text = art.render(list(rows.values()), "python -m bench.api_raw_tables --test")
    assert "| hmda | text one-hot | 11 | error_rate |" in text
