"""Exact SAL/WDRL machinery for a linear model with squared loss, on sufficient statistics.

With squared loss the adversarial θ-objective is J(θ; w) = λ·MSE(θ) / (λ − κ(θ; w)), κ = Σ θ_d²/w_d².
Its stationary points satisfy ∇MSE + μ·∇κ = 0 with μ = MSE / (λ − κ), so the minimiser lies on the
generalised-ridge path θ(μ) = argmin MSE(θ) + μ Σ θ_d²/w_d² = (G + μ·diag(w⁻²))⁻¹ c. One symmetric
eigendecomposition of diag(w)·G·diag(w) gives θ(μ), MSE(μ) and κ(μ) for every μ in O(p), so the
exact θ-step is a one-dimensional search. ∂θ*/∂w then follows by implicit differentiation of
∇_θ J(θ*, w) = 0 with the closed-form Hessian below.

Everything here works on p×p moments in float64 numpy: after one O(n·p²) pass over the rows the
cost of a round no longer depends on n.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.float64]

MU_FLOOR = 1e-12
"""The θ-step's μ stays above this fraction of wGw's largest diagonal entry: where a fit can
interpolate (as many covariates as rows) the root is μ = 0 (`exact_batch.MU_FLOOR` says more)."""


@dataclass(frozen=True)
class Moments:
    """Second moments of centred, standardised data: pooled and per environment.

    ``gram`` (p, p) = mean z zᵀ, ``cross`` (p,) = mean z·ỹ, ``yy`` = mean ỹ² where ỹ = y − ȳ
    (the intercept is ȳ because z is centred on the pooled rows). ``env_*`` stack the same per
    environment, still centred on the pooled means, so L^e(θ) = yy_e − 2θᵀc_e + θᵀG_eθ exactly.
    """

    gram: Array
    cross: Array
    yy: float
    env_gram: Array  # (E, p, p)
    env_cross: Array  # (E, p)
    env_yy: Array  # (E,)

    @classmethod
    def of_environments(cls, env_gram: Array, env_cross: Array, env_yy: Array, rows: Array) -> Moments:
        """The per-environment moments with their pooled ones: each environment weighted by its rows."""
        weights = rows / rows.sum()
        return cls(
            gram=np.einsum("e,eij->ij", weights, env_gram),
            cross=weights @ env_cross,
            yy=float(weights @ env_yy),
            env_gram=env_gram,
            env_cross=env_cross,
            env_yy=env_yy,
        )


def mse(theta: Array, gram: Array, cross: Array, yy: float | Array) -> float | Array:
    return yy - 2.0 * theta @ cross + theta @ gram @ theta


def env_losses(theta: Array, m: Moments) -> Array:
    """L^e(θ) for every environment (E,)."""
    losses: Array = m.env_yy - 2.0 * m.env_cross @ theta + np.einsum("i,eij,j->e", theta, m.env_gram, theta)
    return losses


@dataclass(frozen=True)
class ThetaStep:
    theta: Array
    mu: float
    mse: float
    kappa: float
    objective: float  # J = λ·MSE/(λ − κ) = mean s_λ


def solve_theta(m: Moments, w: Array, lam: float, *, max_iter: int = 100) -> ThetaStep:
    """argmin_θ λ·MSE(θ)/(λ − κ(θ; w)) over the feasible set κ < λ.

    Along the ridge path MSE'(μ) = −μ·κ'(μ), so dJ/dμ has the sign of h(μ) = μ(λ − κ(μ)) − MSE(μ),
    and h' = λ − κ > 0, h'' = −κ' > 0: h is increasing and convex on the feasible set, the minimiser
    is its unique root, and Newton's step from the right of the root is the fixed-point map
    μ ← MSE(μ) / (λ − κ(μ)), which decreases monotonically to the root without leaving the feasible set.
    """
    eigval, eigvec = np.linalg.eigh(w[:, None] * m.gram * w[None, :])
    eigval = np.clip(eigval, 0.0, None)
    a = eigvec.T @ (w * m.cross)
    a = np.where(eigval > eigval.shape[0] * np.finfo(np.float64).eps * eigval.max(), a, 0.0)  # rounding
    a2 = a * a

    def path(mu: float) -> tuple[float, float]:
        inv = 1.0 / (eigval + mu)
        a2_inv2 = a2 * inv * inv
        return float(m.yy - 2.0 * (a2 * inv).sum() + (eigval * a2_inv2).sum()), float(a2_inv2.sum())

    floor = MU_FLOOR * max(float((w * w * np.diag(m.gram)).max()), 1e-300)  # exact_batch.MU_FLOOR
    mu = max(m.yy / lam, floor)
    fit_mse, kap = path(mu)
    while kap >= lam or mu * (lam - kap) < fit_mse:  # move right of the root
        mu *= 4.0
        fit_mse, kap = path(mu)
    for _ in range(max_iter):
        new_mu = max(fit_mse / (lam - kap), floor)
        if new_mu >= mu * (1.0 - 1e-15) or new_mu <= 0.0:
            break
        mu = new_mu
        fit_mse, kap = path(mu)
    theta = w * (eigvec @ (a / (eigval + mu)))
    return ThetaStep(theta=theta, mu=mu, mse=fit_mse, kappa=kap, objective=lam * fit_mse / (lam - kap))


def objective_hessian(theta: Array, w: Array, m: Moments, lam: float) -> Array:
    """∇²_θ J for J = λ·M/g, M = MSE(θ), g = λ − κ(θ; w)."""
    d = 1.0 / w**2
    g = lam - theta @ (d * theta)
    big_m = float(mse(theta, m.gram, m.cross, m.yy))
    grad_m = 2.0 * (m.gram @ theta - m.cross)
    grad_k = 2.0 * d * theta
    outer = np.outer(grad_m, grad_k)
    return lam * (
        2.0 * m.gram / g
        + (outer + outer.T) / g**2
        + 2.0 * big_m * np.diag(d) / g**2
        + 2.0 * big_m * np.outer(grad_k, grad_k) / g**3
    )


def objective_mixed_vjp(theta: Array, w: Array, m: Moments, lam: float, v: Array) -> Array:
    """vᵀ ∂(∇_θ J)/∂w (p,): how the θ-gradient of J moves with each covariate weight."""
    d = 1.0 / w**2
    g = lam - theta @ (d * theta)
    big_m = float(mse(theta, m.gram, m.cross, m.yy))
    grad_m = 2.0 * (m.gram @ theta - m.cross)
    grad_k = 2.0 * d * theta
    dg_dw = 2.0 * theta**2 / w**3  # ∂g/∂w_k
    dgradk_dw = -4.0 * theta / w**3  # ∂(∇κ)_k/∂w_k (diagonal)
    return lam * (
        -(v @ grad_m) * dg_dw / g**2
        + big_m * v * dgradk_dw / g**2
        - 2.0 * big_m * (v @ grad_k) * dg_dw / g**3
    )


@dataclass(frozen=True)
class LeastSquares:
    """The pooled least-squares fit of the standardised, centred rows and what it says of the noise."""

    theta: Array  # (p,) minimum-norm coefficients (ERM's, as `sal_core.optim.solve_or_min_norm`)
    standard_errors: Array  # (p,) √(σ̂² · (G⁺)_dd / n)
    rank: int
    mse: float  # the training MSE, RSS / n
    noise: float  # σ̂²: the residual variance on its degrees of freedom, or the null model's MSE


def numerical_range(gram: Array, n_rows: int, scale: float = 0.0) -> tuple[Array, Array]:
    """The eigenvalues (r,) and eigenvectors (p, r) of a Gram matrix of ``n_rows`` rows that are not
    rounding: those above max(n, p) · eps of the largest (forming a Gram of n rows rounds by about
    that much), as in `sal_core.optim.solve_or_min_norm`. ``scale``: the size of what the Gram was
    formed from where that is larger than its own eigenvalues (a Gram centred by subtracting the
    means' outer product rounds by eps of the uncentred one), so that a Gram that is all rounding
    keeps no direction."""
    values, vectors = np.linalg.eigh(gram)
    largest = max(float(np.abs(values).max(initial=0.0)), scale, 1e-300)
    keep = values > max(n_rows, values.shape[0]) * np.finfo(np.float64).eps * largest
    return values[keep], vectors[:, keep]


def least_squares(m: Moments, n_rows: int) -> LeastSquares:
    """Minimum-norm least squares on the moments of ``n_rows`` rows, with the noise variance
    σ̂² = RSS / (n − rank − 1) (the intercept takes the last degree of freedom).

    Where no residual degree of freedom is left (as many covariates as rows: the fit interpolates,
    its training MSE is 0) the rows say nothing of the noise, and σ̂² is the null model's MSE (the
    variance of ỹ), its upper bound; σ̂² never exceeds that bound. Directions outside
    :func:`numerical_range` count as G's null space."""
    values, kept = numerical_range(m.gram, n_rows)
    theta = kept @ ((kept.T @ m.cross) / values)
    rank = int(values.shape[0])
    dof = n_rows - rank - 1
    null_mse = max(float(m.yy), 0.0)
    rss_mean = max(float(mse(theta, m.gram, m.cross, m.yy)), 0.0)
    noise = min(rss_mean * n_rows / dof, null_mse) if dof >= 1 else null_mse
    gram_pinv_diag = (kept * kept) @ (1.0 / values)
    standard_errors = np.sqrt(np.maximum(noise * gram_pinv_diag / max(n_rows, 1), 1e-300))
    return LeastSquares(theta=theta, standard_errors=standard_errors, rank=rank, mse=rss_mean, noise=noise)


VARYING = 1e-12
"""A covariate whose mean z² over the rows (its standardised variance there, ~1 for any covariate
that varies) is at most this is constant in them."""


def varying_covariates(m: Moments) -> NDArray[np.bool_]:
    """Covariates that take more than one value in the rows of ``m`` (p,). A constant one has no
    coefficient for w to weigh, so its w never moves; min w = 1 must not pin it, or it would hold
    the minimum at its own w while every covariate the model uses drifts above 1 unanchored."""
    return np.asarray(np.diag(m.gram) > VARYING, dtype=np.bool_)


def significant_covariates(m: Moments, n_rows: int, threshold: float) -> NDArray[np.bool_]:
    """Covariates whose pooled least-squares coefficient has |t| ≥ ``threshold`` (p,): the ones the
    model leans on. t_d = θ_d / √(σ̂² · (G⁺)_dd / n) on the standardised, centred rows (σ̂² on the
    residual degrees of freedom: :func:`least_squares`)."""
    fit = least_squares(m, n_rows)
    return np.asarray(np.abs(fit.theta) / fit.standard_errors >= threshold, dtype=np.bool_)


def stability_risk(losses: Array, alpha: float, stability: str) -> tuple[float, Array]:
    """R = mean_e L^e + α·spread(L) and ∂R/∂L (E,). spread is the std (smooth) or max − min."""
    n_env = losses.shape[0]
    grad = np.full(n_env, 1.0 / n_env)
    if stability == "std":
        centred = losses - losses.mean()
        sd = float(np.sqrt((centred**2).mean()))
        if sd > 0:
            grad = grad + alpha * centred / (n_env * sd)
        return float(losses.mean() + alpha * sd), grad
    hi, lo = int(np.argmax(losses)), int(np.argmin(losses))
    grad = grad.copy()
    grad[hi] += alpha
    grad[lo] -= alpha
    return float(losses.mean() + alpha * (losses[hi] - losses[lo])), grad


def risk_and_grad_theta(theta: Array, m: Moments, alpha: float, stability: str) -> tuple[float, Array, Array]:
    """R(θ), ∇_θ R (p,) and the environment losses (E,)."""
    losses = env_losses(theta, m)
    risk, d_losses = stability_risk(losses, alpha, stability)
    grad_losses = 2.0 * (m.env_gram @ theta - m.env_cross)  # (E, p)
    return risk, d_losses @ grad_losses, losses


def risk_grad_w(theta: Array, w: Array, m: Moments, lam: float, grad_theta_r: Array) -> Array:
    """∂R(θ*(w))/∂w by implicit differentiation: −(H⁻¹∇_θR)ᵀ ∂²J/∂θ∂w."""
    hess = objective_hessian(theta, w, m, lam)
    v = np.asarray(np.linalg.solve(hess + 1e-12 * np.eye(len(theta)), grad_theta_r), dtype=np.float64)
    return -objective_mixed_vjp(theta, w, m, lam, v)


@dataclass(frozen=True)
class CertificateValues:
    rho_hat: float
    expected_sup: float
    worst_case_risk: float


def certificate(step: ThetaStep, lam: float) -> CertificateValues:
    """Theorem 1 for the fitted θ: ρ̂ = mean r²κ/(λ−κ)², worst-case risk = E[s_λ] + λρ̂."""
    g = lam - step.kappa
    rho = step.mse * step.kappa / g**2
    return CertificateValues(
        rho_hat=rho, expected_sup=step.objective, worst_case_risk=step.objective + lam * rho
    )


def certificate_at_radius(theta: Array, w: Array, m: Moments, rho: float) -> CertificateValues:
    """Theorem 1 for any linear θ on the rows of ``m``, over the ball of radius ``rho`` in the cost
    c_w = ‖w ⊙ (x − x')‖²: the worst-case risk inf over λ' > κ of λ'ρ + E[s_λ'] is (√MSE + √(κρ))²,
    reached at λ' = κ + √(MSE·κ/ρ). For θ the exact θ-step at λ and ρ = ρ̂(λ) this is
    :func:`certificate` again (λ' = λ); for another θ (SAL's bagged fold fits) it certifies that θ
    on the same ball. ``expected_sup`` is E[s_λ'] at that λ'."""
    fit_mse = max(float(mse(theta, m.gram, m.cross, m.yy)), 0.0)
    kappa = float(np.sum((theta / w) ** 2))
    if kappa * rho <= 0.0 or fit_mse <= 0.0:
        return CertificateValues(rho_hat=rho, expected_sup=fit_mse, worst_case_risk=fit_mse + kappa * rho)
    gap = np.sqrt(fit_mse * kappa / rho)  # λ' − κ at the infimum
    expected_sup = fit_mse * (kappa + gap) / gap
    return CertificateValues(
        rho_hat=rho,
        expected_sup=float(expected_sup),
        worst_case_risk=float((np.sqrt(fit_mse) + np.sqrt(kappa * rho)) ** 2),
    )
