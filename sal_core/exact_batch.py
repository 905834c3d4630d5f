"""SAL's exact linear path for many problems at once: one stacked solve per round.

``lambda_="auto"`` fits every λ candidate on every cross-validation fold, and each fit is a w-path
of hundreds of rounds on p×p moments (:mod:`sal_core.robust_linear` has the math for one problem).
The paths are independent and run the same number of rounds, so here they run side by side: every
array carries a leading batch axis B, and each round is one stacked factorisation (an ``eigh`` below
:data:`CHOLESKY_FROM_P` covariates, a Cholesky from there, solved through its explicit inverse below
:data:`INVERSE_BELOW_P`), a few stacked solves and a few dozen
vectorised operations, whatever B is. On the paper setting (p = 10) a round of 30 paths costs about
what a round of one did with the per-problem loop.

Shapes: B paths, E environments, p covariates. Everything is float64 numpy.
"""

from __future__ import annotations

import functools
import importlib.util
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import torch
from numpy.typing import NDArray

from sal_core import robust_linear as rl

Array = NDArray[np.float64]
Mask = NDArray[np.bool_]
RoundHook = Callable[[int, Array, Array, Array], bool]
"""``on_round(t, risk (B,), env_losses (B, E), w (B, p))``: True stops the paths."""


@dataclass(frozen=True)
class BatchMoments:
    """Centred, standardised second moments of B problems (see :class:`robust_linear.Moments`)."""

    gram: Array  # (B, p, p)
    cross: Array  # (B, p)
    yy: Array  # (B,)
    env_gram: Array  # (B, E, p, p)
    env_cross: Array  # (B, E, p)
    env_yy: Array  # (B, E)
    rows: int = 0
    """The most rows behind any problem's moments (0: not said). G's rank is at most this."""

    @property
    def size(self) -> int:
        return int(self.gram.shape[0])

    @property
    def few_rows(self) -> bool:
        """From :data:`THIN_FROM_P` covariates, rows said and at most :data:`THIN_RANK` of p: G's
        rank is low for certain, so every θ-step decomposes wGw in G's range
        (:func:`_solve_theta_eigh`) from the first round, on the numpy path."""
        p = int(self.gram.shape[-1])
        return p >= THIN_FROM_P and 0 < self.rows <= THIN_RANK * p

    @functools.cached_property
    def gram_root(self) -> Array | None:
        """F (B, r, p) with FᵀF = G for every problem, r the largest numerical rank of G over the
        batch, where that rank is at most :data:`THIN_RANK` of p (more covariates than rows, or
        columns that add up to others); else None. Computed once, where the eigendecomposition path
        first asks for it (:func:`_eigen`)."""
        val, vec = np.linalg.eigh(self.gram)  # ascending
        p = val.shape[1]
        rank = int((val > p * np.finfo(np.float64).eps * val.max(1, keepdims=True)).sum(1).max())
        if rank > THIN_RANK * p:
            return None
        top_values, top_vectors = np.clip(val[:, p - rank :], 0.0, None), vec[:, :, p - rank :]
        root: Array = np.sqrt(top_values)[:, :, None] * top_vectors.transpose(0, 2, 1)
        return root

    @property
    def low_rank_known(self) -> bool:
        """The eigendecomposition path has already found G's rank low on this batch
        (:attr:`gram_root` computed, and not None): its later rounds go there directly."""
        return self.__dict__.get("gram_root") is not None


@dataclass(frozen=True)
class PathSettings:
    """The w-path's schedule and SAL's risk; the same for every problem of a batch."""

    rounds: int
    lr: float
    w_max: float
    alpha: float
    stability: str  # "std" or "range"
    beta1: float = 0.9
    beta2: float = 0.999
    eps: float = 1e-12


class Factor(Protocol):
    """A factorisation of A = diag(w)·G·diag(w) + μ·I at a θ-step's μ, for every problem of a batch."""

    def solve(self, x: Array) -> Array:
        """A⁻¹x for x (B, p, k)."""
        ...


@dataclass(frozen=True)
class EigFactor:
    """A = V diag(λ_i + μ) Vᵀ from one symmetric eigendecomposition (clipped at 0). ``thin``: V holds
    only wGw's range (p, k), and A is μ on the rest."""

    eigval: Array  # (B, k)
    eigvec: Array  # (B, p, k), k = p unless thin
    mu: Array  # (B,)
    thin: bool = False

    def solve(self, x: Array) -> Array:
        along = np.matmul(self.eigvec.transpose(0, 2, 1), x)
        out: Array = np.matmul(self.eigvec, along / (self.eigval + self.mu[:, None])[:, :, None])
        if self.thin:  # the rest of x, (I − VVᵀ)x, is divided by μ alone
            out += (x - np.matmul(self.eigvec, along)) / self.mu[:, None, None]
        return out


Solve = Callable[[Array], Array]
"""x (B, p, k) → A⁻¹x for a factorised A."""


def triangular_solve(chol: torch.Tensor, x: Array) -> Array:
    """(L Lᵀ)⁻¹x for x (B, p, k): two triangular solves (torch's ``cholesky_solve`` costs 2-6× more
    on this path's shapes, ``python -m bench.solver``)."""
    half = torch.linalg.solve_triangular(chol, torch.from_numpy(np.ascontiguousarray(x)), upper=False)
    out: Array = torch.linalg.solve_triangular(chol.mT, half, upper=True).numpy()
    return out


def base_solve(chol: torch.Tensor) -> Solve:
    """A⁻¹· from A's Cholesky factor L: below :data:`INVERSE_BELOW_P` covariates through the
    explicit inverse (one more O(p³) call per round, then every solve is one batched product: on
    small matrices a call's overhead, not its arithmetic, is the cost), from there by two triangular
    solves per call."""
    if chol.shape[-1] < INVERSE_BELOW_P:
        inverse = torch.cholesky_inverse(chol).numpy()
        return lambda x: np.matmul(inverse, x)
    return lambda x: triangular_solve(chol, x)


@dataclass(frozen=True)
class CholFactor:
    """A = L Lᵀ + δ·I from the Cholesky factor L of A − δ·I: a θ-step factorises once per round
    and reaches the other μ of its root search by the shift δ (:meth:`CholFactor.solve`)."""

    base: Solve  # (L Lᵀ)⁻¹·
    shift: Array  # (B,) δ = μ − μ at the factorisation
    mu_f: Array  # (B,) μ at the factorisation: L Lᵀ ⪰ μ_f·I

    terms: int = 0  # terms of the series this shift needs (0: :func:`terms_needed` counts them)

    def solve(self, x: Array) -> Array:
        """(A + δ·I)⁻¹x for x (B, p, k) by the Neumann series Σ_k (−δ)^k A^-(k+1) x over the terms
        :func:`terms_needed` bounds (A ⪰ μ_f·I), summed by Horner's rule, y ← A⁻¹(x − δ·y): one
        solve and two elementwise calls per term. (The θ-step's root search, which evaluates several
        δ on one right-hand side, keeps a table of the powers instead.)"""
        count = self.terms or terms_needed(self.shift, self.mu_f)
        y = self.base(x)
        if count > 1:
            shift = self.shift[:, None, None]
            for _ in range(count - 1):
                y = self.base(x - shift * y)
        return y


SHIFT_TERMS = 40
"""Most terms of the shift's series (:meth:`CholFactor.solve`); a θ-step refactorises where δ is too large for it."""
SHIFT_REUSE = 1e-2
"""Largest |δ|/μ at which a θ-step solves at a new μ by the shift instead of a new factorisation, below
10 × :data:`COVARIATES_PER_TERM` covariates (:func:`shift_reuse`): A ⪰ μ·I, so each term of the series
shrinks by at least |δ|/μ (1e-2: at most 9 terms in floating point; on a w-path |δ|/μ is usually below
1e-4, 4 terms)."""
SHIFT_PRECISION = 1e-16
"""The series stops where the bound on its next term, (|δ|/μ)^k times the first, is below this."""
COVARIATES_PER_TERM = 15
"""From 10 × this many covariates a θ-step allows the shift's series one more term per this many
covariates (:func:`shift_reuse`), up to :data:`SHIFT_TERMS`: a factorisation costs p³/3
multiply-adds and a term two triangular solves (p² each), so the terms a refactorisation is worth
grow with p (measured: docs/sal.md, "Measured for the defaults")."""


def shift_reuse(p: int) -> float:
    """Largest |δ|/μ at which a θ-step with p covariates reaches a later μ by the shift's series rather
    than a new factorisation: :data:`SHIFT_REUSE` (9 terms) below 10 × :data:`COVARIATES_PER_TERM`
    covariates, then the ratio whose series needs p // COVARIATES_PER_TERM terms, at most
    :data:`SHIFT_TERMS` (|δ|/μ ≈ 0.4 from 600 covariates)."""
    terms = min(SHIFT_TERMS, p // COVARIATES_PER_TERM)
    return SHIFT_REUSE if terms <= SHIFT_REUSE_TERMS else SHIFT_PRECISION ** (1.0 / terms)


def series_scale(mu: Array) -> Array:
    """The power of two in (μ/2, μ] (B,) by which the shift's powers are kept as s^k·A^-(k+1)b.

    A ⪰ μ_f·I bounds sA⁻¹ by 1, so the table never grows; the plain powers A^-(k+1)b grow like
    μ_f^-k and overflow where μ_f sits at its floor (:data:`MU_FLOOR`, ~1e-12 of wGw's scale: a
    wide table with fewer rows than covariates), and a term whose coefficient (−δ)ᵏ is 0 turns
    them into NaN (issue 18: rockArt). Scaling by a power of two is exact, so each term
    (−δ/s)^k·s^k·A^-(k+1)b is the plain series' wherever that one did not overflow."""
    scale: Array = np.ldexp(0.5, np.frexp(mu)[1])
    return scale


def terms_needed(shift: Array, mu: Array) -> int:
    """Terms of (A + δI)⁻¹ = Σ_k (−δ)^k A^-(k+1) after which every path's next term is below
    :data:`SHIFT_PRECISION` of the first: A ⪰ μ·I (A = wGw + μI, wGw ⪰ 0), so term k is at most
    (|δ|/μ)^k times the first, for every path of the batch at once."""
    return _terms_at(float(np.max(np.abs(shift) / mu)))


def _terms_at(ratio: float) -> int:
    """:func:`terms_needed` for the largest |δ|/μ of the batch."""
    if ratio == 0.0:
        return 1
    if ratio >= 1.0:
        return SHIFT_TERMS
    return min(SHIFT_TERMS, math.ceil(math.log(SHIFT_PRECISION) / math.log(ratio)))


SHIFT_REUSE_TERMS = _terms_at(SHIFT_REUSE)
"""Terms of the series at :data:`SHIFT_REUSE` (9 in floating point): :func:`shift_reuse` widens the reach
only where p allows more."""


@dataclass(frozen=True)
class ThetaBatch:
    theta: Array  # (B, p)
    mu: Array  # (B,)
    mse: Array  # (B,)
    kappa: Array  # (B,)
    factor: Factor  # A at μ, reused by the implicit gradient


@dataclass(frozen=True)
class PathResult:
    """Where each path ended: its w, the exact θ-step there, and (if recorded) the rounds."""

    w: Array  # (B, p)
    theta: Array  # (B, p)
    mu: Array  # (B,)
    mse: Array  # (B,)
    kappa: Array  # (B,)
    risks: Array  # (R, B) R(θ) per recorded round
    env_losses: Array  # (R, B, E)
    ws: Array  # (R, B, p) w at the start of each recorded round
    stopped: bool = False  # on_round asked to stop; w is where the paths were then


CHOLESKY_FROM_P = 8
"""From this many covariates the θ-step factorises A = wGw + μI by Cholesky, once per round at the
root search's first μ (extrapolated from the last rounds, :func:`next_mu`), and reaches the search's
other μ by the shift (:meth:`CholFactor.solve`), instead of one eigendecomposition per round: the
cheaper of the two from this p on (measured: docs/sal.md, "Measured for the defaults")."""
THIN_RANK = 0.25
"""Where G's numerical rank r is at most this fraction of p, the eigendecomposition path decomposes
wGw = (FW)ᵀ(FW) through the r × r matrix FW²Fᵀ (F the batch's :attr:`BatchMoments.gram_root`) instead
of the p × p one: the same eigenvalues and range, about 2r²p + 9r³ operations a round instead of
O(p³), no more than a Cholesky factorisation's p³/3 at r = p/4. Once the Cholesky path has failed on
a batch whose G qualifies, its later rounds skip both the attempt and forming wGw. A wide table with
few rows (736 one-hot columns, 46 training rows) fails the Cholesky path every round (wGw is
singular and μ sits at its floor), and took about 3 s a round there (docs/sal.md, "More covariates
than rows: the eigendecomposition in G's range")."""
THIN_FROM_P = 400
"""From this many covariates a batch of few rows (:attr:`BatchMoments.few_rows`) decomposes wGw in
G's range from its first round, about 2r²p + 9r³ operations a round, instead of the compiled
kernel's Cholesky factorisation (p³/3 a round). The decomposition is exact where μ sits at its floor,
and a Cholesky solve there is ~10⁻³ off, at A's condition of ~10¹². Below this p the kernel is the
faster even there, being compiled (measured: docs/sal.md, "Few rows, decomposed in G's range from
the start")."""
INVERSE_BELOW_P = 40
"""Below this many covariates a factorised A solves through its explicit inverse (:func:`base_solve`);
from this many on, by two triangular solves: each is the cheaper on its side (measured: docs/sal.md,
"Measured for the defaults")."""


Evaluate = Callable[[Array], tuple[Array, Array]]
"""μ (B,) → (MSE(θ(μ)) (B,), κ(θ(μ)) (B,)) along the generalised-ridge path."""


def solve_theta(
    m: BatchMoments, w: Array, lam: Array, *, mu0: Array | None = None, max_iter: int = 100
) -> ThetaBatch:
    """argmin_θ λ·MSE/(λ − κ) for every problem (``robust_linear.solve_theta``, stacked).

    ``mu0`` (B,) starts the root search of μ (the previous round's μ on a w-path): any positive
    value works, the root is unique (see :func:`_root`)."""
    b = w * m.cross
    if m.low_rank_known or (m.few_rows and m.gram_root is not None):
        # G's rank is low: found where Cholesky failed on this batch before, or known from its rows
        return _solve_theta_eigh(m, w, None, b, lam, mu0, max_iter)
    wg = w[:, :, None] * m.gram * w[:, None, :]
    if w.shape[1] >= CHOLESKY_FROM_P:
        step = _solve_theta_cholesky(m, w, wg, b, lam, mu0, max_iter)
        if step is not None:
            return step
    return _solve_theta_eigh(m, w, wg, b, lam, mu0, max_iter)


def _solve_theta_eigh(
    m: BatchMoments, w: Array, wg: Array | None, b: Array, lam: Array, mu0: Array | None, max_iter: int
) -> ThetaBatch:
    """One eigendecomposition, then every μ of the search in O(p). ``wg`` (wGw) may be None where
    G's rank is low (:data:`THIN_RANK`): it is not formed there."""
    eigval, eigvec, thin = _eigen(m, w, wg)
    a = np.einsum("bij,bi->bj", eigvec, b)
    # b lies in wGw's range; its part along eigenvalues at rounding level is rounding (the
    # minimum-norm solution drops it, as `robust_linear.least_squares` does)
    rounding = w.shape[1] * np.finfo(np.float64).eps * eigval.max(1, keepdims=True)
    a = np.where(eigval > rounding, a, 0.0)
    a2 = a * a

    def path(mu: Array) -> tuple[Array, Array]:
        inv = 1.0 / (eigval + mu[:, None])
        a2_inv2 = a2 * inv * inv
        return m.yy - 2.0 * (a2 * inv).sum(1) + (eigval * a2_inv2).sum(1), a2_inv2.sum(1)

    diagonal = w * w * np.einsum("bii->bi", m.gram) if wg is None else np.einsum("bii->bi", wg)
    mu, fit_mse, kap = _root(path, m.yy, lam, mu0, max_iter, mu_floor(diagonal))
    theta = w * np.einsum("bij,bj->bi", eigvec, a / (eigval + mu[:, None]))
    return ThetaBatch(theta=theta, mu=mu, mse=fit_mse, kappa=kap, factor=EigFactor(eigval, eigvec, mu, thin))


def _eigen(m: BatchMoments, w: Array, wg: Array | None) -> tuple[Array, Array, bool]:
    """wGw's eigenvalues (clipped at 0) and eigenvectors, (B, k) and (B, p, k), and whether they
    span only its range (k < p, where G's rank is low: :data:`THIN_RANK`)."""
    root = m.gram_root
    if root is None:
        assert wg is not None  # solve_theta forms it wherever G's rank is not low
        eigval, eigvec = np.linalg.eigh(wg)
        return np.clip(eigval, 0.0, None), eigvec, False
    fw = root * w[:, None, :]  # (B, r, p): wGw = fwᵀ fw
    small, rotation = np.linalg.eigh(np.matmul(fw, fw.transpose(0, 2, 1)))
    small = np.clip(small, 0.0, None)
    kept = small > w.shape[1] * np.finfo(np.float64).eps * small.max(1, keepdims=True)
    # wGw's eigenvectors fwᵀu/√s (orthonormal); a direction at rounding level joins the rest (A = μ)
    scale = np.where(kept, 1.0 / np.sqrt(np.where(kept, small, 1.0)), 0.0)
    eigvec = np.matmul(fw.transpose(0, 2, 1), rotation) * scale[:, None, :]
    return np.where(kept, small, 0.0), eigvec, True


def _solve_theta_cholesky(
    m: BatchMoments, w: Array, wg: Array, b: Array, lam: Array, mu0: Array | None, max_iter: int
) -> ThetaBatch | None:
    """One Cholesky factorisation of A at the search's first μ (refactorised only where a later μ
    moves more than :func:`shift_reuse` from it); the other μ by the shift. None where A is not
    numerically positive definite (a near-singular wGw with a tiny μ), for the eigendecomposition.

    The search's evaluations share one table of the series' powers s^k·A^-(k+1)b (B, p, K;
    :func:`series_scale`) and sum as many of them as the shift needs in one batched product: a
    round is a few dozen calls on small arrays, so each call saved counts (issue 18)."""
    batch, p = b.shape
    diag = np.einsum("bii->bi", wg)  # a view: wg becomes A(μ) in place
    diagonal = diag.copy()
    powers = np.empty((batch, p, SHIFT_TERMS))
    reuse = shift_reuse(p)
    # the factorisation's state: its solve, μ there, how many powers are solved
    base: Solve | None = None
    mu_f = scale = np.zeros(0)
    solved = 0
    u = np.zeros((batch, p))
    terms = 1  # the last evaluation's (the returned μ's) terms of the series

    def factor(mu: Array) -> None:
        nonlocal base, mu_f, scale, solved
        np.add(diagonal, mu[:, None], out=diag)
        chol, info = torch.linalg.cholesky_ex(torch.from_numpy(wg))
        if info.any():
            raise _NotPositiveDefinite
        base, mu_f, scale, solved = base_solve(chol), mu.copy(), series_scale(mu)[:, None, None], 1
        powers[:, :, :1] = base(b[:, :, None])

    def path(mu: Array) -> tuple[Array, Array]:
        nonlocal solved, u, terms
        if base is not None:
            shift = mu - mu_f
            ratio = float((np.abs(shift) / mu_f).max())
        if base is None or ratio > reuse:
            factor(mu)
            ratio = 0.0
        assert base is not None
        terms = count = _terms_at(ratio)
        while solved < count:
            powers[:, :, solved : solved + 1] = base(powers[:, :, solved - 1 : solved]) * scale
            solved += 1
        if count == 1:
            u = powers[:, :, 0]  # a view: u is read before the table changes again
        else:
            coefs = (-shift[:, None, None] / scale) ** _EXPONENTS[:count]  # (B, K, 1)
            u = np.matmul(powers[:, :, :count], coefs)[:, :, 0]
        kap = np.einsum("bi,bi->b", u, u)
        return m.yy - np.einsum("bi,bi->b", b, u) - mu * kap, kap

    try:
        mu, fit_mse, kap = _root(path, m.yy, lam, mu0, max_iter, mu_floor(diagonal))
    except _NotPositiveDefinite:
        diag[...] = diagonal
        return None
    assert base is not None
    shift = mu - mu_f
    return ThetaBatch(
        theta=w * u,
        mu=mu,
        mse=fit_mse,
        kappa=kap,
        factor=CholFactor(base, shift, mu_f, terms),
    )


_EXPONENTS = np.arange(SHIFT_TERMS, dtype=np.float64)[:, None]


class _NotPositiveDefinite(Exception):
    pass


CONVERGED = 1e-11
"""Relative Newton step below which μ is taken as the root. Near the root the step is about the
error, so μ is then within ~1e-11 (relative) of it and θ within about as much: far below anything a
fit reports, and it saves the factorisation that would confirm a step of 1e-15 on most rounds."""


MU_FLOOR = rl.MU_FLOOR
"""μ never goes below this fraction of wGw's largest diagonal entry. Where the covariates are as many
as the rows, a fit can interpolate: MSE(μ) → 0 as μ → 0, and where κ(0) < λ the root is μ = 0, the
minimum-norm interpolant in the w-metric. Solving there would divide rounding in G's null space by
~0; at the floor A stays factorisable. With rows to spare μ ≥ MSE/λ is of order 1/c (c ≤ 1 on SAL's
grid) and the floor never binds."""


def mu_floor(diagonal: Array) -> Array:
    """The smallest μ of a θ-step (B,), from wGw's diagonal (B, p): :data:`MU_FLOOR` of its largest entry."""
    floor: Array = MU_FLOOR * np.maximum(diagonal.max(1), 1e-300)
    return floor


def _root(
    path: Evaluate, yy: Array, lam: Array, mu0: Array | None, max_iter: int, floor: Array
) -> tuple[Array, Array, Array]:
    """The root of h(μ) = μ(λ − κ(μ)) − MSE(μ) for every problem; returns μ, MSE and κ there, the
    last ones ``path`` evaluated (so its state belongs to the returned μ).

    h is increasing and convex where κ < λ (``robust_linear.solve_theta``), and Newton's step is
    μ ← MSE/(λ − κ). From a feasible point left of the root that step lands right of it; from the
    right it decreases monotonically to the root. So: move right (×4) until κ < λ, take one step
    from wherever that is (every problem at once: one evaluation, not one for those left of the root
    and another for the rest), then iterate until a step is below ``CONVERGED`` (relative)."""
    mu = np.maximum(yy / lam, floor) if mu0 is None else np.maximum(mu0, floor)
    fit_mse, kap = path(mu)
    for _ in range(200):  # into the feasible set
        infeasible = kap >= lam
        if not infeasible.any():
            break
        mu = np.where(infeasible, mu * 4.0, mu)
        fit_mse, kap = path(mu)
    # one Newton step for every problem: from the left of the root it lands right of it, from the
    # right it moves towards it; a problem already at its root (a warm start) stays
    first = np.maximum(fit_mse / (lam - kap), floor)
    moved = (np.abs(first - mu) > CONVERGED * mu) & (first > 0.0)
    if moved.any():
        mu = np.where(moved, first, mu)
        fit_mse, kap = path(mu)
    active: NDArray[np.bool_] | None = None  # None: every problem
    for _ in range(max_iter):
        new_mu = np.maximum(fit_mse / (lam - kap), floor)
        step = (new_mu < mu * (1.0 - CONVERGED)) & (new_mu > 0.0)
        if active is not None:
            step &= active
        if not step.any():
            break
        active = step
        mu = np.where(step, new_mu, mu)
        fit_mse, kap = path(mu)
    return mu, fit_mse, kap


def env_losses(theta: Array, m: BatchMoments) -> Array:
    """L^e(θ) (B, E)."""
    return _env_losses(theta, m, _env_gram_theta(theta, m))


def _env_gram_theta(theta: Array, m: BatchMoments) -> Array:
    """G_e θ (B, E, p)."""
    out: Array = np.matmul(m.env_gram, theta[:, None, :, None])[..., 0]
    return out


def _env_losses(theta: Array, m: BatchMoments, gram_theta: Array) -> Array:
    losses: Array = m.env_yy + ((gram_theta - 2.0 * m.env_cross) * theta[:, None, :]).sum(2)
    return losses


def stability_risk(losses: Array, alpha: float, stability: str) -> tuple[Array, Array]:
    """R = mean_e L^e + α·spread (B,) and ∂R/∂L (B, E)."""
    n_env = losses.shape[1]
    if stability == "std":
        mean = losses.sum(1) / n_env  # what .mean(1) computes, without its Python wrapper
        centred = losses - mean[:, None]
        sd = np.sqrt(np.square(centred).sum(1) / n_env)
        if sd.all():
            std_grad: Array = alpha * centred / (n_env * sd[:, None]) + 1.0 / n_env
            return mean + alpha * sd, std_grad
        safe = np.where(sd > 0, sd, 1.0)
        grad = np.where(sd[:, None] > 0, alpha * centred / (n_env * safe[:, None]), 0.0) + 1.0 / n_env
        return mean + alpha * sd, grad
    grad = np.full_like(losses, 1.0 / n_env)
    rows = np.arange(losses.shape[0])
    hi, lo = np.argmax(losses, 1), np.argmin(losses, 1)
    grad[rows, hi] += alpha
    grad[rows, lo] -= alpha
    return losses.mean(1) + alpha * (losses[rows, hi] - losses[rows, lo]), grad


def risk_grad_w(step: ThetaBatch, w: Array, m: BatchMoments, lam: Array, grad_theta_r: Array) -> Array:
    """∂R(θ*(w))/∂w (B, p) by implicit differentiation (``robust_linear.risk_grad_w``, stacked).

    The Hessian of J = λ·M/g (g = λ − κ) at θ* is (2λ/g)(G + μD) + λ·U C Uᵀ with D = diag(w⁻²),
    μ = M/g, U = [∇M, ∇κ] and C = [[0, 1/g²], [1/g², 2M/g³]]. Its first term is
    (2λ/g)·W⁻¹ A W⁻¹ with A = wGw + μI, the matrix the θ-step already factorised, so the Hessian
    solve is that factor's solve plus a small system (Woodbury): O(p²) instead of O(p³).

    On the ridge path θ = W A⁻¹ W c, so G θ − c = −μ θ/w²: ∇M = −μ·∇κ exactly (μ the θ-step's),
    U C Uᵀ is the rank-one γ·∇κ∇κᵀ with γ = (2/g²)(M/g − μ) (times λ), the solve is Sherman–Morrison
    on two right-hand sides, and M, κ are the θ-step's own. The same gradient as the rank-two form,
    to rounding, in about half the calls (issue 18: at p = 10 a round's cost is its calls)."""
    theta = step.theta
    batch, p = theta.shape
    lam_2 = 2.0 * lam
    g = lam - step.kappa
    big_m = step.mse
    mu = step.mu
    rhs = np.empty((batch, p, 2))  # W·[r, ∇κ] = [w·r, 2u]
    np.multiply(grad_theta_r, w, out=rhs[:, :, 0])
    np.divide(theta, w, out=rhs[:, :, 1])
    rhs[:, :, 1] *= 2.0
    x = step.factor.solve(rhs)  # A⁻¹W·[r, ∇κ]; B⁻¹ = (g / 2λ)·W A⁻¹ W
    scale = g / lam_2
    dots = np.matmul(rhs[:, None, :, 1], x)[:, 0]  # (w∇κ)ᵀA⁻¹W·[r, ∇κ]
    # Sherman–Morrison on H = B + γ·∇κ∇κᵀ, γ = (2λ/g²)(M/g − μ)
    inv_g = 1.0 / g
    c = lam_2 * inv_g * inv_g
    gamma = c * (big_m * inv_g - mu)
    v_k = scale * dots[:, 0] / (1.0 + gamma * scale * dots[:, 1])  # v·∇κ
    v = (scale[:, None] * w) * (x[:, :, 0] - (gamma * v_k)[:, None] * x[:, :, 1])
    # −vᵀ ∂(∇_θ J)/∂w = (2λθ / g²w³)·(θ·(v·∇κ)(2M/g − μ) + 2M·v)
    along = v_k * (2.0 * big_m * inv_g - mu)
    result: Array = c[:, None] * theta / (w * w * w) * (theta * along[:, None] + (2.0 * big_m)[:, None] * v)
    return result


def next_mu(mus: list[Array]) -> Array | None:
    """Where the next round's root search for μ starts: the last three rounds' log μ extrapolated by a
    quadratic, kept within a factor 2 of the last μ. μ moves smoothly along a w-path, so the start
    is usually within 1e-6 of the root (p = 100: median 2e-8, 90% within 1e-4; the last μ alone: 1e-6
    and 3e-3), and Newton's iteration needs one step fewer."""
    if not mus:
        return None
    last = mus[-1]
    if len(mus) < 3:
        return last
    log = np.log(np.maximum(np.stack(mus), 1e-300))
    guess = 3.0 * log[2] - 3.0 * log[1] + log[0]
    start: Array = np.exp(np.clip(guess, log[2] - np.log(2.0), log[2] + np.log(2.0)))
    return start


_LOG2 = math.log(2.0)


def _next_mu(mus: list[Array], log_mus: list[Array]) -> Array | None:
    """:func:`next_mu` with the rounds' log μ already taken (``log_mus``: log max(μ, 1e-300))."""
    if len(mus) < 3:
        return mus[-1] if mus else None
    l0, l1, l2 = log_mus
    guess = 3.0 * l2 - 3.0 * l1 + l0
    start: Array = np.exp(np.minimum(np.maximum(guess, l2 - _LOG2), l2 + _LOG2))
    return start


def run_paths(
    m: BatchMoments,
    lam: Array,
    w0: Array,
    settings: PathSettings,
    anchor: Mask | None = None,
    *,
    record: bool = False,
    on_round: RoundHook | None = None,
    device: torch.device | None = None,
) -> PathResult:
    """SAL's w-path (Adam on log w, then log w − min over the anchor, capped at w_max) for every
    problem, ``settings.rounds`` rounds. ``anchor`` (B, p) marks the covariates min w = 1 may pin
    (all of them where a row has none); ``record`` keeps every round's risk, losses and w;
    ``on_round(t, risk, losses, w)`` is called after round t with every path's R (B,), environment
    losses (B, E) and w at the start of the round (B, p), and stops the paths when it returns True.

    ``device`` is where the fit's data lie. On an accelerator, from :data:`DEVICE_FROM_P` covariates,
    the paths run there (:mod:`sal_core.exact_torch`: the same rounds as torch tensors). Otherwise,
    below :data:`COMPILED_BELOW_P` covariates the paths run compiled (:mod:`sal_core.exact_compiled`: the
    same rounds, to rounding), on :func:`path_threads` threads; where a factorisation fails there,
    here, from round 1 (rounds already shown to ``on_round`` are not shown again). A batch of few
    rows (:attr:`BatchMoments.few_rows`) runs here from the start, in G's range."""
    if device is not None and runs_on_device(device, w0.shape[1]):
        from sal_core import exact_torch  # it builds on this module

        return exact_torch.run_paths(
            m, lam, w0, settings, anchor, device=device, record=record, on_round=on_round
        )
    if runs_compiled(w0.shape[1]) and not m.few_rows:
        from sal_core import exact_compiled  # it builds on this module

        shown = 0

        def counted(t: int, risk: Array, losses: Array, w: Array) -> bool:
            nonlocal shown
            shown = t
            return on_round is not None and on_round(t, risk, losses, w)

        hook = counted if on_round is not None else None
        compiled = exact_compiled.run_paths(
            m, lam, w0, settings, anchor, record=record, on_round=hook, threads=path_threads()
        )
        if compiled is not None:
            return compiled
        if on_round is not None:
            seen, told = shown, on_round
            on_round = lambda t, risk, losses, w: t > seen and told(t, risk, losses, w)  # noqa: E731
    return _run_paths_numpy(m, lam, w0, settings, anchor, record=record, on_round=on_round)


def path_threads() -> int:
    """Threads the compiled w-paths of one batch share: torch's intra-op threads
    (``torch.set_num_threads``; a worker's ``SAL_TORCH_THREADS``), so one setting says how many cores
    a fit may use. The paths are independent, so the result is the same on any number of threads;
    a batch of one path (a refit, a λ the user set) runs on one."""
    return max(1, torch.get_num_threads())


COMPILED_BELOW_P: float = math.inf
"""Below this many covariates :func:`run_paths` runs :mod:`sal_core.exact_compiled`'s kernel: at
every p, since its factorisation and solves work on several rows at a time and it beats this
module's path at every p measured, up to 1,000 (docs/sal.md, "The kernel, blocked, at every p"; 128
before). The w-path runs on the CPU on every device, except on an accelerator from
:data:`DEVICE_FROM_P` covariates. Tests set it to 0 to run this module's path."""


DEVICE_FROM_P: float = math.inf
"""From this many covariates a fit whose data lie on an accelerator runs its w-paths there
(:mod:`sal_core.exact_torch`), not on the CPU. Off (∞) until whole fits are timed on a GPU: the floor
of a round there (docs/benchmarks.md, "On a GPU machine at the 2026-12-04 defaults") says a batch of 41
paths gains from a few hundred covariates (p = 300: 1.8 s against 5.6 s for one CPU thread's
factorisations; p = 1,000: 9.9 against 242 s) and not at p = 100, but a whole round adds the root
search's and Adam's small kernels, and nobody has timed those there yet. ``python -m bench.gpu_check``
does, and says where to set it. Tests run that module on the CPU's tensors against this one."""


def runs_on_device(device: torch.device, p: int) -> bool:
    """Does :func:`run_paths` run the w-paths on ``device`` at p covariates? Only on an accelerator,
    from :data:`DEVICE_FROM_P` covariates."""
    return device.type != "cpu" and p >= DEVICE_FROM_P


def runs_compiled(p: int) -> bool:
    """Does :func:`run_paths` run compiled at p covariates? (Where numba is installed and its kernel
    loads: sal_core needs only torch and numpy, and runs the same paths without it.)"""
    return p < COMPILED_BELOW_P and _kernel_loads()


@functools.cache
def _kernel_loads() -> bool:
    if importlib.util.find_spec("numba") is None:
        return False
    try:
        from sal_core import exact_compiled  # noqa: F401  (numba compiles or loads it on import)
    except Exception as err:  # numba is there but unusable: no writable cache, a broken install
        logging.getLogger(__name__).warning("compiled w-paths unavailable, the numpy path runs: %s", err)
        return False
    return True


def _run_paths_numpy(
    m: BatchMoments,
    lam: Array,
    w0: Array,
    settings: PathSettings,
    anchor: Mask | None = None,
    *,
    record: bool = False,
    on_round: RoundHook | None = None,
) -> PathResult:
    """:func:`run_paths` as batched numpy and torch calls: one stacked factorisation per round."""
    b, p = w0.shape
    pin = np.ones((b, p), dtype=bool) if anchor is None else anchor.copy()
    pin[~pin.any(1)] = True
    unpinned = np.where(pin, 0.0, np.inf)  # v + this: v where it may pin, +∞ elsewhere
    w = w0.copy()
    m1 = np.zeros((b, p))
    m2 = np.zeros((b, p))
    risks, losses_seen, ws = [], [], []
    s = settings
    stopped = False
    mus: list[Array] = []
    log_mus: list[Array] = []  # log max(μ, 1e-300) of the same rounds (next_mu's extrapolation)
    env_cross2 = 2.0 * m.env_cross
    for t in range(1, s.rounds + 1):
        step = solve_theta(m, w, lam, mu0=_next_mu(mus, log_mus))
        mus = [*mus[-2:], step.mu]
        log_mus = [*log_mus[-2:], np.log(np.maximum(step.mu, 1e-300))]
        gram_theta = _env_gram_theta(step.theta, m)
        losses = m.env_yy + np.einsum("bep,bp->be", gram_theta - env_cross2, step.theta)
        risk, d_losses = stability_risk(losses, s.alpha, s.stability)
        w_start = w
        if record:
            risks.append(risk)
            losses_seen.append(losses)
            ws.append(w.copy())
        grad_theta = 2.0 * np.einsum("be,bep->bp", d_losses, gram_theta - m.env_cross)
        g = w * risk_grad_w(step, w, m, lam, grad_theta)
        m1 *= s.beta1
        m1 += (1 - s.beta1) * g
        m2 *= s.beta2
        m2 += (1 - s.beta2) * g * g
        v = np.log(w) - s.lr * (m1 / (1 - s.beta1**t)) / (np.sqrt(m2 / (1 - s.beta2**t)) + s.eps)
        floor = (v + unpinned).min(1, keepdims=True)
        v -= floor
        w = np.minimum(np.exp(np.maximum(v, 0.0, out=v), out=v), s.w_max, out=v)
        if on_round is not None and on_round(t, risk, losses, w_start):
            stopped = True
            break
    step = solve_theta(m, w, lam, mu0=_next_mu(mus, log_mus))
    shape = (0, b)
    return PathResult(
        w=w,
        theta=step.theta,
        mu=step.mu,
        mse=step.mse,
        kappa=step.kappa,
        risks=np.array(risks) if record else np.zeros(shape),
        env_losses=np.array(losses_seen) if record else np.zeros((*shape, m.env_yy.shape[1])),
        ws=np.array(ws) if record else np.zeros((*shape, p)),
        stopped=stopped,
    )
