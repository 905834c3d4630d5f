"""SAL's exact w-paths compiled (numba): :func:`sal_core.exact_batch.run_paths` wherever numba loads.

At small p a round of the batched numpy path is a few dozen numpy and torch calls on small arrays,
whose overhead, not their arithmetic, is its cost; at large p its factorisations and solves are
memory-bound (docs/sal.md, "Speed"). Here a round is
one compiled loop per path doing the same arithmetic: the θ-step's root search for μ on the
generalised-ridge path of A = wGw + μI (a Cholesky factorisation per μ, or from
:data:`SHIFT_FROM_P` covariates one per round and the search's later μ by the shift's series),
the implicit gradient (Sherman–Morrison on that factor), Adam on log w, the
anchor and the cap. It agrees with the numpy path to rounding (tests/sal_core/test_exact_compiled.py)
and runs on one thread. The factorisation and the triangular solves work on several rows of the
factor at a time, so each load serves several products (measured: docs/sal.md, "The kernel,
blocked, at every p").

numba is optional to sal_core: without it (``exact_batch.runs_compiled``) the numpy path runs.
Where a factorisation fails (A not numerically positive definite: a near-singular wGw with a tiny
μ) the kernel says so and :func:`run_paths` returns None: the caller runs the numpy path, which
falls back to the eigendecomposition there.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit
from numpy.typing import NDArray

from sal_core import exact_batch as eb

Array = NDArray[np.float64]

CHUNK = 10
"""Rounds per kernel call where ``on_round`` watches: it sees each round after its chunk ran (a
call per round cost 14% more at the paper setting), so a stop leaves the paths up to this many
rounds further on than the numpy path would."""

_FAST = {"reassoc", "contract"}
"""Sums may be reordered (vectorised) and a·b + c fused: rounding changes at 1e-16, while NaN and
∞ keep their meaning (a failed factorisation is seen)."""
# numba freezes these at compile time and keys its on-disk cache on this file alone: after changing one
# in exact_batch, change this file too (or clear its __pycache__), or a cached kernel keeps the old value.
_CONVERGED = eb.CONVERGED
_MU_FLOOR = eb.MU_FLOOR
SHIFT_FROM_P = 48
"""From this many covariates the kernel reaches the root search's later μ by the shift's series
(one factorisation per round); below it factorises at every μ, which costs less than the series'
bookkeeping there (measured: docs/sal.md, "Measured for the defaults")."""
QUADS_FROM_P = 12
"""From this many covariates the factorisation works four columns at a time, below two
(:func:`_cholesky_scaled`; measured: docs/sal.md, "Four columns at a time")."""
THREADS_FROM_P = 12
"""From this many covariates :func:`run_paths` splits its paths over threads; below, a chunk of
rounds costs about what handing it to a thread does (measured: docs/sal.md, "Measured for the defaults")."""
_SHIFT_TERMS = eb.SHIFT_TERMS
_SHIFT_REUSE = eb.SHIFT_REUSE
_COVARIATES_PER_TERM = eb.COVARIATES_PER_TERM
_SHIFT_REUSE_TERMS = eb.SHIFT_REUSE_TERMS
_SHIFT_PRECISION = eb.SHIFT_PRECISION
_LOG2 = math.log(2.0)


@njit(cache=True, nogil=True, fastmath=_FAST)
def _cholesky(a: Array, out: Array) -> bool:  # pragma: no cover - compiled
    """Lower Cholesky factor L of ``a`` (its lower triangle is read) into ``out``, its diagonal held as
    1/Lᵢᵢ (:func:`_cholesky_scaled`); False where ``a`` is not positive definite."""
    return _cholesky_scaled(a, np.ones(a.shape[0]), 0.0, out)


@njit(cache=True, nogil=True, fastmath=_FAST)
def _cholesky_scaled(g: Array, w: Array, mu: float, out: Array) -> bool:  # pragma: no cover - compiled
    """Lower Cholesky factor L of A = diag(w)·g·diag(w) + μI into ``out``, each entry of A formed from
    the lower triangle of ``g`` as it is read (no p×p copy of A is written: at large p these copies
    cost as much memory traffic as the factorisation); False where A is not positive definite.

    ``out`` holds L below its diagonal and **1/Lᵢᵢ on it**: the solves multiply by that instead of
    dividing, and a division sits on each step's chain of dependent operations (measured: docs/sal.md,
    "The factorisation reads G").

    Each entry below the diagonal is a dot product of two rows of the factor, computed four rows at a
    time: from :data:`QUADS_FROM_P` covariates four columns at a time (:func:`_cholesky_scaled_quads`,
    each load of a row of the factor serving up to sixteen products), below two
    (:func:`_cholesky_scaled_pairs`, up to eight), where the four columns' bookkeeping costs more than
    it saves (measured: docs/sal.md, "Four columns at a time")."""
    if g.shape[0] >= QUADS_FROM_P:
        return _cholesky_scaled_quads(g, w, mu, out)
    return _cholesky_scaled_pairs(g, w, mu, out)


@njit(cache=True, nogil=True, fastmath=_FAST)
def _cholesky_scaled_pairs(g: Array, w: Array, mu: float, out: Array) -> bool:  # pragma: no cover - compiled
    """:func:`_cholesky_scaled` two columns at a time."""
    p = g.shape[0]
    j = 0
    while j < p:
        wj = w[j]
        s = wj * g[j, j] * wj + mu
        for k in range(j):
            s -= out[j, k] * out[j, k]
        if not s > 0.0:
            return False
        d = math.sqrt(s)
        inv = 1.0 / d
        out[j, j] = inv
        if j + 1 == p:
            break
        wj1 = w[j + 1]
        s = wj1 * g[j + 1, j] * wj
        for k in range(j):
            s -= out[j + 1, k] * out[j, k]
        l10 = s * inv
        out[j + 1, j] = l10
        s = (wj1 * g[j + 1, j + 1] * wj1 + mu) - l10 * l10
        for k in range(j):
            s -= out[j + 1, k] * out[j + 1, k]
        if not s > 0.0:
            return False
        d = math.sqrt(s)
        inv1 = 1.0 / d
        out[j + 1, j + 1] = inv1
        i = j + 2
        while i + 3 < p:
            w0 = w[i]
            w1 = w[i + 1]
            w2 = w[i + 2]
            w3 = w[i + 3]
            s0 = w0 * g[i, j] * wj
            s1 = w1 * g[i + 1, j] * wj
            s2 = w2 * g[i + 2, j] * wj
            s3 = w3 * g[i + 3, j] * wj
            t0 = w0 * g[i, j + 1] * wj1
            t1 = w1 * g[i + 1, j + 1] * wj1
            t2 = w2 * g[i + 2, j + 1] * wj1
            t3 = w3 * g[i + 3, j + 1] * wj1
            for k in range(j):
                o = out[j, k]
                q = out[j + 1, k]
                r0 = out[i, k]
                r1 = out[i + 1, k]
                r2 = out[i + 2, k]
                r3 = out[i + 3, k]
                s0 -= r0 * o
                s1 -= r1 * o
                s2 -= r2 * o
                s3 -= r3 * o
                t0 -= r0 * q
                t1 -= r1 * q
                t2 -= r2 * q
                t3 -= r3 * q
            s0 *= inv
            s1 *= inv
            s2 *= inv
            s3 *= inv
            out[i, j] = s0
            out[i + 1, j] = s1
            out[i + 2, j] = s2
            out[i + 3, j] = s3
            out[i, j + 1] = (t0 - s0 * l10) * inv1
            out[i + 1, j + 1] = (t1 - s1 * l10) * inv1
            out[i + 2, j + 1] = (t2 - s2 * l10) * inv1
            out[i + 3, j + 1] = (t3 - s3 * l10) * inv1
            i += 4
        while i < p:
            wi = w[i]
            s0 = wi * g[i, j] * wj
            t0 = wi * g[i, j + 1] * wj1
            for k in range(j):
                r0 = out[i, k]
                s0 -= r0 * out[j, k]
                t0 -= r0 * out[j + 1, k]
            s0 *= inv
            out[i, j] = s0
            out[i, j + 1] = (t0 - s0 * l10) * inv1
            i += 1
        j += 2
    return True


@njit(cache=True, nogil=True, fastmath=_FAST)
def _cholesky_scaled_quads(g: Array, w: Array, mu: float, out: Array) -> bool:  # pragma: no cover - compiled
    """:func:`_cholesky_scaled` four columns at a time: the 4 × 4 block on the diagonal from its rows'
    dot products, then four rows at a time below it, each an entry's dot product less the block's
    earlier columns (sixteen running sums a step, where two columns keep eight); the last p mod 4
    columns one at a time."""
    p = g.shape[0]
    j = 0
    while j + 3 < p:
        w0 = w[j]
        w1 = w[j + 1]
        w2 = w[j + 2]
        w3 = w[j + 3]
        d00 = w0 * g[j, j] * w0 + mu
        d10 = w1 * g[j + 1, j] * w0
        d11 = w1 * g[j + 1, j + 1] * w1 + mu
        d20 = w2 * g[j + 2, j] * w0
        d21 = w2 * g[j + 2, j + 1] * w1
        d22 = w2 * g[j + 2, j + 2] * w2 + mu
        d30 = w3 * g[j + 3, j] * w0
        d31 = w3 * g[j + 3, j + 1] * w1
        d32 = w3 * g[j + 3, j + 2] * w2
        d33 = w3 * g[j + 3, j + 3] * w3 + mu
        for k in range(j):
            a0 = out[j, k]
            a1 = out[j + 1, k]
            a2 = out[j + 2, k]
            a3 = out[j + 3, k]
            d00 -= a0 * a0
            d10 -= a1 * a0
            d11 -= a1 * a1
            d20 -= a2 * a0
            d21 -= a2 * a1
            d22 -= a2 * a2
            d30 -= a3 * a0
            d31 -= a3 * a1
            d32 -= a3 * a2
            d33 -= a3 * a3
        if not d00 > 0.0:
            return False
        i0 = 1.0 / math.sqrt(d00)
        l10 = d10 * i0
        l20 = d20 * i0
        l30 = d30 * i0
        s = d11 - l10 * l10
        if not s > 0.0:
            return False
        i1 = 1.0 / math.sqrt(s)
        l21 = (d21 - l20 * l10) * i1
        l31 = (d31 - l30 * l10) * i1
        s = d22 - l20 * l20 - l21 * l21
        if not s > 0.0:
            return False
        i2 = 1.0 / math.sqrt(s)
        l32 = (d32 - l30 * l20 - l31 * l21) * i2
        s = d33 - l30 * l30 - l31 * l31 - l32 * l32
        if not s > 0.0:
            return False
        i3 = 1.0 / math.sqrt(s)
        out[j, j] = i0
        out[j + 1, j] = l10
        out[j + 1, j + 1] = i1
        out[j + 2, j] = l20
        out[j + 2, j + 1] = l21
        out[j + 2, j + 2] = i2
        out[j + 3, j] = l30
        out[j + 3, j + 1] = l31
        out[j + 3, j + 2] = l32
        out[j + 3, j + 3] = i3
        i = j + 4
        while i + 3 < p:
            v0 = w[i]
            v1 = w[i + 1]
            v2 = w[i + 2]
            v3 = w[i + 3]
            s00 = v0 * g[i, j] * w0
            s01 = v0 * g[i, j + 1] * w1
            s02 = v0 * g[i, j + 2] * w2
            s03 = v0 * g[i, j + 3] * w3
            s10 = v1 * g[i + 1, j] * w0
            s11 = v1 * g[i + 1, j + 1] * w1
            s12 = v1 * g[i + 1, j + 2] * w2
            s13 = v1 * g[i + 1, j + 3] * w3
            s20 = v2 * g[i + 2, j] * w0
            s21 = v2 * g[i + 2, j + 1] * w1
            s22 = v2 * g[i + 2, j + 2] * w2
            s23 = v2 * g[i + 2, j + 3] * w3
            s30 = v3 * g[i + 3, j] * w0
            s31 = v3 * g[i + 3, j + 1] * w1
            s32 = v3 * g[i + 3, j + 2] * w2
            s33 = v3 * g[i + 3, j + 3] * w3
            for k in range(j):
                o0 = out[j, k]
                o1 = out[j + 1, k]
                o2 = out[j + 2, k]
                o3 = out[j + 3, k]
                r0 = out[i, k]
                r1 = out[i + 1, k]
                r2 = out[i + 2, k]
                r3 = out[i + 3, k]
                s00 -= r0 * o0
                s01 -= r0 * o1
                s02 -= r0 * o2
                s03 -= r0 * o3
                s10 -= r1 * o0
                s11 -= r1 * o1
                s12 -= r1 * o2
                s13 -= r1 * o3
                s20 -= r2 * o0
                s21 -= r2 * o1
                s22 -= r2 * o2
                s23 -= r2 * o3
                s30 -= r3 * o0
                s31 -= r3 * o1
                s32 -= r3 * o2
                s33 -= r3 * o3
            x0 = s00 * i0
            x1 = (s01 - x0 * l10) * i1
            x2 = (s02 - x0 * l20 - x1 * l21) * i2
            out[i, j] = x0
            out[i, j + 1] = x1
            out[i, j + 2] = x2
            out[i, j + 3] = (s03 - x0 * l30 - x1 * l31 - x2 * l32) * i3
            x0 = s10 * i0
            x1 = (s11 - x0 * l10) * i1
            x2 = (s12 - x0 * l20 - x1 * l21) * i2
            out[i + 1, j] = x0
            out[i + 1, j + 1] = x1
            out[i + 1, j + 2] = x2
            out[i + 1, j + 3] = (s13 - x0 * l30 - x1 * l31 - x2 * l32) * i3
            x0 = s20 * i0
            x1 = (s21 - x0 * l10) * i1
            x2 = (s22 - x0 * l20 - x1 * l21) * i2
            out[i + 2, j] = x0
            out[i + 2, j + 1] = x1
            out[i + 2, j + 2] = x2
            out[i + 2, j + 3] = (s23 - x0 * l30 - x1 * l31 - x2 * l32) * i3
            x0 = s30 * i0
            x1 = (s31 - x0 * l10) * i1
            x2 = (s32 - x0 * l20 - x1 * l21) * i2
            out[i + 3, j] = x0
            out[i + 3, j + 1] = x1
            out[i + 3, j + 2] = x2
            out[i + 3, j + 3] = (s33 - x0 * l30 - x1 * l31 - x2 * l32) * i3
            i += 4
        while i < p:
            v0 = w[i]
            s0 = v0 * g[i, j] * w0
            s1 = v0 * g[i, j + 1] * w1
            s2 = v0 * g[i, j + 2] * w2
            s3 = v0 * g[i, j + 3] * w3
            for k in range(j):
                r0 = out[i, k]
                s0 -= r0 * out[j, k]
                s1 -= r0 * out[j + 1, k]
                s2 -= r0 * out[j + 2, k]
                s3 -= r0 * out[j + 3, k]
            x0 = s0 * i0
            x1 = (s1 - x0 * l10) * i1
            x2 = (s2 - x0 * l20 - x1 * l21) * i2
            out[i, j] = x0
            out[i, j + 1] = x1
            out[i, j + 2] = x2
            out[i, j + 3] = (s3 - x0 * l30 - x1 * l31 - x2 * l32) * i3
            i += 1
        j += 4
    while j < p:  # the last columns, one at a time
        wj = w[j]
        s = wj * g[j, j] * wj + mu
        for k in range(j):
            s -= out[j, k] * out[j, k]
        if not s > 0.0:
            return False
        inv = 1.0 / math.sqrt(s)
        out[j, j] = inv
        for i in range(j + 1, p):
            t = w[i] * g[i, j] * wj
            for k in range(j):
                t -= out[i, k] * out[j, k]
            out[i, j] = t * inv
        j += 1
    return True


@njit(cache=True, nogil=True, fastmath=_FAST)
def _chol_solve(chol: Array, b: Array, out: Array) -> None:  # pragma: no cover - compiled
    """(L Lᵀ)⁻¹ b into ``out`` from ``chol`` as :func:`_cholesky_scaled` leaves it (1/Lᵢᵢ on the
    diagonal): forward substitution by rows of L, then back substitution by rows of L from the
    bottom (each step an update of the entries above on contiguous memory); four rows at a time in
    both, so each load of ``out`` (forward) or each store to it (back) serves four rows."""
    p = chol.shape[0]
    i = 0
    while i + 3 < p:
        s0 = b[i]
        s1 = b[i + 1]
        s2 = b[i + 2]
        s3 = b[i + 3]
        for k in range(i):
            o = out[k]
            s0 -= chol[i, k] * o
            s1 -= chol[i + 1, k] * o
            s2 -= chol[i + 2, k] * o
            s3 -= chol[i + 3, k] * o
        x0 = s0 * chol[i, i]
        x1 = (s1 - chol[i + 1, i] * x0) * chol[i + 1, i + 1]
        x2 = (s2 - chol[i + 2, i] * x0 - chol[i + 2, i + 1] * x1) * chol[i + 2, i + 2]
        x3 = (s3 - chol[i + 3, i] * x0 - chol[i + 3, i + 1] * x1 - chol[i + 3, i + 2] * x2) * chol[
            i + 3, i + 3
        ]
        out[i] = x0
        out[i + 1] = x1
        out[i + 2] = x2
        out[i + 3] = x3
        i += 4
    while i < p:
        s = b[i]
        for k in range(i):
            s -= chol[i, k] * out[k]
        out[i] = s * chol[i, i]
        i += 1
    i = p - 1
    while i >= 3:
        x3 = out[i] * chol[i, i]
        x2 = (out[i - 1] - chol[i, i - 1] * x3) * chol[i - 1, i - 1]
        x1 = (out[i - 2] - chol[i, i - 2] * x3 - chol[i - 1, i - 2] * x2) * chol[i - 2, i - 2]
        x0 = (out[i - 3] - chol[i, i - 3] * x3 - chol[i - 1, i - 3] * x2 - chol[i - 2, i - 3] * x1) * chol[
            i - 3, i - 3
        ]
        out[i] = x3
        out[i - 1] = x2
        out[i - 2] = x1
        out[i - 3] = x0
        for k in range(i - 3):
            out[k] -= chol[i, k] * x3 + chol[i - 1, k] * x2 + chol[i - 2, k] * x1 + chol[i - 3, k] * x0
        i -= 4
    while i >= 0:
        out[i] *= chol[i, i]
        xi = out[i]
        for k in range(i):
            out[k] -= chol[i, k] * xi
        i -= 1


@njit(cache=True, nogil=True, fastmath=_FAST)
def _chol_solve_pair(
    chol: Array, b0: Array, b1: Array, out0: Array, out1: Array
) -> None:  # pragma: no cover - compiled
    """:func:`_chol_solve` of two right-hand sides in one pass over the factor, two rows at a time."""
    p = chol.shape[0]
    i = 0
    while i + 1 < p:
        s0 = b0[i]
        s1 = b0[i + 1]
        t0 = b1[i]
        t1 = b1[i + 1]
        for k in range(i):
            c0 = chol[i, k]
            c1 = chol[i + 1, k]
            o = out0[k]
            q = out1[k]
            s0 -= c0 * o
            s1 -= c1 * o
            t0 -= c0 * q
            t1 -= c1 * q
        x0 = s0 * chol[i, i]
        y0 = t0 * chol[i, i]
        out0[i] = x0
        out1[i] = y0
        out0[i + 1] = (s1 - chol[i + 1, i] * x0) * chol[i + 1, i + 1]
        out1[i + 1] = (t1 - chol[i + 1, i] * y0) * chol[i + 1, i + 1]
        i += 2
    if i < p:
        s0 = b0[i]
        t0 = b1[i]
        for k in range(i):
            c0 = chol[i, k]
            s0 -= c0 * out0[k]
            t0 -= c0 * out1[k]
        out0[i] = s0 * chol[i, i]
        out1[i] = t0 * chol[i, i]
    i = p - 1
    while i >= 1:
        x1 = out0[i] * chol[i, i]
        y1 = out1[i] * chol[i, i]
        x0 = (out0[i - 1] - chol[i, i - 1] * x1) * chol[i - 1, i - 1]
        y0 = (out1[i - 1] - chol[i, i - 1] * y1) * chol[i - 1, i - 1]
        out0[i] = x1
        out1[i] = y1
        out0[i - 1] = x0
        out1[i - 1] = y0
        for k in range(i - 1):
            c1 = chol[i, k]
            c0 = chol[i - 1, k]
            out0[k] -= c1 * x1 + c0 * x0
            out1[k] -= c1 * y1 + c0 * y0
        i -= 2
    if i == 0:
        out0[0] *= chol[0, 0]
        out1[0] *= chol[0, 0]


@njit(cache=True, nogil=True, fastmath=_FAST)
def _terms_at(ratio: float) -> int:  # pragma: no cover - compiled
    """``exact_batch._terms_at``: terms of the shift's series at |δ|/μ = ``ratio``."""
    if ratio == 0.0:
        return 1
    if ratio >= 1.0:
        return _SHIFT_TERMS
    return min(_SHIFT_TERMS, math.ceil(math.log(_SHIFT_PRECISION) / math.log(ratio)))


@njit(cache=True, nogil=True, fastmath=_FAST)
def _shift_reuse(p: int) -> float:  # pragma: no cover - compiled
    """``exact_batch.shift_reuse``: the largest |δ|/μ reached by the series at p covariates."""
    terms = min(_SHIFT_TERMS, p // _COVARIATES_PER_TERM)
    if terms <= _SHIFT_REUSE_TERMS:
        return _SHIFT_REUSE
    reuse: float = _SHIFT_PRECISION ** (1.0 / terms)
    return reuse


@njit(cache=True, nogil=True, fastmath=_FAST)
def _evaluate(
    g: Array, wv: Array, b: Array, yy: float, mu: float, chol: Array, powers: Array, state: Array, u: Array
) -> tuple[bool, float, float]:  # pragma: no cover - compiled
    """MSE and κ at μ on the generalised-ridge path, u = A⁻¹b with A = wGw + μI, as the numpy
    path reaches them (``exact_batch._solve_theta_cholesky``): A is factorised at the θ-step's
    first μ (``chol``), and from :data:`SHIFT_FROM_P` covariates a later μ within
    :func:`exact_batch.shift_reuse` of it is reached by the series Σ_k (−δ)^k A⁻⁽ᵏ⁺¹⁾b over the
    powers s^k·A⁻⁽ᵏ⁺¹⁾b (``powers``, one row each, solved once; s: :func:`exact_batch.series_scale`);
    below, every μ is factorised.
    ``state``: μ at the factorisation (0: none yet), powers solved, terms of the last evaluation."""
    p = b.shape[0]
    mu_f = state[0]
    ratio = abs(mu - mu_f) / mu_f if mu_f > 0.0 else 0.0
    if mu_f == 0.0 or p < SHIFT_FROM_P or ratio > _shift_reuse(p):
        if not _cholesky_scaled(g, wv, mu, chol):
            return False, 0.0, 0.0
        _chol_solve(chol, b, powers[0])
        state[0] = mu_f = mu
        state[1] = 1.0
        ratio = 0.0
    count = _terms_at(ratio)
    solved = int(state[1])
    scale = math.ldexp(0.5, math.frexp(mu_f)[1])  # exact_batch.series_scale
    while solved < count:
        _chol_solve(chol, powers[solved - 1], powers[solved])
        for i in range(p):
            powers[solved, i] *= scale
        solved += 1
    state[1] = solved
    state[2] = count
    shift = mu - mu_f
    for i in range(p):
        u[i] = powers[0, i]
    coef = 1.0
    for k in range(1, count):
        coef *= -shift / scale
        for i in range(p):
            u[i] += coef * powers[k, i]
    kap = 0.0
    bu = 0.0
    for i in range(p):
        kap += u[i] * u[i]
        bu += b[i] * u[i]
    return True, yy - bu - mu * kap, kap


@njit(cache=True, nogil=True, fastmath=_FAST)
def _shifted_solve_pair(
    chol: Array,
    x0: Array,
    x1: Array,
    shift: float,
    count: int,
    out0: Array,
    out1: Array,
    tmp0: Array,
    tmp1: Array,
) -> None:  # pragma: no cover - compiled
    """(A + δ·I)⁻¹x for two right-hand sides from A's factor by ``count`` terms of the series,
    Horner's rule (``exact_batch.CholFactor.solve``), both in one pass over the factor per term."""
    _chol_solve_pair(chol, x0, x1, out0, out1)
    for _ in range(count - 1):
        for i in range(x0.shape[0]):
            tmp0[i] = x0[i] - shift * out0[i]
            tmp1[i] = x1[i] - shift * out1[i]
        _chol_solve_pair(chol, tmp0, tmp1, out0, out1)


@njit(cache=True, nogil=True, fastmath=_FAST)
def _theta_step(
    g: Array,
    wv: Array,
    b: Array,
    yy: float,
    lam: float,
    mu0: float,
    chol: Array,
    powers: Array,
    state: Array,
    u: Array,
) -> tuple[bool, float, float, float]:  # pragma: no cover - compiled
    """``exact_batch._root`` for one problem: μ, MSE and κ at the root, u there; ``chol`` and
    ``state`` (:func:`_evaluate`) say how A at that μ solves."""
    state[0] = 0.0  # a new θ-step factorises anew
    floor = 1e-300
    for i in range(b.shape[0]):
        floor = max(floor, wv[i] * g[i, i] * wv[i])
    floor *= _MU_FLOOR
    mu = max(mu0, floor)
    ok, mse, kap = _evaluate(g, wv, b, yy, mu, chol, powers, state, u)
    if not ok:
        return False, mu, mse, kap
    for _ in range(200):  # into the feasible set
        if kap < lam:
            break
        mu *= 4.0
        ok, mse, kap = _evaluate(g, wv, b, yy, mu, chol, powers, state, u)
        if not ok:
            return False, mu, mse, kap
    first = max(mse / (lam - kap), floor)
    if abs(first - mu) > _CONVERGED * mu and first > 0.0:
        mu = first
        ok, mse, kap = _evaluate(g, wv, b, yy, mu, chol, powers, state, u)
        if not ok:
            return False, mu, mse, kap
    for _ in range(100):
        new_mu = max(mse / (lam - kap), floor)
        if not (new_mu < mu * (1.0 - _CONVERGED) and new_mu > 0.0):
            break
        mu = new_mu
        ok, mse, kap = _evaluate(g, wv, b, yy, mu, chol, powers, state, u)
        if not ok:
            return False, mu, mse, kap
    return True, mu, mse, kap


@njit(cache=True, nogil=True, fastmath=_FAST)
def _next_mu(mus: Array, count: int, yy: float, lam: float) -> float:  # pragma: no cover - compiled
    """``exact_batch.next_mu`` for one path (``mus``: the last three μ, oldest first; ``count`` of
    them known), or yy/λ where none is."""
    if count == 0:
        return yy / lam
    if count < 3:
        last: float = mus[count - 1]
        return last
    l0 = math.log(max(mus[0], 1e-300))
    l1 = math.log(max(mus[1], 1e-300))
    l2 = math.log(max(mus[2], 1e-300))
    guess = 3.0 * l2 - 3.0 * l1 + l0
    start: float = math.exp(min(max(guess, l2 - _LOG2), l2 + _LOG2))
    return start


@njit(cache=True, nogil=True, fastmath=_FAST)
def _run(
    gram: Array,
    cross: Array,
    yy: Array,
    env_gram: Array,
    env_cross: Array,
    env_yy: Array,
    lam: Array,
    pin: NDArray[np.bool_],
    w: Array,
    m1: Array,
    m2: Array,
    mus: Array,
    mu_count: NDArray[np.int64],
    t_start: int,
    t_end: int,
    lr: float,
    w_max: float,
    alpha: float,
    use_std: bool,
    beta1: float,
    beta2: float,
    eps: float,
    record: bool,
    risks: Array,
    losses_out: Array,
    ws: Array,
    final: bool,
    theta_out: Array,
    mu_out: Array,
    mse_out: Array,
    kappa_out: Array,
) -> bool:  # pragma: no cover - compiled
    """Rounds t_start..t_end − 1 of every path (state w, m1, m2, the last μ in place; round t's risk,
    losses and w at its start into row t − t_start of the record arrays, every path where ``record``,
    else path 0's only), then, where ``final``, the θ-step at the last w. False: a factorisation
    failed."""
    batch, p = w.shape
    n_env = env_yy.shape[1]
    chol = np.empty((p, p))
    powers = np.empty((_SHIFT_TERMS, p))
    state = np.zeros(3)
    tmp = np.empty(p)
    tmp1 = np.empty(p)
    b = np.empty(p)
    u = np.empty(p)
    theta = np.empty(p)
    gt = np.empty((n_env, p))
    losses = np.empty(n_env)
    d_losses = np.empty(n_env)
    grad_theta = np.empty(p)
    rhs0 = np.empty(p)
    rhs1 = np.empty(p)
    x0 = np.empty(p)
    x1 = np.empty(p)
    v = np.empty(p)
    for k in range(batch):
        for t in range(t_start, t_end + (1 if final else 0)):
            for i in range(p):
                b[i] = w[k, i] * cross[k, i]
            mu0 = _next_mu(mus[k], mu_count[k], yy[k], lam[k])
            ok, mu, mse, kap = _theta_step(gram[k], w[k], b, yy[k], lam[k], mu0, chol, powers, state, u)
            if not ok:
                return False
            if mu_count[k] < 3:
                mus[k, mu_count[k]] = mu
                mu_count[k] += 1
            else:
                mus[k, 0] = mus[k, 1]
                mus[k, 1] = mus[k, 2]
                mus[k, 2] = mu
            for i in range(p):
                theta[i] = w[k, i] * u[i]
            if t == t_end:  # the θ-step at the last w
                for i in range(p):
                    theta_out[k, i] = theta[i]
                mu_out[k] = mu
                mse_out[k] = mse
                kappa_out[k] = kap
                break
            # environment losses, SAL's risk and its gradient in θ
            total = 0.0
            for e in range(n_env):
                loss = env_yy[k, e]
                for i in range(p):
                    s = 0.0
                    for j in range(p):
                        s += env_gram[k, e, i, j] * theta[j]
                    gt[e, i] = s
                    loss += (s - 2.0 * env_cross[k, e, i]) * theta[i]
                losses[e] = loss
                total += loss
            mean = total / n_env
            if use_std:
                sq = 0.0
                for e in range(n_env):
                    sq += (losses[e] - mean) ** 2
                sd = math.sqrt(sq / n_env)
                risk = mean + alpha * sd
                for e in range(n_env):
                    d_losses[e] = 1.0 / n_env
                    if sd > 0.0:
                        d_losses[e] += alpha * (losses[e] - mean) / (n_env * sd)
            else:
                hi = 0
                lo = 0
                for e in range(n_env):
                    d_losses[e] = 1.0 / n_env
                    if losses[e] > losses[hi]:
                        hi = e
                    if losses[e] < losses[lo]:
                        lo = e
                d_losses[hi] += alpha
                d_losses[lo] -= alpha
                risk = mean + alpha * (losses[hi] - losses[lo])
            row = t - t_start
            if record or k == 0:
                col = k if record else 0
                risks[row, col] = risk
                for e in range(n_env):
                    losses_out[row, col, e] = losses[e]
                for i in range(p):
                    ws[row, col, i] = w[k, i]
            for i in range(p):
                s = 0.0
                for e in range(n_env):
                    s += d_losses[e] * (gt[e, i] - env_cross[k, e, i])
                grad_theta[i] = 2.0 * s
            # ∂R/∂w by implicit differentiation (exact_batch.risk_grad_w, one problem)
            lam_k = lam[k]
            g = lam_k - kap
            for i in range(p):
                rhs0[i] = grad_theta[i] * w[k, i]
                rhs1[i] = 2.0 * (theta[i] / w[k, i])
            shift = mu - state[0]
            terms = int(state[2])
            _shifted_solve_pair(chol, rhs0, rhs1, shift, terms, x0, x1, tmp, tmp1)
            dot0 = 0.0
            dot1 = 0.0
            for i in range(p):
                dot0 += rhs1[i] * x0[i]
                dot1 += rhs1[i] * x1[i]
            scale = g / (2.0 * lam_k)
            inv_g = 1.0 / g
            c = 2.0 * lam_k * inv_g * inv_g
            gamma = c * (mse * inv_g - mu)
            v_k = scale * dot0 / (1.0 + gamma * scale * dot1)
            along = v_k * (2.0 * mse * inv_g - mu)
            # Adam on log w, then log w − min over the anchor, capped
            bias1 = 1.0 - beta1**t
            bias2 = 1.0 - beta2**t
            floor = math.inf
            for i in range(p):
                wi = w[k, i]
                vi = (scale * wi) * (x0[i] - (gamma * v_k) * x1[i])
                grad = wi * (c * theta[i] / (wi * wi * wi) * (theta[i] * along + (2.0 * mse) * vi))
                m1[k, i] = m1[k, i] * beta1 + (1.0 - beta1) * grad
                m2[k, i] = m2[k, i] * beta2 + (1.0 - beta2) * grad * grad
                v[i] = math.log(wi) - lr * (m1[k, i] / bias1) / (math.sqrt(m2[k, i] / bias2) + eps)
                if pin[k, i] and v[i] < floor:
                    floor = v[i]
            for i in range(p):
                w[k, i] = min(math.exp(max(v[i] - floor, 0.0)), w_max)
    return True


def run_paths(
    m: eb.BatchMoments,
    lam: Array,
    w0: Array,
    settings: eb.PathSettings,
    anchor: eb.Mask | None = None,
    *,
    record: bool = False,
    on_round: eb.RoundHook | None = None,
    threads: int = 1,
) -> eb.PathResult | None:
    """:func:`sal_core.exact_batch.run_paths`, compiled; None where a factorisation failed (the
    caller runs the numpy path). With ``on_round`` the kernel runs :data:`CHUNK` rounds per call and
    then shows them; ``on_round`` sees every path's risk, losses and w where ``record``, else path 0's
    alone (a batch of one). After a stop, w is where the paths were at the end of that chunk and the
    record holds the rounds up to there.

    ``threads`` > 1 splits the paths into that many contiguous groups (from :data:`THREADS_FROM_P`
    covariates), each run by the kernel on a thread of its own (it releases the GIL). Every path's
    arithmetic is its own, so the result is the same, bit for bit, on any number of threads
    (tests/sal_core/test_exact_compiled.py)."""
    b, p = w0.shape
    n_env = m.env_yy.shape[1]
    s = settings
    pin = np.ones((b, p), dtype=bool) if anchor is None else anchor.copy()
    pin[~pin.any(1)] = True
    w = np.array(w0, dtype=np.float64, order="C")
    m1 = np.zeros((b, p))
    m2 = np.zeros((b, p))
    mus = np.zeros((b, 3))
    mu_count = np.zeros(b, dtype=np.int64)
    rounds = s.rounds
    theta, mu, mse, kappa = np.zeros((b, p)), np.zeros(b), np.zeros(b), np.zeros(b)
    gram, cross, yy, env_gram, env_cross, env_yy = (
        np.ascontiguousarray(x) for x in (m.gram, m.cross, m.yy, m.env_gram, m.env_cross, m.env_yy)
    )
    groups = _groups(b, threads if p >= THREADS_FROM_P else 1)
    # each group's record (every path of it where ``record``, else its first path): the kernel
    # writes contiguous arrays of its own, gathered below
    records = [
        (np.zeros((rounds, w_)), np.zeros((rounds, w_, n_env)), np.zeros((rounds, w_, p)))
        for w_ in ((hi - lo if record else 1) for lo, hi in groups)
    ]

    def run_group(g: int, t_start: int, t_end: int, final: bool) -> bool:
        """Rounds t_start..t_end − 1 of group ``g``'s paths, then their θ-step at w where ``final``."""
        lo, hi = groups[g]
        row = slice(t_start - 1, t_end - 1)
        risks, losses, ws = (r[row] for r in records[g])
        ok: bool = _run(
            gram[lo:hi], cross[lo:hi], yy[lo:hi], env_gram[lo:hi], env_cross[lo:hi], env_yy[lo:hi],
            lam[lo:hi], pin[lo:hi], w[lo:hi], m1[lo:hi], m2[lo:hi], mus[lo:hi], mu_count[lo:hi],
            t_start, t_end, s.lr, s.w_max, s.alpha, s.stability == "std", s.beta1, s.beta2, s.eps,
            record, risks, losses, ws, final, theta[lo:hi], mu[lo:hi], mse[lo:hi], kappa[lo:hi],
        )  # fmt: skip
        return ok

    with _pool(len(groups)) as pool:

        def run(t_start: int, t_end: int, final: bool) -> bool:
            """Every group's rounds t_start..t_end − 1 (and θ-step where ``final``), side by side."""
            calls = (
                []
                if pool is None
                else [pool.submit(run_group, g, t_start, t_end, final) for g in range(1, len(groups))]
            )
            first = run_group(0, t_start, t_end, final)
            return all([call.result() for call in calls]) and first

        chunk = CHUNK if on_round is not None else rounds
        stopped = False
        done = 0
        while done < rounds:
            end = min(done + chunk, rounds)
            if not run(done + 1, end + 1, False):
                return None
            if on_round is not None:
                risks, losses, ws = _gathered([tuple(r[done:end] for r in rec) for rec in records], record)
                for t in range(done + 1, end + 1):
                    if on_round(t, risks[t - 1 - done], losses[t - 1 - done], ws[t - 1 - done]):
                        stopped = True
                        break
            done = end
            if stopped:
                break
        if not run(done + 1, done + 1, True):
            return None
    risks, losses, ws = _gathered(records, record)
    kept = done if record else 0
    return eb.PathResult(
        w=w,
        theta=theta,
        mu=mu,
        mse=mse,
        kappa=kappa,
        risks=risks[:kept] if record else np.zeros((0, b)),
        env_losses=losses[:kept] if record else np.zeros((0, b, n_env)),
        ws=ws[:kept] if record else np.zeros((0, b, p)),
        stopped=stopped,
    )


def _groups(paths: int, threads: int) -> list[tuple[int, int]]:
    """[lo, hi) of each of min(threads, paths) contiguous groups of paths, as even as they come."""
    count = max(1, min(threads, paths))
    bounds = [paths * g // count for g in range(count + 1)]
    return list(zip(bounds[:-1], bounds[1:], strict=True))


@contextlib.contextmanager
def _pool(groups: int) -> Iterator[ThreadPoolExecutor | None]:
    """Threads for all but one group's calls (None where one group runs on the calling thread),
    for one batch's rounds: created per batch, so no thread outlives a fit or a fork."""
    if groups == 1:
        yield None
        return
    with ThreadPoolExecutor(max_workers=groups - 1, thread_name_prefix="sal-w-path") as pool:
        yield pool


def _gathered(records: Sequence[tuple[Array, ...]], record: bool) -> tuple[Array, ...]:
    """The groups' records as one: every path's side by side where ``record``, else the first
    group's (its first path is path 0)."""
    if not record or len(records) == 1:
        return records[0]
    risks, losses, ws = zip(*records, strict=True)
    return np.concatenate(risks, axis=1), np.concatenate(losses, axis=1), np.concatenate(ws, axis=1)


def warm_up() -> None:
    """Compile the kernel now (or load it from numba's cache: ~1 s), not in the first fit. A worker
    calls this before it forks its pool, so that every pool process starts with the kernel loaded."""
    p, n_env = 2, 2
    moments = eb.BatchMoments(
        np.eye(p)[None], np.ones((1, p)), np.array([4.0]),
        np.stack([np.eye(p)] * n_env)[None], np.ones((1, n_env, p)), np.full((1, n_env), 4.0),
    )  # fmt: skip
    settings = eb.PathSettings(rounds=2, lr=0.1, w_max=1e4, alpha=0.5, stability="std")
    if run_paths(moments, np.array([1.0]), np.ones((1, p)), settings, record=True) is None:
        raise RuntimeError("the compiled w-path failed on its warm-up problem")
