"""SAL's exact w-paths as torch tensors on the fit's device: :mod:`sal_core.exact_batch`'s numpy path,
the same rounds, for an accelerator.

Every path of a batch runs side by side, as in the numpy path: per round one stacked Cholesky
factorisation of A = wGw + μI at the root search's first μ, the search's other μ by the shift's
series, the implicit gradient through the same factor, Adam on log w, the anchor and the cap. On a
GPU the 41 factorisations of a default selection run as one batch: at p = 1,000 a round's least
work takes 25 ms on an H200 (`python -m bench.solver --floor --cuda`), a selection's 10 s, against
242 s for the factorisations alone on one CPU thread (docs/benchmarks.md, "On a GPU machine at the
2026-12-04 defaults").

:func:`sal_core.exact_batch.run_paths` sends a batch here where its moments' fit lives on an
accelerator and has at least :data:`sal_core.exact_batch.DEVICE_FROM_P` covariates. On the CPU
this module is tested against the numpy path (the same paths to rounding); it runs on any device
torch does. Everything is float64.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from sal_core import exact_batch as eb

Tensor = torch.Tensor
Solve = Callable[[Tensor], Tensor]
Evaluate = Callable[[Tensor], tuple[Tensor, Tensor]]


@dataclass(frozen=True)
class DeviceMoments:
    """:class:`sal_core.exact_batch.BatchMoments` on a device."""

    gram: Tensor  # (B, p, p)
    cross: Tensor  # (B, p)
    yy: Tensor  # (B,)
    env_gram: Tensor  # (B, E, p, p)
    env_cross: Tensor  # (B, E, p)
    env_yy: Tensor  # (B, E)

    @classmethod
    def of(cls, m: eb.BatchMoments, device: torch.device) -> DeviceMoments:
        def put(a: np.ndarray) -> Tensor:
            return torch.as_tensor(np.ascontiguousarray(a), dtype=torch.float64, device=device)

        return cls(put(m.gram), put(m.cross), put(m.yy), put(m.env_gram), put(m.env_cross), put(m.env_yy))


@dataclass(frozen=True)
class ThetaStep:
    """A θ-step for every path: θ, μ, MSE and κ there, and A⁻¹· at that μ for the implicit gradient."""

    theta: Tensor  # (B, p)
    mu: Tensor  # (B,)
    mse: Tensor  # (B,)
    kappa: Tensor  # (B,)
    solve: Solve  # x (B, p, k) → A(μ)⁻¹x


class _NotPositiveDefinite(Exception):
    pass


def solve_theta(m: DeviceMoments, w: Tensor, lam: Tensor, mu0: Tensor | None) -> ThetaStep:
    """argmin_θ λ·MSE/(λ − κ) for every path (:func:`sal_core.exact_batch.solve_theta`): by Cholesky
    and the shift's series, or where A is not numerically positive definite by an eigendecomposition."""
    wg = w[:, :, None] * m.gram * w[:, None, :]
    b = w * m.cross
    diagonal = torch.diagonal(wg, dim1=1, dim2=2).clone()
    try:
        return _solve_theta_cholesky(m, w, wg, b, diagonal, lam, mu0)
    except _NotPositiveDefinite:
        torch.diagonal(wg, dim1=1, dim2=2).copy_(diagonal)
        return _solve_theta_eigh(m, w, wg, b, lam, mu0)


def _solve_theta_cholesky(
    m: DeviceMoments, w: Tensor, wg: Tensor, b: Tensor, diagonal: Tensor, lam: Tensor, mu0: Tensor | None
) -> ThetaStep:
    """One factorisation at the search's first μ (again only where a later μ moves more than
    :func:`sal_core.exact_batch.shift_reuse` from it); the search's evaluations share one table of
    the series' powers s^k·A^-(k+1)b (:func:`sal_core.exact_batch.series_scale`)."""
    batch, p = b.shape
    diag = torch.diagonal(wg, dim1=1, dim2=2)  # a view: wg becomes A(μ) in place
    powers = torch.empty((batch, p, eb.SHIFT_TERMS), dtype=b.dtype, device=b.device)
    exponents = torch.arange(eb.SHIFT_TERMS, dtype=b.dtype, device=b.device)[:, None]
    reuse = eb.shift_reuse(p)
    # the factorisation's state: its factor, μ there, how many powers are solved
    chol: Tensor | None = None
    mu_f = scale = torch.zeros(0, dtype=b.dtype, device=b.device)
    solved = 0
    u = torch.zeros_like(b)
    terms = 1  # the last evaluation's (the returned μ's) terms of the series

    def factor(mu: Tensor) -> None:
        nonlocal chol, mu_f, scale, solved
        diag.copy_(diagonal + mu[:, None])
        chol, info = torch.linalg.cholesky_ex(wg)
        if bool(info.any()):
            raise _NotPositiveDefinite
        mu_f, solved = mu.clone(), 1
        scale = torch.ldexp(torch.full_like(mu, 0.5), torch.frexp(mu).exponent)[:, None, None]
        powers[:, :, :1] = torch.cholesky_solve(b[:, :, None], chol)

    def path(mu: Tensor) -> tuple[Tensor, Tensor]:
        nonlocal solved, u, terms
        ratio = math.inf if chol is None else float(((mu - mu_f).abs() / mu_f).max())
        if ratio > reuse:
            factor(mu)
            ratio = 0.0
        assert chol is not None
        terms = count = eb._terms_at(ratio)
        while solved < count:
            powers[:, :, solved : solved + 1] = (
                torch.cholesky_solve(powers[:, :, solved - 1 : solved], chol) * scale
            )
            solved += 1
        if count == 1:
            u = powers[:, :, 0].clone()
        else:
            coefs = ((mu_f - mu)[:, None, None] / scale) ** exponents[:count]  # (−δ/s)ᵏ, (B, K, 1)
            u = torch.matmul(powers[:, :, :count], coefs)[:, :, 0]
        kap = (u * u).sum(1)
        return m.yy - (b * u).sum(1) - mu * kap, kap

    mu, fit_mse, kap = _root(path, m.yy, lam, mu0, _mu_floor(diagonal))
    assert chol is not None
    return ThetaStep(theta=w * u, mu=mu, mse=fit_mse, kappa=kap, solve=_series_solve(chol, mu - mu_f, terms))


def _series_solve(chol: Tensor, shift: Tensor, terms: int) -> Solve:
    """x ↦ (L Lᵀ + δ·I)⁻¹x by the shift's series over ``terms`` terms, summed by Horner's rule
    (:meth:`sal_core.exact_batch.CholFactor.solve`)."""
    delta = shift[:, None, None]

    def solve(x: Tensor) -> Tensor:
        y = torch.cholesky_solve(x, chol)
        for _ in range(terms - 1):
            y = torch.cholesky_solve(x - delta * y, chol)
        return y

    return solve


def _solve_theta_eigh(
    m: DeviceMoments, w: Tensor, wg: Tensor, b: Tensor, lam: Tensor, mu0: Tensor | None
) -> ThetaStep:
    """One eigendecomposition, then every μ of the search in O(p) (``_solve_theta_eigh``)."""
    eigval, eigvec = torch.linalg.eigh(wg)
    eigval = eigval.clamp_min(0.0)
    a = torch.einsum("bij,bi->bj", eigvec, b)
    rounding = wg.shape[1] * torch.finfo(torch.float64).eps * eigval.max(1, keepdim=True).values
    a = torch.where(eigval > rounding, a, torch.zeros_like(a))
    a2 = a * a

    def path(mu: Tensor) -> tuple[Tensor, Tensor]:
        inv = 1.0 / (eigval + mu[:, None])
        a2_inv2 = a2 * inv * inv
        return m.yy - 2.0 * (a2 * inv).sum(1) + (eigval * a2_inv2).sum(1), a2_inv2.sum(1)

    mu, fit_mse, kap = _root(path, m.yy, lam, mu0, _mu_floor(torch.diagonal(wg, dim1=1, dim2=2)))
    theta = w * torch.einsum("bij,bj->bi", eigvec, a / (eigval + mu[:, None]))

    def solve(x: Tensor) -> Tensor:
        inner = torch.matmul(eigvec.mT, x) / (eigval + mu[:, None])[:, :, None]
        return torch.matmul(eigvec, inner)

    return ThetaStep(theta=theta, mu=mu, mse=fit_mse, kappa=kap, solve=solve)


def _mu_floor(diagonal: Tensor) -> Tensor:
    """:func:`sal_core.exact_batch.mu_floor`."""
    return eb.MU_FLOOR * diagonal.max(1).values.clamp_min(1e-300)


def _root(
    path: Evaluate, yy: Tensor, lam: Tensor, mu0: Tensor | None, floor: Tensor, max_iter: int = 100
) -> tuple[Tensor, Tensor, Tensor]:
    """The root of h(μ) = μ(λ − κ(μ)) − MSE(μ) for every path, by the steps of
    :func:`sal_core.exact_batch._root`; returns μ, MSE and κ, the last ones ``path`` evaluated."""
    mu = torch.maximum(yy / lam if mu0 is None else mu0, floor)
    fit_mse, kap = path(mu)
    for _ in range(200):
        infeasible = kap >= lam
        if not bool(infeasible.any()):
            break
        mu = torch.where(infeasible, mu * 4.0, mu)
        fit_mse, kap = path(mu)
    first = torch.maximum(fit_mse / (lam - kap), floor)
    moved = ((first - mu).abs() > eb.CONVERGED * mu) & (first > 0.0)
    if bool(moved.any()):
        mu = torch.where(moved, first, mu)
        fit_mse, kap = path(mu)
    active: Tensor | None = None
    for _ in range(max_iter):
        new_mu = torch.maximum(fit_mse / (lam - kap), floor)
        step = (new_mu < mu * (1.0 - eb.CONVERGED)) & (new_mu > 0.0)
        if active is not None:
            step &= active
        if not bool(step.any()):
            break
        active = step
        mu = torch.where(step, new_mu, mu)
        fit_mse, kap = path(mu)
    return mu, fit_mse, kap


def stability_risk(losses: Tensor, alpha: float, stability: str) -> tuple[Tensor, Tensor]:
    """R = mean_e L^e + α·spread (B,) and ∂R/∂L (B, E) (:func:`sal_core.exact_batch.stability_risk`)."""
    n_env = losses.shape[1]
    if stability == "std":
        mean = losses.sum(1) / n_env
        centred = losses - mean[:, None]
        sd = (centred.square().sum(1) / n_env).sqrt()
        safe = torch.where(sd > 0, sd, torch.ones_like(sd))
        spread = torch.where(
            sd[:, None] > 0, alpha * centred / (n_env * safe[:, None]), torch.zeros_like(centred)
        )
        return mean + alpha * sd, spread + 1.0 / n_env
    grad = torch.full_like(losses, 1.0 / n_env)
    rows = torch.arange(losses.shape[0], device=losses.device)
    hi, lo = losses.argmax(1), losses.argmin(1)
    grad[rows, hi] += alpha
    grad[rows, lo] -= alpha
    return losses.mean(1) + alpha * (losses[rows, hi] - losses[rows, lo]), grad


def risk_grad_w(step: ThetaStep, w: Tensor, lam: Tensor, grad_theta_r: Tensor) -> Tensor:
    """∂R(θ*(w))/∂w (B, p) by implicit differentiation through the θ-step's factor, with the
    Sherman–Morrison form of :func:`sal_core.exact_batch.risk_grad_w`."""
    theta = step.theta
    lam_2 = 2.0 * lam
    g = lam - step.kappa
    big_m, mu = step.mse, step.mu
    rhs = torch.stack([grad_theta_r * w, 2.0 * theta / w], dim=2)  # W·[r, ∇κ]
    x = step.solve(rhs)
    scale = g / lam_2
    dots = torch.matmul(rhs[:, None, :, 1], x)[:, 0]
    inv_g = 1.0 / g
    c = lam_2 * inv_g * inv_g
    gamma = c * (big_m * inv_g - mu)
    v_k = scale * dots[:, 0] / (1.0 + gamma * scale * dots[:, 1])
    v = (scale[:, None] * w) * (x[:, :, 0] - (gamma * v_k)[:, None] * x[:, :, 1])
    along = v_k * (2.0 * big_m * inv_g - mu)
    return c[:, None] * theta / (w * w * w) * (theta * along[:, None] + (2.0 * big_m)[:, None] * v)


def _next_mu(mus: list[Tensor]) -> Tensor | None:
    """:func:`sal_core.exact_batch.next_mu`: the last three rounds' log μ extrapolated by a quadratic,
    within a factor 2 of the last μ."""
    if len(mus) < 3:
        return mus[-1] if mus else None
    l0, l1, l2 = (mu.clamp_min(1e-300).log() for mu in mus)
    guess = 3.0 * l2 - 3.0 * l1 + l0
    return torch.minimum(torch.maximum(guess, l2 - math.log(2.0)), l2 + math.log(2.0)).exp()


def run_paths(
    moments: eb.BatchMoments,
    lam: np.ndarray,
    w0: np.ndarray,
    settings: eb.PathSettings,
    anchor: eb.Mask | None = None,
    *,
    device: torch.device,
    record: bool = False,
    on_round: eb.RoundHook | None = None,
) -> eb.PathResult:
    """:func:`sal_core.exact_batch.run_paths` on ``device``: the same arguments and result (numpy, on
    the CPU); ``on_round`` sees each round's risks, losses and w copied to the CPU."""
    m = DeviceMoments.of(moments, device)
    b, p = w0.shape
    pin_np = np.ones((b, p), dtype=bool) if anchor is None else anchor.copy()
    pin_np[~pin_np.any(1)] = True
    pin = torch.as_tensor(pin_np, device=device)
    unpinned = torch.where(pin, 0.0, math.inf).to(torch.float64)
    lam_t = torch.as_tensor(lam, dtype=torch.float64, device=device)
    w = torch.as_tensor(w0, dtype=torch.float64, device=device).clone()
    m1, m2 = torch.zeros_like(w), torch.zeros_like(w)
    s = settings
    risks: list[Tensor] = []
    losses_seen: list[Tensor] = []
    ws: list[Tensor] = []
    mus: list[Tensor] = []
    stopped = False
    env_cross2 = 2.0 * m.env_cross
    for t in range(1, s.rounds + 1):
        step = solve_theta(m, w, lam_t, _next_mu(mus))
        mus = [*mus[-2:], step.mu]
        gram_theta = torch.matmul(m.env_gram, step.theta[:, None, :, None])[..., 0]
        losses = m.env_yy + torch.einsum("bep,bp->be", gram_theta - env_cross2, step.theta)
        risk, d_losses = stability_risk(losses, s.alpha, s.stability)
        w_start = w
        if record:
            risks.append(risk)
            losses_seen.append(losses)
            ws.append(w.clone())
        grad_theta = 2.0 * torch.einsum("be,bep->bp", d_losses, gram_theta - m.env_cross)
        g = w * risk_grad_w(step, w, lam_t, grad_theta)
        m1 = s.beta1 * m1 + (1 - s.beta1) * g
        m2 = s.beta2 * m2 + (1 - s.beta2) * g * g
        v = w.log() - s.lr * (m1 / (1 - s.beta1**t)) / ((m2 / (1 - s.beta2**t)).sqrt() + s.eps)
        v = v - (v + unpinned).min(1, keepdim=True).values
        w = v.clamp_min(0.0).exp().clamp_max(s.w_max)
        if on_round is not None and on_round(t, _np(risk), _np(losses), _np(w_start)):
            stopped = True
            break
    step = solve_theta(m, w, lam_t, _next_mu(mus))
    n_env = moments.env_yy.shape[1]
    return eb.PathResult(
        w=_np(w),
        theta=_np(step.theta),
        mu=_np(step.mu),
        mse=_np(step.mse),
        kappa=_np(step.kappa),
        risks=_np(torch.stack(risks)) if risks else np.zeros((0, b)),
        env_losses=_np(torch.stack(losses_seen)) if losses_seen else np.zeros((0, b, n_env)),
        ws=_np(torch.stack(ws)) if ws else np.zeros((0, b, p)),
        stopped=stopped,
    )


def _np(x: Tensor) -> np.ndarray:
    out: np.ndarray = x.detach().cpu().numpy()
    return out
