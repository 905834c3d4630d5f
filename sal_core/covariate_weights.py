"""Updates of the covariate weights w on W = {w ∈ ℝᵖ : w ≥ 1, min w = 1}.

Only the ratios of w matter to the adversary: scaling every w by c is the same as scaling λ by c²,
so W pins the scale at min w = 1. Four update rules:

* ``adam_log`` (default on the exact path) — Adam (β₁ = 0.9, β₂ = 0.999, bias-corrected) on
  v = log w, then v ← v − min v (so min w = 1 exactly, every ratio kept) and w ≤ w_max.
* ``projected`` — the paper's w ← Proj_W(w − ε_w ∂R/∂w) with the Euclidean projection onto W.
* ``scaled_log`` — a step on log w proportional to g = w ⊙ ∂R/∂w, its common mode removed
  and one global RMS scale, then w ← w / min w. The step keeps the *relative* sizes of the
  coordinates' gradients, so covariates that matter to R move fast and marginal ones slowly.
* ``adaptive_log`` — a per-coordinate adaptive (RMSprop-style) step on log w, then Proj_W.
  Per-coordinate normalisation makes the step sign-like: a covariate whose R-gradient is tiny but
  steady (an anti-causal proxy of y) climbs as fast as a stable one.

Why ``adam_log`` with a small step and many rounds: R(θ(w)) on the training environments is
minimised at a *moderate* weight on anti-causal covariates, so what SAL returns is decided by the
path, not by R's minimiser. From w = 1 with a strong adversary every θ starts near 0 and each
covariate that predicts y pushes its w up; the stable ones push hardest and longest. The shift
v ← v − min v, not a clip at 1, keeps exactly one covariate at 1 and every ratio between the others;
a short second-moment memory would make the step sign-like, so that anti-causal covariates climb as
fast as stable ones. The rules measured side by side, one change at a time: docs/sal.md, "Why: the
w update decides the anti-causal shift".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.float64]


def project_onto_w_set(v: Array) -> Array:
    """Euclidean projection onto W: clip below at 1; if every entry exceeds 1, lower the smallest to 1."""
    w = np.maximum(v, 1.0)
    if w.min() > 1.0:
        w = w.copy()
        w[int(np.argmin(w))] = 1.0
    return w


def normalise_to_w_set(w: Array) -> Array:
    """Rescale positive weights so the smallest is exactly 1 (keeps every ratio)."""
    scaled: Array = w / w.min()
    return scaled


@dataclass
class AdaptiveLogStep:
    """RMSprop on u = log w: u ← u − lr·g/√(E[g²]), g = w ⊙ ∂R/∂w; then w ← w / min w.

    ``anchor`` (a boolean mask; the one-scale rule, ``per_coordinate=False``, only) marks the
    covariates that take part: the others (constant in the rows: no coefficient to weigh) stay at
    w = 1, enter neither the common mode nor the scale, and are not what min w = 1 pins."""

    lr: float
    decay: float = 0.9
    eps: float = 1e-12
    per_coordinate: bool = True
    anchor: NDArray[np.bool_] | None = None
    _sq: Array | None = field(default=None, repr=False)
    _t: int = 0

    def __call__(self, w: Array, grad_w: Array) -> Array:
        g = w * grad_w
        part = (
            self.anchor
            if self.anchor is not None and not self.per_coordinate and self.anchor.any()
            else np.ones(g.shape, dtype=bool)
        )
        if not self.per_coordinate:
            # the common mode only rescales w, which W's min w = 1 undoes
            g = np.where(part, g - g[part].mean(), 0.0)
        self._t += 1
        previous = np.zeros_like(g) if self._sq is None else self._sq
        g2 = g * g if self.per_coordinate else np.full_like(g, (g[part] ** 2).mean())
        sq = self.decay * previous + (1 - self.decay) * g2
        self._sq = sq
        corrected = sq / (1 - self.decay**self._t)
        u = np.log(w) - self.lr * g / (np.sqrt(corrected) + self.eps)
        if self.per_coordinate:
            return project_onto_w_set(np.exp(u))
        if part.all():
            return normalise_to_w_set(np.exp(u))
        return np.asarray(np.where(part, np.exp(u - u[part].min()), 1.0), dtype=np.float64)


@dataclass
class AdamLogStep:
    """Adam on v = log w with g = w ⊙ ∂R/∂w; then v ← v − min v and w = exp(v).

    ``anchor`` (a boolean mask) pins the minimum over those covariates only, v ← max(v − min v[anchor], 0):
    the covariate held at w = 1 is then one the model leans on, not one it ignores."""

    lr: float
    anchor: NDArray[np.bool_] | None = None
    beta1: float = 0.9
    beta2: float = 0.999
    eps: float = 1e-12
    _m: Array | None = field(default=None, repr=False)
    _s: Array | None = field(default=None, repr=False)
    _t: int = 0

    def __call__(self, w: Array, grad_w: Array) -> Array:
        g = w * grad_w
        self._t += 1
        m = self.beta1 * (np.zeros_like(g) if self._m is None else self._m) + (1 - self.beta1) * g
        s = self.beta2 * (np.zeros_like(g) if self._s is None else self._s) + (1 - self.beta2) * g * g
        self._m, self._s = m, s
        m_hat = m / (1 - self.beta1**self._t)
        s_hat = s / (1 - self.beta2**self._t)
        v = np.log(w) - self.lr * m_hat / (np.sqrt(s_hat) + self.eps)
        if self.anchor is not None and self.anchor.any():
            return np.asarray(np.exp(np.maximum(v - v[self.anchor].min(), 0.0)), dtype=np.float64)
        return np.asarray(np.exp(v - v.min()), dtype=np.float64)


@dataclass
class ProjectedStep:
    """The paper's update: w ← Proj_W(w − lr·∂R/∂w)."""

    lr: float

    def __call__(self, w: Array, grad_w: Array) -> Array:
        return project_onto_w_set(w - self.lr * grad_w)


WUpdate = Callable[[Array, Array], Array]


def make_w_update(
    rule: str, lr: float, w_max: float = np.inf, anchor: NDArray[np.bool_] | None = None
) -> WUpdate:
    """The update rule by name, with w capped at ``w_max``.

    A covariate at w = 10⁴ already costs the adversary 10⁸ per unit of movement: it is, in effect,
    never perturbed. The cap keeps reported weights readable (without it, stable covariates drift to
    10⁹ and beyond with no change in θ) and stays inside W because min w = 1 ≤ w_max.
    """
    step: WUpdate
    if rule == "projected":
        step = ProjectedStep(lr=lr)
    elif rule == "adam_log":
        step = AdamLogStep(lr=lr, anchor=anchor)
    else:
        step = AdaptiveLogStep(lr=lr, per_coordinate=rule == "adaptive_log", anchor=anchor)

    def capped(w: Array, grad_w: Array) -> Array:
        return np.minimum(step(w, grad_w), w_max)

    return capped
