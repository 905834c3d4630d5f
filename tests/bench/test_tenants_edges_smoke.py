"""bench.tenants_edges runs and reports on SQLite (the revocation and origin parts; erasure needs a
worker and is what tests/app/test_tenants_erase.py checks). No timing is asserted: the bench prints it."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import tenants_edges

pytestmark = [pytest.mark.slow]


def test_revocation_and_origin_on_sqlite(tmp_path: Path) -> None:
    rows = dict(tenants_edges.run(tmp_path, None, None, {"revocation", "origin"}, ["sqlite"]))
    revocation = rows["revocation, sqlite: a revoked key's open event stream"]
    assert revocation.startswith("closed ") and revocation.endswith("the key's next request: 401"), revocation
    (origin,) = (v for k, v in rows.items() if k.startswith("origin, "))
    assert origin.startswith("403 / 403 / 400; datasets stored by them: 0") and origin.endswith(": 201"), (
        origin
    )
