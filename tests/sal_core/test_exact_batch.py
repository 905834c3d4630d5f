"""The batched exact path agrees with the one-problem loop it replaces in lambda_='auto'."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from sal_core import exact_batch as eb
from sal_core import get_algorithm
from sal_core import robust_linear as rl
from sal_core.synthetic import anti_causal, selection_bias
from tests.sal_core.exact_moments import interpolating_problem, moments_of, stack


def test_a_batch_of_theta_steps_equals_the_single_steps() -> None:
    ms = [moments_of(selection_bias(r=1.7, n=500, seed=s, n_test=2).train) for s in range(3)]
    rng = np.random.default_rng(0)
    w = np.exp(rng.uniform(0, 2, size=(3, ms[0].gram.shape[0])))
    lam = np.array([0.01, 0.1, 1.0])
    batch = eb.solve_theta(stack(ms), w, lam)
    for i, m in enumerate(ms):
        one = rl.solve_theta(m, w[i], float(lam[i]))
        np.testing.assert_allclose(batch.theta[i], one.theta, rtol=1e-10, atol=1e-12)
        assert batch.mu[i] == pytest.approx(one.mu, rel=1e-10)


@pytest.mark.parametrize("compiled", [True, False])
def test_batched_w_paths_equal_the_loop_path_by_path(compiled: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if not compiled:
        monkeypatch.setattr(eb, "COMPILED_BELOW_P", 0)
    trains = [anti_causal(1, seed=0, n_test=2).train, selection_bias(r=1.7, n=800, seed=1, n_test=2).train]
    ms = [moments_of(t) for t in trains]
    ms = [ms[0], ms[0]]  # two λ on one problem, as lambda_='auto' stacks them
    lam = np.array([1e-3, 1e-1])
    settings = eb.PathSettings(rounds=60, lr=0.1, w_max=1e4, alpha=0.5, stability="std")
    out = eb.run_paths(stack(ms), lam, np.ones((2, ms[0].gram.shape[0])), settings, record=True)
    for i in range(2):
        fit = get_algorithm("sal")({"lambda_": float(lam[i]), "rounds": 60, "w_lr": 0.1}).fit(trains[0])
        assert fit.covariate_weights is not None
        np.testing.assert_allclose(np.log(out.w[i]), np.log(fit.covariate_weights), atol=1e-8)
        assert out.risks.shape == (60, 2) and out.ws.shape == (60, 2, ms[0].gram.shape[0])


def test_the_cholesky_theta_step_and_gradient_equal_the_eigendecomposition(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """From CHOLESKY_FROM_P covariates the θ-step factorises A = wGw + μI by Cholesky per Newton
    iterate (now: once per round, then by the shift); paths must not depend on which factorisation ran (within float rounding)."""
    m = moments_of(anti_causal(1, seed=3, n_test=2).train)
    bm = stack([m, m, m])
    p = m.gram.shape[0]
    lam = np.array([1e-3, 1e-2, 1e-1]) * float(m.yy)
    settings = eb.PathSettings(rounds=120, lr=0.1, w_max=1e4, alpha=0.5, stability="std")
    runs = {}
    for name, threshold in (("eigh", 10**9), ("cholesky", 1)):
        monkeypatch.setattr(eb, "CHOLESKY_FROM_P", threshold)
        step = eb.solve_theta(bm, np.exp(np.linspace(0.0, 5.0, p))[None].repeat(3, 0), lam)
        assert isinstance(step.factor, eb.CholFactor if name == "cholesky" else eb.EigFactor)
        runs[name] = (step, eb._run_paths_numpy(bm, lam, np.ones((3, p)), settings))
    (s_eig, p_eig), (s_chol, p_chol) = runs["eigh"], runs["cholesky"]
    np.testing.assert_allclose(s_chol.theta, s_eig.theta, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(s_chol.mu, s_eig.mu, rtol=1e-10)
    np.testing.assert_allclose(np.log(p_chol.w), np.log(p_eig.w), atol=1e-5)
    np.testing.assert_allclose(p_chol.theta, p_eig.theta, atol=1e-7)


def test_a_singular_gram_falls_back_from_cholesky_to_the_eigendecomposition(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two identical covariates under a huge w and a tiny μ: A is singular to working precision,
    Cholesky fails, and the eigendecomposition (which clips at 0) answers instead."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal(400)
    z = np.column_stack([x, x, rng.standard_normal(400)])
    y = x + 0.01 * rng.standard_normal(400)
    z, y = z - z.mean(0), y - y.mean()
    gram, cross, yy = z.T @ z / 400, z.T @ y / 400, float(y @ y / 400)
    bm = eb.BatchMoments(
        gram[None], cross[None], np.array([yy]), gram[None, None], cross[None, None], np.array([[yy]])
    )
    w = np.array([[1e4, 1e4, 1.0]])
    lam = np.array([1e12])
    monkeypatch.setattr(eb, "MU_FLOOR", 0.0)  # the floor keeps A factorisable (next test)
    monkeypatch.setattr(eb, "CHOLESKY_FROM_P", 1)
    step = eb.solve_theta(bm, w, lam)
    assert isinstance(step.factor, eb.EigFactor)
    monkeypatch.setattr(eb, "CHOLESKY_FROM_P", 10**9)
    np.testing.assert_allclose(step.theta, eb.solve_theta(bm, w, lam).theta)


@pytest.mark.parametrize("cholesky_from_p", [1, 10**9])
def test_where_the_fit_can_interpolate_theta_is_the_minimum_norm_interpolant(
    cholesky_from_p: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """More covariates than rows: MSE(μ) → 0 as μ → 0 and, at a λ above κ(0), the root is μ = 0.
    μ stops at its floor instead (A stays factorisable), where θ is the w-metric's minimum-norm
    interpolant to 10⁻⁴ (rounding in G's null space over a condition of 10¹²), by Cholesky and by the
    eigendecomposition alike; without the floor the
    eigendecomposition divided rounding in G's null space by ~0."""
    bm, w, interpolant = interpolating_problem(30, 45, seed=3)
    monkeypatch.setattr(eb, "CHOLESKY_FROM_P", cholesky_from_p)
    step = eb.solve_theta(bm, w, np.array([1e6]))
    assert step.mu[0] == pytest.approx(eb.MU_FLOOR * float((w[0] ** 2 * np.diag(bm.gram[0])).max()))
    np.testing.assert_allclose(step.theta[0], interpolant, rtol=0, atol=1e-4 * np.abs(interpolant).max())


@pytest.mark.parametrize("inverse_below_p", [1, 10**9])
@pytest.mark.parametrize("relative", [0.0, 1e-6, 3e-4, -8e-4])
def test_a_solve_by_the_shift_equals_a_solve_of_the_shifted_matrix(
    relative: float, inverse_below_p: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A θ-step factorises A once per round and reaches nearby μ through the Neumann series in the
    shift δ, solving by two triangular solves or (few covariates) by the explicit inverse: the
    answer must be the shifted matrix's own solve, to rounding, for shifts either way."""
    import torch

    monkeypatch.setattr(eb, "INVERSE_BELOW_P", inverse_below_p)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 40, 12))
    mu = np.array([0.05, 1.0, 3.0])
    a = x.transpose(0, 2, 1) @ x / 40 + mu[:, None, None] * np.eye(12)
    rhs = rng.standard_normal((3, 12, 3))
    base = eb.base_solve(torch.linalg.cholesky(torch.from_numpy(a)))
    for shift in (relative * mu, -0.5 * relative * mu):
        out = eb.CholFactor(base, shift, mu).solve(rhs)
        want = np.linalg.solve(a + shift[:, None, None] * np.eye(12), rhs)
        np.testing.assert_allclose(out, want, rtol=1e-11)


def test_mu_starts_from_the_last_rounds_and_never_far_from_the_last() -> None:
    assert eb.next_mu([]) is None
    np.testing.assert_allclose(eb.next_mu([np.array([2.0])]), [2.0])  # type: ignore[arg-type]
    smooth = [
        np.array([1.0]),
        np.array([1.1]),
        np.array([1.21]),
    ]  # geometric: the quadratic in log μ is exact
    np.testing.assert_allclose(eb.next_mu(smooth), [1.331], rtol=1e-12)  # type: ignore[arg-type]
    wild = [np.array([1.0]), np.array([10.0]), np.array([1000.0])]
    np.testing.assert_allclose(eb.next_mu(wild), [2000.0])  # type: ignore[arg-type]


@pytest.mark.parametrize("cholesky_from_p", [1, 10**9])
def test_the_batched_gradient_in_w_equals_the_single_problems_rank_two_hessian_solve(
    cholesky_from_p: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The batch's ∂R/∂w uses ∇M = −μ·∇κ on the ridge path (a rank-one Sherman–Morrison solve with
    the θ-step's own M and κ); it must equal robust_linear's full Hessian solve, per problem, under
    either factorisation, at weights far from 1 and λ from weak to strong."""
    monkeypatch.setattr(eb, "CHOLESKY_FROM_P", cholesky_from_p)
    ms = [moments_of(selection_bias(r=1.7, n=500, p=10, seed=s, n_test=2).train) for s in (2, 5)]
    ms = [ms[0], ms[1], ms[0]]
    bm = stack(ms)
    rng = np.random.default_rng(4)
    w = np.exp(rng.uniform(0.0, 4.0, size=(3, ms[0].gram.shape[0])))
    lam = np.array([1e-3, 1e-1, 10.0]) * bm.yy
    step = eb.solve_theta(bm, w, lam)
    losses = eb.env_losses(step.theta, bm)
    _, d_losses = eb.stability_risk(losses, 0.5, "std")
    grad_theta = 2.0 * np.einsum("be,bep->bp", d_losses, eb._env_gram_theta(step.theta, bm) - bm.env_cross)
    batched = eb.risk_grad_w(step, w, bm, lam, grad_theta)
    for i, m in enumerate(ms):
        _, grad_i, _ = rl.risk_and_grad_theta(step.theta[i], m, 0.5, "std")
        np.testing.assert_allclose(grad_theta[i], grad_i, rtol=1e-10, atol=1e-14)
        single = rl.risk_grad_w(step.theta[i], w[i], m, float(lam[i]), grad_i)
        np.testing.assert_allclose(batched[i], single, rtol=1e-7, atol=1e-10 * np.abs(single).max())


def _wide_batch(seed: int, n: int = 16, p: int = 70, e: int = 2) -> eb.BatchMoments:
    """Two problems with more covariates than rows, in two environments each (G of rank < n)."""
    rng = np.random.default_rng(seed)
    parts = []
    for _ in range(2):
        z = rng.standard_normal((n, p))
        y = z[:, :4] @ np.array([1.0, -2.0, 0.5, 1.5]) + 0.3 * rng.standard_normal(n)
        z, y = z - z.mean(0), y - y.mean()
        halves = np.array_split(np.arange(n), e)
        env_gram = np.stack([z[h].T @ z[h] / n for h in halves])
        env_cross = np.stack([z[h].T @ y[h] / n for h in halves])
        env_yy = np.array([y[h] @ y[h] / n for h in halves])
        parts.append((z.T @ z / n, z.T @ y / n, float(y @ y / n), env_gram, env_cross, env_yy))
    gram, cross, yy, env_gram, env_cross, env_yy = (
        np.stack([np.asarray(part[i]) for part in parts]) for i in range(6)
    )
    return eb.BatchMoments(gram, cross, yy, env_gram, env_cross, env_yy)


@pytest.mark.parametrize("lam_rel", [(1e-2, 1e2), (1e-4, 1e-3)])  # μ at its floor; μ of wGw's order
@pytest.mark.parametrize("seed", [0, 1])
def test_few_rows_decompose_wgw_in_gs_range_as_the_full_decomposition_does(
    seed: int, lam_rel: tuple[float, float], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where G's rank is under half of p, the eigendecomposition path works through the r × r matrix
    FW²Fᵀ: θ, μ, M and κ equal the p × p decomposition's to rounding, and so do the factor's solve
    and ∂R/∂w where μ is not at its floor (there A's condition, ~10¹², leaves the full decomposition's
    solve a percent from the exact one along G's null space, where the thin one is exact: A = μ)."""
    monkeypatch.setattr(eb, "CHOLESKY_FROM_P", 10**9)  # the eigendecomposition path, every p
    rng = np.random.default_rng(seed + 10)
    w = np.exp(rng.uniform(0.0, 4.0, size=(2, 70)))
    lam = np.array(lam_rel) * _wide_batch(seed).yy
    x = rng.standard_normal((2, 70, 2))
    results = {}
    for thin_rank in (0.25, 0.0):  # the default, then never thin
        monkeypatch.setattr(eb, "THIN_RANK", thin_rank)
        bm = _wide_batch(seed)  # a new batch: its root is computed once per batch
        step = eb.solve_theta(bm, w, lam)
        assert isinstance(step.factor, eb.EigFactor) and step.factor.thin == (thin_rank > 0)
        losses = eb.env_losses(step.theta, bm)
        _, d_losses = eb.stability_risk(losses, 0.5, "std")
        grad_theta = 2.0 * np.einsum(
            "be,bep->bp", d_losses, eb._env_gram_theta(step.theta, bm) - bm.env_cross
        )
        results[thin_rank] = (step, step.factor.solve(x), eb.risk_grad_w(step, w, bm, lam, grad_theta))
    (thin, thin_solve, thin_grad), (full, full_solve, full_grad) = results[0.25], results[0.0]
    assert thin.factor.eigval.shape[1] < 16 and full.factor.eigval.shape[1] == 70  # type: ignore[attr-defined]
    np.testing.assert_allclose(thin.theta, full.theta, rtol=0, atol=1e-8 * np.abs(full.theta).max())
    for name in ("mu", "kappa"):
        np.testing.assert_allclose(getattr(thin, name), getattr(full, name), rtol=1e-8)
    np.testing.assert_allclose(thin.mse, full.mse, rtol=1e-8, atol=1e-10 * float(_wide_batch(seed).yy.max()))
    if lam_rel[0] < 1e-3:
        np.testing.assert_allclose(thin_solve, full_solve, rtol=0, atol=1e-9 * np.abs(full_solve).max())
        np.testing.assert_allclose(thin_grad, full_grad, rtol=0, atol=1e-8 * np.abs(full_grad).max())


def test_few_rows_walk_the_same_w_paths_in_gs_range(monkeypatch: pytest.MonkeyPatch) -> None:
    """As where Cholesky fails (the eigendecomposition path from the first round): the first round
    forms wGw and finds G's rank low, the later ones skip it; the paths are the full path's."""
    monkeypatch.setattr(eb, "CHOLESKY_FROM_P", 10**9)
    settings = eb.PathSettings(rounds=60, lr=0.1, w_max=1e4, alpha=0.5, stability="std")
    paths = {}
    for thin_rank in (0.25, 0.0):
        monkeypatch.setattr(eb, "THIN_RANK", thin_rank)
        bm = _wide_batch(3)
        paths[thin_rank] = eb._run_paths_numpy(bm, np.array([0.1, 1.0]) * bm.yy, np.ones((2, 70)), settings)
        assert bm.low_rank_known == (thin_rank > 0)
    np.testing.assert_allclose(np.log(paths[0.25].w), np.log(paths[0.0].w), rtol=0, atol=1e-6)
    # θ at the last w inherits w's agreement: 10⁻⁶ of log w moves θ by about 10⁻⁶ of its size (at
    # 10⁻⁷ one coefficient of 140 missed by 6.5·10⁻⁸ against 6.1·10⁻⁸ on a loaded host, 2026-12-07)
    np.testing.assert_allclose(
        paths[0.25].theta, paths[0.0].theta, rtol=0, atol=1e-6 * np.abs(paths[0.0].theta).max()
    )


def test_a_batch_that_says_its_few_rows_walks_in_gs_range_from_the_first_round(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where the rows behind a batch are at most THIN_RANK of p (from THIN_FROM_P covariates), its
    paths run on the numpy path in G's range from round 1, never compiled, and walk the paths the
    compiled kernel's Cholesky steps walk (the batch of the same moments that does not say its rows)."""
    import dataclasses

    from sal_core import exact_compiled

    monkeypatch.setattr(eb, "THIN_FROM_P", 60)
    settings = eb.PathSettings(rounds=60, lr=0.1, w_max=1e4, alpha=0.5, stability="std")
    unsaid = _wide_batch(3)
    said = dataclasses.replace(_wide_batch(3), rows=16)
    assert said.few_rows and not unsaid.few_rows
    assert not dataclasses.replace(said, rows=18).few_rows  # 18 rows > a quarter of 70 covariates
    lam = np.array([1e-4, 1e-3]) * said.yy
    step = eb.solve_theta(said, np.ones((2, 70)), lam)
    assert isinstance(step.factor, eb.EigFactor) and step.factor.thin
    compiled_calls = []
    real = exact_compiled.run_paths

    def counted(*args: Any, **kwargs: Any) -> Any:
        compiled_calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(exact_compiled, "run_paths", counted)
    thin = eb.run_paths(said, lam, np.ones((2, 70)), settings)
    assert not compiled_calls
    kernel = eb.run_paths(unsaid, lam, np.ones((2, 70)), settings)
    assert compiled_calls == [1]
    np.testing.assert_allclose(np.log(thin.w), np.log(kernel.w), rtol=0, atol=1e-6)
    assert np.log(kernel.w).max() > 0.1  # the paths left w = 1
    # the paths end with μ at its floor, where the kernel's Cholesky solve is 2-3·10⁻⁴ (of θ's largest
    # entry) from the exact one that G's range gives (A's condition ~10¹²)
    np.testing.assert_allclose(thin.theta, kernel.theta, rtol=0, atol=1e-3 * np.abs(kernel.theta).max())


def test_a_default_fit_tells_its_batches_their_rows() -> None:
    """lambda_='auto' passes the most rows of a fold's complement with the fold batch, and all rows
    with the refit, so that a wide table of few rows takes G's range from the start."""
    from sal_core import exact_selection as es

    seen: list[tuple[int, int]] = []
    real = eb.run_paths

    def spy(m: eb.BatchMoments, *args: object, **kwargs: object) -> eb.PathResult:
        seen.append((m.size, m.rows))
        return real(m, *args, **kwargs)  # type: ignore[arg-type]

    rng = np.random.default_rng(0)
    envs = []
    for e, n in enumerate((23, 17)):
        x = rng.standard_normal((n, 12))
        y = x[:, 0] + (1.0 + e) * x[:, 1] + 0.3 * rng.standard_normal(n)
        envs.append(type(anti_causal(1, seed=0, n_test=2).train[0])(f"e{e}", x, y))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(es.eb, "run_paths", spy)
        get_algorithm("sal")({"erm_first": "never"}).fit(envs)
    assert seen and all(rows > 0 for _, rows in seen)
    fold_batch = seen[0]
    assert fold_batch[1] < 40 and fold_batch[1] >= 40 * 4 // 5 - 2  # a fold's complement: about 4/5 of 40
