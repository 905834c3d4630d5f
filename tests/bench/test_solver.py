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


def test_the_floor_report_prices_the_factorisation_against_the_round() -> None:
    text = solver.floor_report([16, 60], rounds=3, command="python -m bench.solver --floor")
    rows = [line for line in text.splitlines() if re.match(r"\| \d+ \|", line)]
    assert [int(r.split("|")[1]) for r in rows] == [16, 60]
    for row in rows:
        p = int(row.split("|")[1])
        factor, rate, round_, share, at_round, floor = (float(c) for c in row.strip("|").split("|")[1:])
        assert 0 < factor < round_  # the round holds a factorisation and more
        assert abs(share - factor / round_) <= 0.01 + 0.05 * share
        assert abs(rate - p**3 / 3 / (factor * 1e-3) / 1e9) <= 0.05 * rate  # p³/3 flops (p³/6 multiply-adds)
        path_rounds = (solver.SELECTION_PATHS + 1) * solver.SELECTION_ROUNDS
        assert abs(floor - factor * 1e-3 * path_rounds) <= 0.05 * floor
        assert abs(at_round - round_ * 1e-3 * path_rounds) <= 0.05 * at_round and floor < at_round
