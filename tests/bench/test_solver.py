"""bench.solver times both θ-step factorisations on the same batch and projects the selection."""

from __future__ import annotations

import re

from bench import solver
from sal_core import exact_batch as eb


def test_the_report_times_every_factorisation_and_names_the_one_the_library_picks() -> None:
    thresholds = (eb.CHOLESKY_FROM_P, eb.INVERSE_BELOW_P)
    ps = [4, eb.CHOLESKY_FROM_P, eb.INVERSE_BELOW_P]
    text = solver.report(ps, rounds=2, command="python -m bench.solver")
    rows = [line for line in text.splitlines() if re.match(r"\| \d+ \|", line)]
    assert [int(r.split("|")[1]) for r in rows] == ps
    picks = ("eigh", "Cholesky, inverse", "Cholesky, triangular")
    for row, picked, column in zip(rows, picks, (2, 4, 3), strict=True):
        cells = [c.strip() for c in row.strip("|").split("|")]
        eigh, triangular, inverse = (float(c) for c in cells[2:5])
        ratio = float(cells[5].rstrip("×"))
        assert min(eigh, triangular, inverse) > 0
        assert abs(ratio - eigh / float(cells[column])) <= 0.05 * ratio
        assert cells[6] == picked and float(cells[7]) > 0
    assert thresholds == (eb.CHOLESKY_FROM_P, eb.INVERSE_BELOW_P)  # the forced thresholds were restored
