"""bench.tenants' flood runs on SQLite (one API process, counts in memory) and reports: the flooding
tenant's 429s all carry Retry-After and RateLimit, and the polling tenant is never refused. No
timing is asserted: the bench prints it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bench import tenants

pytestmark = [pytest.mark.slow]


def test_the_flood_on_sqlite_refuses_the_flooder_only(tmp_path: Path) -> None:
    rows = dict(tenants.bench_flood(tmp_path, None, None, 3, 5, "4/second", ["sqlite"]))
    flooder = rows["flood, sqlite, limit 4/second: A's requests in 3 x 1 s"]
    limited = re.search(r"(\d+) x 429 \((\d+) with Retry-After, (\d+) with RateLimit\), 0 errors", flooder)
    assert limited is not None, flooder
    refused, with_retry_after, with_ratelimit = map(int, limited.groups())
    assert refused > 0 and with_retry_after == refused and with_ratelimit == refused, flooder
    assert " 0 x 429 " in rows["flood, sqlite, no limit: A's requests in 3 x 1 s"]
    for label in ("no limit", "limit 4/second"):
        quiet = rows[f"flood, sqlite, {label}: B's GET /jobs/{{id}} quiet p50 / p99"]
        assert re.search(r"B's statuses, both: \{'200': \d+\}\)$", quiet), quiet
