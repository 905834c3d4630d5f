"""SAL (and WDRL) for any differentiable model: the path SAL takes for MLPs.

    θ-step   min_θ J(θ, w) = mean_i s_λ(θ; x_i, y_i),  s_λ = max_δ ℓ(f_θ(x_i + δ), y_i) − λ‖w ⊙ δ‖²
    w-step   w ← w_update(w, ∂R(θ*(w))/∂w),  R = mean_e L^e + α·spread_e L^e on the clean rows

One fit (``fit_deep_sal``):

1. **Warm-up**: ``warmup_steps`` Adam steps on the plain loss (ERM, one pass each) from the
   problem's initial model: same test error as a warm-up on J at w = 1 on dev seed 100 (0.432 vs
   0.421, selection bias) at a sixth of its passes.
2. **Rounds** (``rounds``): R and its θ-gradient on the evaluation rows, ∂R/∂w by implicit
   differentiation (:mod:`sal_core.deep_implicit`) on the implicit rows, the w update, then
   ``theta_steps`` Adam steps on J at the new w, warm-started (θ, Adam's moments, every row's u).
3. **Final**: ``final_steps`` Adam steps at the last w, so the model returned is fitted to the w
   returned; the certificate is computed with the adversary converged on every evaluation row.

WDRL is the same fit with w ≡ 1 and no rounds: warm-up and final steps only, one history row.

Each θ-step is one forward and one backward pass at x̃ = x + u / w, which yields both ∇_θ ℓ (for
Adam) and ∇_x ℓ (for the adversary, :mod:`sal_core.deep_adversary`). When the adversary's
stationarity residual is within ``ascent_tol`` the θ gradient is used as is and u takes one more
fixed-point step (simultaneous descent–ascent); otherwise u is ascended to the tolerance first (at
most ``ascent_max_steps`` gradient evaluations) and the θ gradient recomputed there. u is kept per
row between steps, so after the first steps most θ-steps cost a single pass, as ERM's do.

Minibatch schedule: full batch below ``minibatch_from`` rows (10⁵). From there each θ-step takes
``batch_rows`` rows, drawn without replacement and reshuffled every epoch from a CPU generator seeded
with ``problem.seed`` (the same rows on every device: a CUDA generator gives another stream);
Adam's step size is unchanged; a row's u waits in a per-row bank (n, p) between visits and is
re-ascended to the tolerance when its row is drawn again. R, the environment losses and the
certificate use at most ``eval_rows`` rows (a fixed draw), the w-gradient at most ``implicit_rows``
(a fresh draw each round).

Regression targets arrive divided by nothing: this module divides them by ``y_scale`` (so λ is
unit-free, as on the linear path), reports risks and the certificate in the target's units and
rescales the network's last layer on the way out.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from sal_core import deep_implicit
from sal_core.algorithms.base import Certificate, Problem, Reporter, Solution
from sal_core.deep_adversary import ascend, cap_rows, relative_residual
from sal_core.history import Round
from sal_core.robust_linear import stability_risk

WUpdate = Callable[[np.ndarray, np.ndarray], np.ndarray]


class AdversaryConvergenceWarning(UserWarning):
    """The inner maximisation stopped at its step limit above its tolerance."""


@dataclass(frozen=True)
class DeepSALOptions:
    """Knobs of the deep path, with the defaults measured on the paper's settings."""

    theta_lr: float = 0.01  # Adam step size for θ (ERM's)
    warmup_steps: int = 300  # θ-steps at w = 1 before the first w-step
    theta_steps: int = 25  # θ-steps after each w-step
    final_steps: int = 200  # θ-steps at the final w
    ascent_tol: float = 1e-2  # relative stationarity residual of the adversary
    ascent_max_steps: int = 30  # gradient evaluations per re-ascent
    radius: float = 10.0  # cap on ‖u_i‖ (standardised covariate units)
    minibatch_from: int = 100_000  # full batch below this many rows
    batch_rows: int = 8192  # θ-step minibatch from ``minibatch_from`` rows
    eval_rows: int = 65_536  # rows for R, environment losses and the certificate, at most
    implicit_rows: int = 4096  # rows for ∂R/∂w, at most
    curvature: str = "auto"  # per-row Ã⁻¹: 'rank_one', 'exact' or 'auto' (see deep_implicit)
    damping: float = 1e-4  # μ in (H + μI) v = ∇_θR
    cg_iters: int = 20
    cg_tol: float = 1e-2


def fit_deep_sal(
    problem: Problem,
    *,
    lambda_: float,
    alpha: float,
    stability: str,
    rounds: int,
    w_update: WUpdate | None,
    reporter: Reporter,
    y_scale: float,
    options: DeepSALOptions | None = None,
) -> Solution:
    """Fit SAL (``w_update`` given) or WDRL (``w_update=None``: w ≡ 1, one θ fit) on ``problem``.

    ``problem`` carries standardised covariates, the loss and the model family (the model starts as
    ``problem.new_model()`` builds it); ``y_scale`` divides regression targets inside the fit.
    Returns the module in the target's units, w (p,) on the problem's device, one ``Round`` per
    round (risk and environment losses in the target's units) and the certificate of Theorem 1.
    """
    opts = options or DeepSALOptions()
    fit = _DeepFit(problem, lambda_, y_scale, opts)
    learns = w_update is not None
    history: list[Round] = []
    stopped = False
    fit.erm_steps(opts.warmup_steps)
    for round_ in range(1, (rounds if learns else 1) + 1):
        risk, losses, grad_r = fit.risk(alpha if learns else 0.0, stability)
        w_now = [float(v) for v in fit.w.cpu()]
        history.append(
            Round(
                round=round_,
                risk=risk * fit.loss_scale,
                env_losses={
                    e.name: float(v) * fit.loss_scale for e, v in zip(problem.envs, losses, strict=True)
                },
                w=w_now,
            )
        )
        if reporter(round_, {"risk": risk * fit.loss_scale, "w": w_now}):
            stopped = True
            break
        if w_update is None:
            break
        grad_w = fit.grad_w(grad_r)
        w_new = w_update(fit.w.cpu().double().numpy(), grad_w.cpu().double().numpy())
        fit.w = torch.as_tensor(w_new, dtype=fit.Z.dtype, device=fit.Z.device)
        fit.theta_steps(opts.theta_steps)
    if not stopped:
        fit.theta_steps(opts.final_steps)
    certificate = fit.certificate()
    fit.rescale_output()
    return Solution(
        model=fit.model, covariate_weights=fit.w, history=history, certificate=certificate, stopped=stopped
    )


class _DeepFit:
    """The state one fit carries between steps: model, optimiser, w and every row's u."""

    def __init__(self, problem: Problem, lam: float, y_scale: float, opts: DeepSALOptions) -> None:
        self.problem, self.lam, self.opts = problem, lam, opts
        self.Z = problem.Z
        self.y = problem.y / y_scale
        self.y_scale = y_scale
        self.loss_scale = {"squared": y_scale**2, "absolute": y_scale}.get(problem.loss_name, 1.0)
        self.model = problem.new_model()
        self.params = list(self.model.parameters())
        self.optimizer = torch.optim.Adam(self.params, lr=opts.theta_lr)
        n, p = self.Z.shape
        self.w = torch.ones(p, dtype=self.Z.dtype, device=self.Z.device)
        self.u = torch.zeros_like(self.Z)  # the adversary's bank, u = w ⊙ δ per row
        self.active = torch.ones(n, dtype=torch.bool, device=self.Z.device)  # rows not settled
        self.rows_generator = torch.Generator().manual_seed(problem.seed)
        self.full_batch = n < opts.minibatch_from
        self.order = torch.empty(0, dtype=torch.int64, device=self.Z.device)
        self.cursor = 0
        self.eval_index = self._draw(min(n, opts.eval_rows)) if n > opts.eval_rows else None
        self.v: torch.Tensor | None = None  # H⁻¹∇_θR of the last round, CG's warm start
        self.ascent_evaluations = 0
        self.unconverged_steps = 0

    # ------------------------------------------------------------------ rows
    def _draw(self, m: int) -> torch.Tensor:
        n = self.Z.shape[0]
        # Drawn on the CPU and moved: a CUDA generator seeded alike yields another stream, so the
        # same seed would pick other rows on another device.
        perm = torch.randperm(n, generator=self.rows_generator)
        return perm[:m].to(self.Z.device)

    def _next_batch(self) -> torch.Tensor | None:
        if self.full_batch:
            return None
        n, b = self.Z.shape[0], self.opts.batch_rows
        if self.cursor + b > self.order.shape[0]:
            self.order, self.cursor = self._draw(n), 0
        batch = self.order[self.cursor : self.cursor + b]
        self.cursor += b
        return batch

    def _rows(self, index: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        if index is None:
            return self.Z, self.y, self.u
        return self.Z[index], self.y[index], self.u[index]

    def _row_loss(self, y: torch.Tensor) -> Callable[[torch.Tensor], torch.Tensor]:
        return lambda x_tilde: self.problem.loss(self.model(x_tilde), y)

    # ------------------------------------------------------------------ θ-steps
    def erm_steps(self, steps: int) -> None:
        """Adam steps on the plain loss (no adversary): one pass each, the warm-up's start for θ."""
        for _ in range(steps):
            index = self._next_batch()
            x, y, _ = self._rows(index)
            with torch.enable_grad():
                rows = self.problem.loss(self.model(x), y)
                grads = torch.autograd.grad(rows.mean(), self.params)
            for prm, g in zip(self.params, grads, strict=True):
                prm.grad = g
            self.optimizer.step()

    def theta_steps(self, steps: int) -> None:
        for _ in range(steps):
            index = self._next_batch()
            if index is None:
                self.u, self.active = self._theta_step(self.Z, self.y, self.u, self.active)
            else:
                self.u[index], self.active[index] = self._theta_step(
                    self.Z[index], self.y[index], self.u[index], self.active[index]
                )

    def _theta_step(
        self, x: torch.Tensor, y: torch.Tensor, u: torch.Tensor, active: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        lam, opts = self.lam, self.opts
        grads, gain, grad_u = self._pass(x, y, u)
        if relative_residual(grad_u, u, lam, active) > opts.ascent_tol:
            result = ascend(
                self._row_loss(y),
                x,
                self.w,
                lam,
                u,
                max_steps=opts.ascent_max_steps,
                tol=opts.ascent_tol,
                radius=opts.radius,
                start=(gain, grad_u),
            )
            self.ascent_evaluations += result.steps
            self.unconverged_steps += not result.converged
            u, active = result.u, result.active
            grads, gain, grad_u = self._pass(x, y, u)
        for prm, g in zip(self.params, grads, strict=True):
            prm.grad = g
        self.optimizer.step()
        # One more fixed-point step on the rows still moving keeps u on the moving optimum.
        stepped, inside = cap_rows(u + grad_u / (2.0 * lam), opts.radius)
        return torch.where(active[:, None], stepped, u), active & inside

    def _pass(
        self, x: torch.Tensor, y: torch.Tensor, u: torch.Tensor
    ) -> tuple[list[torch.Tensor], torch.Tensor, torch.Tensor]:
        """∇_θ mean ℓ(x + u/w), the gain per row (m,) and ∇_u gain (m, p): one forward, one backward."""
        with torch.enable_grad():
            x_tilde = (x + u / self.w).detach().requires_grad_(True)
            rows = self.problem.loss(self.model(x_tilde), y)
            got = torch.autograd.grad(rows.sum(), [*self.params, x_tilde])
        m = x.shape[0]
        gain = rows.detach() - self.lam * u.pow(2).sum(1)
        return [g / m for g in got[:-1]], gain, got[-1] / self.w - 2.0 * self.lam * u

    # ------------------------------------------------------------------ R and the w-gradient
    def risk(self, alpha: float, stability: str) -> tuple[float, np.ndarray, torch.Tensor]:
        """R (scaled units), environment losses (E,) and ∇_θR (flat) on the evaluation rows."""
        problem = self.problem
        index = self.eval_index
        x = self.Z if index is None else self.Z[index]
        y = self.y if index is None else self.y[index]
        env = problem.env_index if index is None else problem.env_index[index]
        with torch.enable_grad():
            rows = problem.loss(self.model(x), y)
            sums = torch.zeros(problem.n_envs, dtype=rows.dtype, device=rows.device).index_add(0, env, rows)
            counts = torch.bincount(env, minlength=problem.n_envs).to(rows.dtype).clamp_min(1.0)
            env_losses = sums / counts
            values = env_losses.detach().cpu().double().numpy()
            risk, d_losses = stability_risk(values, alpha, stability)
            weights = torch.as_tensor(d_losses, dtype=rows.dtype, device=rows.device)
            grads = torch.autograd.grad((weights * env_losses).sum(), self.params, allow_unused=True)
        flat = torch.cat(
            [
                torch.zeros_like(p).reshape(-1) if g is None else g.reshape(-1)
                for g, p in zip(grads, self.params, strict=True)
            ]
        )
        return risk, values, flat

    def grad_w(self, grad_r: torch.Tensor) -> torch.Tensor:
        """∂R/∂w (p,) by implicit differentiation on at most ``implicit_rows`` rows."""
        opts = self.opts
        n = self.Z.shape[0]
        index = None if n <= opts.implicit_rows else self._draw(opts.implicit_rows)
        x, y, u = self._rows(index)
        result = ascend(
            self._row_loss(y),
            x,
            self.w,
            self.lam,
            u,
            max_steps=4 * opts.ascent_max_steps,
            tol=opts.ascent_tol * 0.1,
            radius=opts.radius,
        )
        u = result.u
        if index is None:
            self.u, self.active = u, result.active
        else:
            self.u[index], self.active[index] = u, result.active
        answer = deep_implicit.risk_grad_w(
            self.model,
            self.problem.loss,
            x,
            y,
            u,
            self.w,
            self.lam,
            grad_r,
            free=result.active,
            curvature=opts.curvature,
            damping=opts.damping,
            cg_iters=opts.cg_iters,
            cg_tol=opts.cg_tol,
            v0=self.v,
        )
        self.v = answer.v
        return answer.grad_w

    # ------------------------------------------------------------------ the end
    def certificate(self) -> Certificate:
        """Theorem 1 at the fitted θ: ρ̂ = mean ‖u‖², worst-case risk = E[s_λ] + λρ̂ (target's units)."""
        opts = self.opts
        x, y, u = self._rows(self.eval_index)
        result = ascend(
            self._row_loss(y),
            x,
            self.w,
            self.lam,
            u,
            max_steps=10 * opts.ascent_max_steps,
            tol=opts.ascent_tol,
            radius=opts.radius,
        )
        if not result.converged:
            warnings.warn(
                f"the adversary stopped at relative residual {result.residual:.2g} > {opts.ascent_tol:g}: "
                "the certificate is approximate; a larger lambda_ (a weaker adversary) converges faster",
                AdversaryConvergenceWarning,
                stacklevel=3,
            )
        with torch.no_grad():
            cost = result.u.pow(2).sum(1)
            value = self.problem.loss(self.model(x + result.u / self.w), y) - self.lam * cost
        rho = float(cost.mean())
        return Certificate(rho, (float(value.mean()) + self.lam * rho) * self.loss_scale, self.lam)

    def rescale_output(self) -> None:
        """Undo the target scaling: the last layer's weight and bias times y_scale."""
        if self.y_scale == 1.0:
            return
        with torch.no_grad():
            for tensor in self.params[-2:]:
                tensor.mul_(self.y_scale)


__all__ = ["AdversaryConvergenceWarning", "DeepSALOptions", "fit_deep_sal"]
