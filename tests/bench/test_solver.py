"""bench.solver times the θ-step factorisations and the compiled round on the same batch and projects
the selection."""

from __future__ import annotations

import re

from bench import solver
from sal_core import exact_batch as eb


def test_the_report_times_every_factorisation_and_names_the_one_the_library_picks() -> None:
    thresholds = (eb.CHOLESKY_FROM_P, eb.INVERSE_BELOW_P)
    ps = [4, eb.CHOLESKY_FROM_P, eb.INVERSE_BELOW_P, 300]
    text = solver.report(ps, rounds=2, command="python -m bench.solver")
    rows = [line for line in text.splitlines() if re.match(r"\| \d+ \|", line)]
    assert [int(r.split("|")[1]) for r in rows] == ps
    assert eb.CHOLESKY_FROM_P < eb.INVERSE_BELOW_P < 300 < eb.COMPILED_BELOW_P
    for row in rows:  # numba is a dependency: the kernel runs at every p
        cells = [c.strip() for c in row.strip("|").split("|")]
        eigh, triangular, inverse, compiled = (float(c) for c in cells[2:6])
        ratio = float(cells[6].rstrip("×"))
        assert min(eigh, triangular, inverse, compiled) > 0
        assert abs(ratio - eigh / compiled) <= 0.05 * ratio
        assert cells[7] == "compiled" and float(cells[8]) > 0
    assert thresholds == (eb.CHOLESKY_FROM_P, eb.INVERSE_BELOW_P)  # the forced thresholds were restored
