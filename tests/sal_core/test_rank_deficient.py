"""Training rows that cannot identify every coefficient (a covariate constant on them, or one that is
a combination of others, as a one-hot column left in with its siblings or a sample that misses a
rare category): ERM and IRM fit them with the minimum-norm least-squares solution instead of
failing on a singular solve, and full-rank rows keep the direct solve's answer."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from sal_core import Environment, get_algorithm
from sal_core.metrics import evaluate
from sal_core.optim import least_squares, solve_or_min_norm


def rank_deficient_environments(seed: int) -> list[Environment]:
    rng = np.random.default_rng(seed)
    out = []
    for name, n in (("a", 300), ("b", 200)):
        X = rng.normal(size=(n, 5))
        X[:, 2] = 1.5  # constant on the training rows
        X[:, 3] = 2.0 * X[:, 0]  # a copy of x0, scaled
        y = X[:, 0] - X[:, 1] + 0.5 * X[:, 4] + rng.normal(scale=0.1, size=n)
        out.append(Environment(name, X, y))
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_erm_fits_rank_deficient_rows_as_lstsq_does(seed: int) -> None:
    envs = rank_deficient_environments(seed)
    fit = get_algorithm("erm")().fit(envs)
    X = np.concatenate([e.X for e in envs])
    y = np.concatenate([e.y for e in envs])
    design = np.column_stack([np.ones(len(y)), X])
    reference, *_ = np.linalg.lstsq(design, y, rcond=None)
    np.testing.assert_allclose(fit.predict(X), design @ reference, rtol=1e-9, atol=1e-9)  # same fitted values
    coef = fit.coefficients_original
    assert coef is not None and np.all(np.isfinite(coef))
    assert abs(coef[2]) < 1e-9  # a covariate that never varies gets no weight
    assert coef[0] + 2.0 * coef[3] == pytest.approx(1.0, abs=0.05)  # x0 and its copy share x0's effect
    assert coef[1] == pytest.approx(-1.0, abs=0.05) and coef[4] == pytest.approx(0.5, abs=0.05)


@pytest.mark.parametrize("name", ["irm", "sal"])
def test_the_other_linear_fits_take_rank_deficient_rows(name: str) -> None:
    envs = rank_deficient_environments(3)
    fit = get_algorithm(name)().fit(envs)
    coef = fit.coefficients_original
    assert coef is not None and np.all(np.isfinite(coef))
    assert coef[1] == pytest.approx(-1.0, abs=0.1)


def test_full_rank_rows_keep_the_direct_solve() -> None:
    rng = np.random.default_rng(4)
    Z = torch.as_tensor(rng.normal(size=(400, 6)))
    y = torch.as_tensor(rng.normal(size=400))
    theta, _ = least_squares(Z, y)
    Zc = Z - Z.mean(0)
    direct = torch.linalg.solve(Zc.T @ Zc / 400, Zc.T @ (y - y.mean()) / 400)
    assert torch.equal(theta, direct)


def test_a_singular_system_gets_its_minimum_norm_solution() -> None:
    gram = torch.tensor([[1.0, 1.0], [1.0, 1.0]], dtype=torch.float64)
    rhs = torch.tensor([2.0, 2.0], dtype=torch.float64)
    np.testing.assert_allclose(solve_or_min_norm(gram, rhs).numpy(), [1.0, 1.0], rtol=1e-12)


def test_several_right_hand_sides_at_once() -> None:
    gram = torch.tensor([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 2.0]], dtype=torch.float64)
    rhs = torch.tensor([[2.0, 0.0], [2.0, 0.0], [0.0, 4.0]], dtype=torch.float64)
    expected = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
    np.testing.assert_allclose(solve_or_min_norm(gram, rhs).numpy(), expected, atol=1e-12)
    np.testing.assert_allclose(solve_or_min_norm(gram + torch.eye(3, dtype=torch.float64), rhs).numpy(),
                               np.linalg.solve(gram.numpy() + np.eye(3), rhs.numpy()), rtol=1e-12)  # fmt: skip


def more_covariates_than_rows(seed: int) -> tuple[list[Environment], list[Environment]]:
    rng = np.random.default_rng(seed)
    beta = rng.normal(size=80)

    def env(name: str, n: int) -> Environment:
        X = rng.normal(size=(n, 80))
        return Environment(name, X, X @ beta + rng.normal(size=n))

    return [env("a", 40), env("b", 30)], [env("t", 300)]


def test_the_noise_estimate_counts_degrees_of_freedom_and_never_collapses() -> None:
    """λ's unit: σ̂² = RSS / (n − rank − 1) with rows to spare (as numpy's lstsq gives it), the
    null model's MSE where the covariates are as many as the rows (the training MSE is 0 there)."""
    from sal_core.exact_selection import noise_variance
    from sal_core.robust_linear import Moments

    rng = np.random.default_rng(0)
    for n, p in ((200, 5), (60, 40), (40, 80)):
        z = rng.normal(size=(n, p))
        y = z[:, 0] + rng.normal(size=n)
        z, y = z - z.mean(0), y - y.mean()
        m = Moments(z.T @ z / n, z.T @ y / n, float(y @ y / n), (z.T @ z / n)[None], (z.T @ y / n)[None],
                    np.array([y @ y / n]))  # fmt: skip
        rank = np.linalg.matrix_rank(z)
        rss = float(np.sum((y - z @ np.linalg.lstsq(z, y, rcond=None)[0]) ** 2))
        expected = min(rss / (n - rank - 1), float(y @ y / n)) if n - rank - 1 >= 1 else float(y @ y / n)
        assert noise_variance(m, n) == pytest.approx(expected, rel=1e-8)
        assert noise_variance(m, n) > 1e-3


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sal_with_more_covariates_than_rows_stays_near_erm(seed: int) -> None:
    """80 covariates, 70 training rows. The grid's unit was the training MSE, 0 here, so every λ
    collapsed to 10⁻¹²; and the adversary switched off was a ridge step at a tiny μ on a singular
    G, whose θ was rounding: SAL's test error was 1.7-2.3 × ERM's on seeds 0-5. Now the ERM
    candidate is ERM's minimum-norm fit, the scores are finite, and SAL where it keeps ERM is ERM."""
    train, test = more_covariates_than_rows(seed)
    sal = get_algorithm("sal")().fit(train)
    erm = get_algorithm("erm")().fit(train)
    selection = sal.selection.lambda_  # type: ignore[union-attr]
    assert selection is not None and selection.base > 1e-3
    assert all(np.isfinite(c.score) for c in selection.candidates)
    off = selection.candidates[-1]
    assert off.relative is None and off.score < 2.0 * min(c.score for c in selection.candidates)
    sal_error = evaluate(sal.model, test)[1].mean_error
    erm_error = evaluate(erm.model, test)[1].mean_error
    assert sal_error <= 1.3 * erm_error, (sal_error, erm_error, selection.reason)
    if selection.chosen == len(selection.candidates) - 1:
        np.testing.assert_allclose(sal.predict(test[0].X), erm.predict(test[0].X), rtol=1e-6, atol=1e-6)
