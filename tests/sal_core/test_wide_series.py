"""The shift's series at μ's floor (more covariates than rows): its powers must not overflow.

Its plain powers A^-(k+1)b grew like μ^-k and overflowed there, and a zero coefficient turned them
into NaN: the robust candidates of rockArt (736 covariates, 46 training rows) dropped out silently.
At A's condition there, ~10¹², a Cholesky solve at that very μ is itself ~10⁻³ (of θ's largest
entry) from the exact interpolant (which the eigendecomposition's thin path reaches to 10⁻¹²), so
the series is held to what the direct solve reaches, not to rounding."""

from __future__ import annotations

import numpy as np
import pytest

from sal_core import exact_batch as eb
from tests.sal_core.exact_moments import interpolating_problem


def _interpolating_problem() -> tuple[eb.BatchMoments, np.ndarray, np.ndarray]:
    """30 rows, 700 covariates (the series' widest reach, 40 terms) and a λ no interpolant reaches:
    μ sits at its floor, where A⁻¹ is ~10¹² times wGw's scale and A^-40 b alone overflows."""
    return interpolating_problem(30, 700, seed=5)


CHOLESKY_AT_THE_FLOOR = 3e-3
"""How close to the interpolant (of its largest entry) a Cholesky solve at μ's floor comes here:
7.5·10⁻⁴ directly, 6.4·10⁻⁴ by the series, 1.1·10⁻³ compiled (2026-12-07)."""


def test_at_mus_floor_the_series_reaches_the_interpolant_without_overflow() -> None:
    bm, w, interpolant = _interpolating_problem()
    floor = eb.mu_floor(w * w * np.einsum("bii->bi", bm.gram))
    assert eb.shift_reuse(700) > 0.375  # the start below is reached by the series, not refactorised
    with np.errstate(over="raise", invalid="raise"):  # an overflow, or inf·0, fails the test
        step = eb.solve_theta(bm, w, np.array([1e6]), mu0=1.6 * floor)
    assert isinstance(step.factor, eb.CholFactor)
    assert step.mu[0] == pytest.approx(floor[0])
    direct = eb.solve_theta(bm, w, np.array([1e6]), mu0=floor)  # at the floor: no shift
    for theta in (step.theta[0], direct.theta[0]):
        np.testing.assert_allclose(
            theta, interpolant, rtol=0, atol=CHOLESKY_AT_THE_FLOOR * np.abs(interpolant).max()
        )


def test_the_compiled_theta_step_at_mus_floor_stays_finite() -> None:
    from sal_core import exact_compiled as ec

    bm, w, interpolant = _interpolating_problem()
    p = w.shape[1]
    floor = float(eb.mu_floor(w * w * np.einsum("bii->bi", bm.gram))[0])
    chol, powers, state, u = np.empty((p, p)), np.empty((eb.SHIFT_TERMS, p)), np.zeros(3), np.empty(p)
    b = w[0] * bm.cross[0]
    ok, mu, mse, kap = ec._theta_step(
        bm.gram[0], w[0], b, float(bm.yy[0]), 1e6, 1.6 * floor, chol, powers, state, u
    )
    assert ok and mu == pytest.approx(floor) and state[2] > 20  # the series ran, with many terms
    assert np.isfinite([mse, kap]).all()
    np.testing.assert_allclose(
        w[0] * u, interpolant, rtol=0, atol=CHOLESKY_AT_THE_FLOOR * np.abs(interpolant).max()
    )


def test_the_torch_theta_step_at_mus_floor_stays_finite() -> None:
    import torch

    from sal_core import exact_torch as et

    bm, w, interpolant = _interpolating_problem()
    floor = eb.mu_floor(w * w * np.einsum("bii->bi", bm.gram))
    dm = et.DeviceMoments.of(bm, torch.device("cpu"))
    step = et.solve_theta(
        dm, torch.as_tensor(w), torch.tensor([1e6], dtype=torch.float64), torch.as_tensor(1.6 * floor)
    )
    assert step.mu.item() == pytest.approx(floor[0])
    theta = step.theta.numpy()[0]
    np.testing.assert_allclose(
        theta, interpolant, rtol=0, atol=CHOLESKY_AT_THE_FLOOR * np.abs(interpolant).max()
    )
