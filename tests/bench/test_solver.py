"""bench.solver times both θ-step factorisations on the same batch and projects the selection."""

from __future__ import annotations

import re

from bench import solver
from sal_core import exact_batch as eb


def test_the_report_times_both_factorisations_and_names_the_one_the_library_picks() -> None:
    threshold = eb.CHOLESKY_FROM_P
    text = solver.report([4, eb.CHOLESKY_FROM_P], rounds=2, command="python -m bench.solver")
    rows = [line for line in text.splitlines() if re.match(r"\| \d+ \|", line)]
    assert [int(r.split("|")[1]) for r in rows] == [4, eb.CHOLESKY_FROM_P]
    for row, picked in zip(rows, ("eigh", "cholesky"), strict=True):
        cells = [c.strip() for c in row.strip("|").split("|")]
        eigh, chol, ratio = float(cells[2]), float(cells[3]), float(cells[4].rstrip("×"))
        assert eigh > 0 and chol > 0 and abs(ratio - eigh / chol) <= 0.05 * ratio
        assert cells[5] == picked and float(cells[6]) > 0
    assert threshold == eb.CHOLESKY_FROM_P  # the forced threshold was restored
