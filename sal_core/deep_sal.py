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

Each θ-step is one forward and one backward pass at x̃ = x + u / w, which yields ∇_θ ℓ (for Adam),
∇_x ℓ and ℓ', ℓ'' per row; then every row's u takes one Newton step with the rank-one curvature
(:func:`sal_core.deep_adversary.newton_update`, exact inside a ReLU region for the squared loss).
No branch on a residual and no per-row accept/settle decision: the fixed-point ascent with those
decisions used before amplified a 1e-15 relative change of Z to 4e-3 in θ within 5 θ-steps (rows
with λ near their curvature iterate at rate ‖â‖²/λ ≈ 3.5), which is why CPU and CUDA fits parted;
with the Newton step the same change stays at 2e-15 after 15 θ-steps and one w-gradient. Before each
w-gradient and the certificate, u takes ``newton_steps`` (4×) Newton steps at the fixed θ.

ReLU MLPs (the default network) skip autograd: :mod:`sal_core.relu_net` runs the forward and
backward passes by hand, feature-major ((p, m) rows, so every product is a fast GEMM on one CPU
thread, and a full-batch θ-step transposes nothing), and Adam on one flat parameter vector. The
values are autograd's and ``torch.optim.Adam``'s up to the order of floating-point sums;
``DeepSALOptions(hand_written=False)`` keeps autograd (the tests compare the two).

Minibatch schedule: full batch below ``minibatch_from`` rows (10⁵). From there each θ-step takes
``batch_rows`` rows, drawn without replacement and reshuffled every epoch from a CPU generator seeded
with ``problem.seed`` (the same rows on every device: a CUDA generator gives another stream);
Adam's step size is unchanged; a row's u waits in a per-row bank (n, p) between visits and is
re-ascended to the tolerance when its row is drawn again. R, the environment losses and the
certificate use at most ``eval_rows`` rows (a fixed draw), the w-gradient at most ``implicit_rows``
(a fresh draw each round).

Streamed (``batches`` given: a table read chunk by chunk, :mod:`sal_core.minibatches`): every θ-step
takes the stream's next minibatch instead, and ``problem`` holds only the fixed evaluation sample
(R, the environment losses, the certificate, the w-gradient's rows). No row bank is kept for the
streamed rows (it would be the table's size): each minibatch's u starts at 0 and takes
``newton_steps`` Newton steps at the current θ before its θ-step (exact in one step inside a ReLU
region for the squared loss), so a streamed adversarial step costs ``newton_steps + 1`` passes over
its minibatch instead of one.

Regression targets arrive divided by nothing: this module divides them by ``y_scale`` (so λ is
unit-free, as on the linear path), reports risks and the certificate in the target's units and
rescales the network's last layer on the way out.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import numpy as np
import torch

from sal_core import deep_implicit, losses
from sal_core.deep_adversary import newton_update
from sal_core.history import Round
from sal_core.optim import FlatAdam, release_storage
from sal_core.problem import Certificate, Problem, Reporter, Solution
from sal_core.relu_net import ReluNet, output_gradient
from sal_core.robust_linear import stability_risk

WUpdate = Callable[[np.ndarray, np.ndarray], np.ndarray]
ERM_CHECKPOINT = 100
"""ERM steps between the states a fit leaves on its problem for the next fit on the same rows."""
ERM_CHECKPOINTS_KEPT = 4  # the first ones (the warm-up is 300 steps): memory 4 x 3|θ| per key
_CHECKPOINTS = "_deep_sal_erm_checkpoints"  # the attribute of a Problem that holds them


class AdversaryConvergenceWarning(UserWarning):
    """The inner maximisation stopped at its step limit above its tolerance."""


@dataclass(frozen=True)
class DeepSALOptions:
    """Knobs of the deep path, with the defaults measured on the paper's settings."""

    theta_lr: float = 0.01  # Adam step size for θ (ERM's)
    warmup_steps: int = 300  # θ-steps at w = 1 before the first w-step
    theta_steps: int = 25  # θ-steps after each w-step
    final_steps: int = 200  # θ-steps at the final w
    ascent_tol: float = 1e-2  # relative change of the mean gain the certificate warns above
    newton_steps: int = 3  # Newton steps on u before each w-gradient (the certificate: 4×)
    radius: float = 10.0  # cap on ‖u_i‖ (standardised covariate units)
    minibatch_from: int = 100_000  # full batch below this many rows
    batch_rows: int = 8192  # θ-step minibatch from ``minibatch_from`` rows
    eval_rows: int = 65_536  # rows for R, environment losses and the certificate, at most
    implicit_rows: int = 4096  # rows for ∂R/∂w, at most
    curvature: str = "auto"  # per-row Ã⁻¹: 'rank_one', 'exact' or 'auto' (see deep_implicit)
    damping: float = 1e-4  # μ in (H + μI) v = ∇_θR
    cg_iters: int = 20
    cg_tol: float = 1e-2
    hand_written: bool = True  # ReLU MLPs: sal_core.relu_net's passes and Adam, not autograd's (same values)


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
    initial_w: torch.Tensor | None = None,
    adversary: bool = True,
    ticks: int = 1,
    batches: Iterable[tuple[torch.Tensor, torch.Tensor]] | None = None,
) -> Solution:
    """Fit SAL (``w_update`` given) or one θ fit at a fixed w (``w_update=None``: ``initial_w``, else
    w ≡ 1, i.e. WDRL) on ``problem``; ``adversary=False`` makes that fixed-w fit plain ERM with the
    same schedule (full batch below ``minibatch_from`` rows, minibatches above).

    ``problem`` carries standardised covariates, the loss and the model family (the model starts as
    ``problem.new_model()`` builds it); ``y_scale`` divides regression targets inside the fit.
    Returns the module in the target's units, w (p,) on the problem's device, one ``Round`` per
    round (risk and environment losses in the target's units; a fixed-w fit records its one round
    after its final steps) and the certificate of Theorem 1. A fixed-w fit reports progress ``ticks``
    times (its final steps in as many chunks; the round's metrics come with the last), so a long fit
    can be watched and stopped between chunks.

    ``batches``: the θ-steps' minibatches (Z (b, p) standardised, y (b,) in the target's units) from
    a stream (:class:`sal_core.minibatches.ShuffledChunks`) instead of ``problem``'s rows, which are
    then the evaluation sample only (see "Streamed" above).
    """
    opts = options or DeepSALOptions()
    fit = _DeepFit(problem, lambda_, y_scale, opts, None if batches is None else iter(batches))
    if initial_w is not None:
        fit.w = initial_w.to(dtype=fit.Z.dtype, device=fit.Z.device).clone()
    learns = w_update is not None
    history: list[Round] = []
    stopped = False
    fit.erm_steps(opts.warmup_steps)
    if not learns:  # one θ fit at the fixed w, then its one round
        step = fit.theta_steps if adversary else fit.erm_steps
        chunks = [len(c) for c in np.array_split(np.arange(opts.final_steps), max(ticks, 1))]
        for tick, size in enumerate(chunks[:-1], start=1):
            step(size)
            if reporter(tick):
                stopped = True
                break
        if not stopped:
            step(chunks[-1])
    for round_ in range(1, (rounds if learns else 1) + 1):
        if stopped:
            break
        risk, losses, grad_r = fit.risk(alpha if learns else 0.0, stability)
        w_now = [float(v) for v in fit.w.cpu()]
        history.append(
            Round(
                round=round_,
                risk=risk * fit.loss_scale,
                env_losses=problem.by_env(losses, fit.loss_scale),
                w=w_now,
            )
        )
        if reporter(round_ if learns else max(ticks, 1), {"risk": risk * fit.loss_scale, "w": w_now}):
            stopped = True
            break
        if w_update is None:
            break
        grad_w = fit.grad_w(grad_r)
        w_new = w_update(fit.w.cpu().double().numpy(), grad_w.cpu().double().numpy())
        fit.w = torch.as_tensor(w_new, dtype=fit.Z.dtype, device=fit.Z.device)
        fit.theta_steps(opts.theta_steps)
    if learns and not stopped:
        fit.theta_steps(opts.final_steps)
    certificate = fit.certificate()
    fit.rescale_output()
    return Solution(
        model=fit.model, covariate_weights=fit.w, history=history, certificate=certificate, stopped=stopped
    )


class _DeepFit:
    """The state one fit carries between steps: model, optimiser, w and every row's u."""

    def __init__(
        self,
        problem: Problem,
        lam: float,
        y_scale: float,
        opts: DeepSALOptions,
        stream: Iterator[tuple[torch.Tensor, torch.Tensor]] | None = None,
    ) -> None:
        self.problem, self.lam, self.opts = problem, lam, opts
        self.stream = stream  # streamed θ-step minibatches; then problem holds the evaluation rows
        self.Z = problem.Z
        self.y = problem.y / y_scale
        self.y_scale = y_scale
        self.loss_scale = {"squared": y_scale**2, "absolute": y_scale}.get(problem.loss_name, 1.0)
        self.model = problem.new_model()
        self.params = list(self.model.parameters())
        # ReLU MLPs: hand-written passes and Adam on one flat vector (sal_core.relu_net), the same
        # arithmetic as autograd and torch.optim.Adam up to the order of sums; others: autograd.
        self.net = ReluNet.of(self.model) if opts.hand_written else None
        self.adam: FlatAdam | None = None
        self.optimizer: torch.optim.Adam | None = None
        if self.net is not None:
            self.adam = FlatAdam(self.params, lr=opts.theta_lr)
        else:
            self.optimizer = torch.optim.Adam(self.params, lr=opts.theta_lr)
        n, p = self.Z.shape
        self.w = torch.ones(p, dtype=self.Z.dtype, device=self.Z.device)
        self.u = torch.zeros_like(self.Z)  # the adversary's bank, u = w ⊙ δ per row
        self.rows_generator = torch.Generator().manual_seed(problem.seed)
        self.full_batch = n < opts.minibatch_from
        self.order = torch.empty(0, dtype=torch.int64, device=self.Z.device)
        self.cursor = 0
        self.eval_index = self._draw(min(n, opts.eval_rows)) if n > opts.eval_rows else None
        self.v: torch.Tensor | None = None  # H⁻¹∇_θR of the last round, CG's warm start
        # Full batch on the fast path: the rows feature-major (p, n), as ReluNet takes them.
        self.Z_t = self.Z.t().contiguous() if self.net is not None and self.full_batch else None
        # Fits on the same rows from the same initial model (λ's candidates: the adversarial fits'
        # ERM warm-ups and the ERM candidate) take the same first ERM steps: every ERM_CHECKPOINT of
        # them, while a fit has taken nothing else, its θ and Adam state are kept on the problem
        # (the first ERM_CHECKPOINTS_KEPT, per rows, model, seed, loss and step size) and a later
        # fit resumes from the furthest one it would reach, with the same bits.
        self.erm_done = 0  # ERM steps from the initial model, while they are all this fit took
        self.checkpoints: dict[int, tuple[torch.Tensor, ...]] | None = None
        if self.adam is not None and self.Z_t is not None and stream is None:
            shared: dict[tuple[object, ...], dict[int, tuple[torch.Tensor, ...]]]
            shared = vars(problem).setdefault(_CHECKPOINTS, {})
            key = (
                y_scale, opts.theta_lr, problem.seed, problem.loss_name, repr(problem.model_spec),
                problem.Z.data_ptr(), tuple(problem.Z.shape), problem.Z.dtype, str(problem.Z.device),
            )  # fmt: skip
            self.checkpoints = shared.setdefault(key, {})

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

    def _streamed(self) -> tuple[torch.Tensor, torch.Tensor]:
        assert self.stream is not None
        x, y = next(self.stream)
        return x.to(self.Z.device, self.Z.dtype), y.to(self.Z.device, self.Z.dtype) / self.y_scale

    def _row_loss(self, y: torch.Tensor) -> Callable[[torch.Tensor], torch.Tensor]:
        return lambda x_tilde: self.problem.loss(self.model(x_tilde), y)

    # ------------------------------------------------------------------ θ-steps
    def _adam_step(self, grads: list[torch.Tensor], divisor: float | None = None) -> None:
        """One Adam step on ``grads`` (each divided by ``divisor`` when given)."""
        if self.adam is not None:
            self.adam.step(grads, divisor)
            return
        assert self.optimizer is not None
        for prm, g in zip(self.params, grads, strict=True):
            prm.grad = g if divisor is None else g / divisor
        self.optimizer.step()

    def _resume(self, steps: int) -> int:
        """Jump to the furthest checkpoint within the next ``steps`` ERM steps; the steps left."""
        if self.checkpoints is None:
            return steps
        target = self.erm_done + steps
        ahead = [k for k in self.checkpoints if self.erm_done < k <= target]
        if ahead and self.adam is not None:
            self.erm_done = max(ahead)
            for tensor, saved in zip(self.adam.state(), self.checkpoints[self.erm_done], strict=True):
                tensor.copy_(saved)
            self.adam.steps = self.erm_done
        return target - self.erm_done

    def _checkpoint(self) -> None:
        if self.checkpoints is None or self.adam is None:
            return
        self.erm_done += 1
        if (
            self.erm_done % ERM_CHECKPOINT == 0
            and self.erm_done not in self.checkpoints
            and len(self.checkpoints) < ERM_CHECKPOINTS_KEPT
        ):
            self.checkpoints[self.erm_done] = tuple(t.clone() for t in self.adam.state())

    def erm_steps(self, steps: int) -> None:
        """Adam steps on the plain loss (no adversary): one pass each, the warm-up's start for θ."""
        for _ in range(self._resume(steps)):
            if self.stream is not None:
                x, y = self._streamed()
            else:
                x, y, _ = self._rows(self._next_batch())
            if self.net is not None:
                x_t = self.Z_t if self.Z_t is not None and self.stream is None else x.t().contiguous()
                out, inputs = self.net.forward(x_t)
                scale = 1.0 / x.shape[0]  # the mean's backward
                d_out = output_gradient(self.problem.loss_name, out, y) * scale
                grads = self.net.backward(inputs, d_out, x=False)[0]
            else:
                with torch.enable_grad():
                    rows = self.problem.loss(self.model(x), y)
                    grads = list(torch.autograd.grad(rows.mean(), self.params))
            self._adam_step(grads)
            self._checkpoint()

    def theta_steps(self, steps: int) -> None:
        self.checkpoints = None  # θ now leaves the ERM path
        if self.Z_t is not None and self.stream is None:  # full batch, ReLU MLP: feature-major
            u_t = self.u.t().contiguous()
            for _ in range(steps):
                u_t = self._theta_step_t(self.Z_t, self.y, u_t)
            # The bank becomes a transposed view of u_t, and grad_w later writes rows of it in place
            # (self.u[index] = u). No alias can see that write: newton_update returns a new tensor
            # every step (u + step, u * scale or torch.where's), never its input, so the bank alone
            # holds u_t's storage; the next call's .t().contiguous() gets that storage back uncopied
            # but only reads it before the bank is replaced.
            self.u = u_t.t()
            return
        for _ in range(steps):
            if self.stream is not None:  # no bank: u from 0, solved at the current θ first
                x, y = self._streamed()
                u, _ = self._solve_u(x, y, torch.zeros_like(x), self.opts.newton_steps)
                self._theta_step(x, y, u)
                continue
            index = self._next_batch()
            if index is None:
                self.u = self._theta_step(self.Z, self.y, self.u)
            else:
                self.u[index] = self._theta_step(self.Z[index], self.y[index], self.u[index])

    def _theta_step(self, x: torch.Tensor, y: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
        """One Adam step at x + u/w, then one Newton step of every row's u at the new θ: one pass.

        The θ gradient lags u by one step (u solved for the previous θ); no branch on a residual and
        no per-row accept/settle decision, so the step is a continuous function of its inputs.
        """
        grads, grad_x, d1, d2, _ = self._pass(x, y, u)
        self._adam_step(grads)
        return newton_update(u, grad_x, d1, d2, self.w, self.lam, self.opts.radius)[0]

    def _theta_step_t(self, x_t: torch.Tensor, y: torch.Tensor, u_t: torch.Tensor) -> torch.Tensor:
        """:meth:`_theta_step` on feature-major rows x_t, u_t (p, m) through :class:`ReluNet`: the same
        arithmetic per element, no transposed copies; returns u_t (p, m)."""
        assert self.net is not None
        out, inputs = self.net.forward(x_t + u_t / self.w[:, None])
        name = self.problem.loss_name
        d1, d2 = losses.output_derivatives(name, out, y)
        d_out = output_gradient(name, out, y) if name == "logistic" else d1  # the same values
        grads, grad_x_t = self.net.backward(inputs, d_out)
        assert grad_x_t is not None
        self._adam_step(grads, x_t.shape[1])
        return newton_update(u_t, grad_x_t, d1, d2, self.w, self.lam, self.opts.radius, features=0)[0]

    def _pass(
        self, x: torch.Tensor, y: torch.Tensor, u: torch.Tensor, *, theta: bool = True
    ) -> tuple[list[torch.Tensor], torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """∇_θ mean ℓ(x + u/w) (when ``theta``), ∇_x ℓ per row (m, p), ℓ', ℓ'' and ℓ per row (m,)."""
        m = x.shape[0]
        if self.net is not None:
            out, inputs = self.net.forward((x + u / self.w).t().contiguous())
            name = self.problem.loss_name
            d1, d2 = losses.output_derivatives(name, out, y)
            d_out = output_gradient(name, out, y) if name == "logistic" else d1  # the same values
            grads, grad_x = self.net.backward(inputs, d_out, theta=theta)
            assert grad_x is not None
            return [g / m for g in grads], grad_x.t().contiguous(), d1, d2, self.problem.loss(out, y)
        with torch.enable_grad():
            x_tilde = (x + u / self.w).detach().requires_grad_(True)
            out = self.model(x_tilde)
            rows = self.problem.loss(out, y)
            d1, d2 = losses.output_derivatives(self.problem.loss_name, out, y)
            inputs = [*self.params, x_tilde] if theta else [x_tilde]
            got = torch.autograd.grad(rows.sum(), inputs)
        return [g / m for g in got[:-1]], got[-1], d1, d2, rows.detach()

    def _solve_u(
        self, x: torch.Tensor, y: torch.Tensor, u: torch.Tensor, steps: int
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """``steps`` Newton steps on every row's u at the current θ: (u, rows inside the cap). The
        certificate, which needs to know how far the ascent got, uses :meth:`_polish_u` instead."""
        inside = u.norm(dim=1) < self.opts.radius
        for _ in range(steps):
            _, grad_x, d1, d2, _ = self._pass(x, y, u, theta=False)
            u, inside = newton_update(u, grad_x, d1, d2, self.w, self.lam, self.opts.radius)
        return u, inside

    def _polish_u(
        self, x: torch.Tensor, y: torch.Tensor, u: torch.Tensor, steps: int
    ) -> tuple[torch.Tensor, float]:
        """Newton steps a row keeps only while they raise its gain; a row whose step lowers it is
        settled where it was. The mean gain then never falls, so its relative change over the last
        step (returned with u) measures convergence even where maximisers sit on a ReLU kink and plain
        Newton steps straddle it for ever (the certificate warned on most MLP fits before)."""
        settled = torch.zeros(x.shape[0], dtype=torch.bool, device=x.device)
        kept, kept_gain, change = u, None, float("inf")
        for _ in range(steps):
            _, grad_x, d1, d2, rows = self._pass(x, y, u, theta=False)
            gain = rows - self.lam * u.pow(2).sum(1)
            if kept_gain is not None:
                worse = gain < kept_gain
                settled |= worse
                u = torch.where(worse[:, None], kept, u)
                gain = torch.where(worse, kept_gain, gain)
                before, after = float(kept_gain.mean()), float(gain.mean())
                change = abs(after - before) / max(abs(after), 1e-12)
            kept, kept_gain = u, gain
            proposal, _ = newton_update(u, grad_x, d1, d2, self.w, self.lam, self.opts.radius)
            u = torch.where(settled[:, None], u, proposal)
        return kept, change

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
        u, inside = self._solve_u(x, y, u, opts.newton_steps)
        if index is None:
            self.u = u
        else:
            self.u[index] = u
        answer = deep_implicit.risk_grad_w(
            self.model,
            self.problem.loss,
            x,
            y,
            u,
            self.w,
            self.lam,
            grad_r,
            free=inside,
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
        u, residual = self._polish_u(x, y, u, 4 * opts.newton_steps)
        if residual > opts.ascent_tol:
            warnings.warn(
                f"the adversary's mean gain still changed by {residual:.2g} > {opts.ascent_tol:g}: "
                "the certificate is approximate; a larger lambda_ (a weaker adversary) converges faster",
                AdversaryConvergenceWarning,
                stacklevel=3,
            )
        with torch.no_grad():
            cost = u.pow(2).sum(1)
            value = self.problem.loss(self.model(x + u / self.w), y) - self.lam * cost
        rho = float(cost.mean())
        return Certificate(rho, (float(value.mean()) + self.lam * rho) * self.loss_scale, self.lam)

    def rescale_output(self) -> None:
        """Undo the target scaling: the last layer's weight and bias times y_scale; the parameters get
        their own storage back (FlatAdam shared one)."""
        if self.adam is not None:
            release_storage(self.params)
        if self.y_scale == 1.0:
            return
        with torch.no_grad():
            for tensor in self.params[-2:]:
                tensor.mul_(self.y_scale)


__all__ = ["AdversaryConvergenceWarning", "DeepSALOptions", "fit_deep_sal"]
