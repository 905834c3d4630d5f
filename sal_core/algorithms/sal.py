"""Stable Adversarial Learning (Algorithm 1 of the paper): WDRL whose transport cost learns w.

Each round: θ ← argmin_θ mean s_λ(θ; x, y) with c_w(x̃, x) = ‖w ⊙ (x̃ − x)‖² (WDRL's θ-step at the
current w), then R(θ) = mean_e L^e + α·spread_e(L^e) and w ← update(w, ∂R/∂w) on
W = {w ≥ 1, min w = 1}. ∂R/∂w is computed

* **exactly** on the ridge path (linear model, squared loss; the default there): implicit
  differentiation on p×p moments (:func:`sal_core.robust_linear.risk_grad_w`), O(p³) per round;
* **exactly** for other linear losses with the closed-form adversary (autograd Hessian);
* by the paper's **Section 4.2.1 approximation** on the gradient adversary (``gradient="paper"``).

For an MLP, w is learned on the exact path with a linear model of the same rows and then held fixed
while the network is trained under c_w (``w_source="auto"``; ``"network"`` learns it through the
network by implicit differentiation, :mod:`sal_core.deep_sal`).

Defaults (the measurements behind them are in docs/sal.md):

* ``lambda_ = "auto"``: λ = c · MSE_OLS with c on a relative grid, every candidate fitted on every
  fold of a 5-fold split of each training environment (folds by row content, so the order of
  environments and rows does not matter), scored by the worst environment's out-of-fold RMSE with
  paired standard errors, and the most robust candidate within one standard error of the best kept
  (:mod:`sal_core.lambda_selection`, :mod:`sal_core.exact_selection`).
* On the exact path: ``w_update = "adam_log"`` with step 0.1 for 400 rounds, α = 0.5 and the std
  of environment losses as the spread; every λ candidate tried with both anchors of min w = 1.
  Elsewhere ``"auto"`` keeps the cheaper schedule: ``scaled_log``, step 0.3, 40 rounds.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import torch

from sal_core import deep_sal
from sal_core import exact_batch as eb
from sal_core import exact_selection as es
from sal_core import lambda_selection as ls
from sal_core import robust_gradient as rg
from sal_core import robust_linear as rl
from sal_core.algorithms.base import Problem, Reporter, Solution
from sal_core.algorithms.wdrl import (
    ERM_STEPS,
    WDRL,
    WDRLParams,
    _loss_scale,
    _Offset,
    _rescale_output,
    _round,
    _target_scale,
    ridge_solution,
)
from sal_core.covariate_weights import WUpdate, make_w_update
from sal_core.exceptions import InvalidParameterError
from sal_core.models import ModelSpec
from sal_core.params import AUTO, param


@dataclass
class Convergence:
    """Stops the exact path once w and R have settled: for ``window`` rounds in a row no log w moved
    by more than ``tol`` and R changed by at most ``tol`` relative to itself. ``tol = 0`` never stops.
    A converged fit reports the rounds it ran (its history) and keeps the w it had."""

    tol: float
    window: int = 25
    _calm: int = 0
    _risk: float | None = None

    def __call__(self, w: np.ndarray, w_next: np.ndarray, risk: float) -> bool:
        if self.tol <= 0:
            return False
        moved = float(np.max(np.abs(np.log(w_next) - np.log(w))))
        still = self._risk is not None and abs(risk - self._risk) <= self.tol * max(abs(risk), 1e-300)
        self._risk = risk
        self._calm = self._calm + 1 if moved <= self.tol and still else 0
        return self._calm >= self.window


@dataclass(frozen=True)
class Schedule:
    """The w-learning schedule a fit runs, with every ``"auto"`` resolved for its path."""

    rounds: int
    w_lr: float
    w_update: str


EXACT_SCHEDULE = Schedule(rounds=400, w_lr=0.1, w_update="adam_log")
"""400 rounds at step 0.1 end where 800 at 0.05 did (anti-causal S1 dev seeds 100-111: test Mean_Error
0.396 vs 0.394; selection bias, house prices and wages within 0.001) at half the cost; 200 at 0.2
cost 1% on house prices and 100 at 0.4 broke the anti-causal fits (docs/sal.md)."""
GRADIENT_SCHEDULE = Schedule(rounds=40, w_lr=0.3, w_update="scaled_log")


@dataclass(frozen=True)
class SALParams(WDRLParams):
    retired: ClassVar[frozenset[str]] = frozenset({"selection_tolerance", "holdout_fraction", "starts"})

    selection_se: float = param(
        1.0,
        low=0.0,
        high=100.0,
        doc="lambda_='auto' keeps the most robust candidate whose worst-training-environment out-of-fold "
        "error is within this many standard errors (of the paired difference) of the best candidate's; when "
        "the data separate the candidates by more, the best wins, ERM included. 1 (the one-standard-error "
        "rule): on real tables 2 and 3 cost up to 1.4% against ERM, and the anti-causal shift did not gain "
        "(docs/sal.md).",
    )
    alpha: float = param(
        0.5, low=0.0, high=1e4, doc="α, weight of the spread of training-environment losses in R(θ)."
    )
    stability: str = param(
        "std",
        choices=("std", "range"),
        doc="Spread in R: 'std' of environment losses (smooth) or the paper's max − min.",
    )
    rounds: int | str = param(
        AUTO,
        low=1,
        high=100_000,
        doc="T, outer rounds (one θ-step and one w-step each). 'auto': 400 on the exact path (step × rounds "
        "must be ≳ 40), 40 on gradient paths.",
    )
    w_lr: float | str = param(
        AUTO,
        low=0.0,
        low_inclusive=False,
        high=1e6,
        doc="ε_w, step size of the w update. 'auto': 0.1 on the exact path, 0.3 on gradient paths.",
    )
    w_max: float = param(
        1e4,
        low=1.0,
        high=1e12,
        doc="Cap on w. At w = 10⁴ moving a covariate costs the adversary 10⁸ per unit: in effect never "
        "perturbed. Keeps reported weights readable without changing θ.",
    )
    w_update: str = param(
        AUTO,
        choices=(AUTO, "adam_log", "scaled_log", "adaptive_log", "projected"),
        doc="'adam_log': Adam on log w, then log w − min log w (min w = 1 exactly); 'scaled_log': a step on "
        "log w proportional to ∂R/∂log w with one global RMS scale; 'adaptive_log': per-coordinate RMSprop "
        "on log w, clipped at 1; 'projected': the paper's Proj_W(w − ε_w ∂R/∂w). 'auto': adam_log on the "
        "exact path, scaled_log on gradient paths.",
    )
    gradient: str = param(
        AUTO,
        choices=(AUTO, "exact", "paper"),
        doc="How ∂R/∂w is computed: 'exact' (implicit differentiation; linear models), 'paper' (Section 4.2.1 "
        "approximation), 'auto' = exact for linear models, paper for MLPs.",
    )
    theta_steps: int = param(
        50, low=1, high=1_000_000, doc="T_θ, Adam steps on θ per round (gradient paths only)."
    )
    anchor: str = param(
        AUTO,
        choices=(AUTO, "all", "significant"),
        doc="Which covariate W's min w = 1 pins (exact path, adam_log). 'all': the least-protected covariate, as "
        "in the paper; 'significant': the least-protected among covariates whose pooled least-squares |t| ≥ 3 "
        "(one the model leans on, never a useless one); 'auto' (default): lambda_='auto' fits both at every λ "
        "and keeps, per λ, the one with the lower out-of-fold score (docs/sal.md).",
    )
    convergence_tol: float = param(
        0.0,
        low=0.0,
        high=1.0,
        doc="Exact path: stop before `rounds` once, for 25 rounds in a row, no log w moves by more than this and "
        "R changes by at most this fraction; the result's history shows the rounds run. Default 0 (every round): "
        "SAL's w path has long plateaus that look converged, and stopping on them broke the anti-causal fits "
        "(docs/sal.md, 'Stopping early').",
    )
    w_source: str = param(
        AUTO,
        choices=(AUTO, "linear", "network"),
        doc="Non-linear models (MLPs): where w comes from. 'linear': learned by SAL's exact path on a linear "
        "model of the same rows (lambda_='auto' there), then held fixed while the network is trained "
        "adversarially under that cost; 'network': learned through the network itself (implicit "
        "differentiation, sal_core.deep_sal), from w = 1. 'auto' = 'linear' (measured on dev seeds: the "
        "network's own w-gradient did not beat ERM on anti-causal data; docs/benchmarks.md).",
    )


EXACT_GRID: tuple[float, ...] = (1e-3, 1e-2, 1e-1, 1.0, ls.OFF)
"""SAL's relative λ candidates on the exact path (× the pooled OLS MSE), most robust first; the
last one switches the adversary off (ERM)."""
DEEP_GRID: tuple[float, ...] = (1.0, ls.OFF)
"""SAL's λ candidates for MLPs learning w through the network (``w_source="network"``): λ = 1
(unit-free; at 0.1 the network outgrows what the adversary can pay for and most rows hit the radius
cap) and the fallback to ERM."""
SEEDED_GRID: tuple[float, ...] = (1e-1, 1.0, ls.OFF)
"""SAL's relative λ candidates for MLPs under the linear path's w (× the pooled OLS MSE, as on the
exact path), most robust first; the last one is ERM with the same network."""
SEEDED_TICKS = 10
"""Progress steps per network fit under the linear path's w (one per tenth of its final steps)."""
SEEDED_OPTIONS = deep_sal.DeepSALOptions(final_steps=800, minibatch_from=16_384)
"""The network's fit at the fixed w: 300 ERM warm-up steps, then 800 adversarial θ-steps (at 200 the
fit had not converged: anti-causal dev seeds 100-102 0.85 / 1.06 / 0.41 vs 0.48 / 0.70 / 0.45).
Full batch below 16,384 rows; from there each step takes 8,192 rows (reshuffled every epoch), so a
fit costs the same ~1,100 steps whatever n is: at n = 10⁵ the λ candidates (80,000 rows) took 130 s
each in full batch on one core, the refit on minibatches 10 s."""
GRADIENT_GRID: tuple[float, ...] = (0.1, ls.OFF)
"""SAL's λ candidates on gradient paths (unit-free): each SAL candidate is a full fit of 40 rounds
(~9 s for logistic loss at n = 2000 on one core), so only the paper-setting λ = 0.1 and the fallback
to ERM. On classification under selection bias (seeds 0-2) it keeps 0.1: accuracy 0.842 vs ERM 0.830."""


class SAL(WDRL):
    """Stable Adversarial Learning: WDRL whose transport cost learns a weight per covariate."""

    name = "sal"
    params_type = SALParams
    min_environments = 2
    summary = "Stable Adversarial Learning: Wasserstein DRO with a learned per-covariate transport cost."
    exact_grid: ClassVar[tuple[float, ...]] = EXACT_GRID
    gradient_grid: ClassVar[tuple[float, ...]] = GRADIENT_GRID
    prefer: ClassVar[ls.Prefer] = "robust"
    _seed_w: torch.Tensor | None = None  # an MLP fit's w, learned on the linear path (seeds_w)

    @property
    def sal_params(self) -> SALParams:
        assert isinstance(self.params, SALParams)
        return self.params

    def steps_per_fit(self) -> int:
        return SEEDED_TICKS if self.seeds_w() else self.schedule().rounds

    def exact_plan(self) -> es.Plan:
        p, schedule = self.sal_params, self.schedule()
        return es.Plan(
            relatives=self.exact_grid,
            learns_w=True,
            settings=eb.PathSettings(
                rounds=schedule.rounds, lr=schedule.w_lr, w_max=p.w_max, alpha=p.alpha, stability=p.stability
            ),
            z=p.selection_se,
            prefer=self.prefer,
            folds=p.folds,
            anchors=("all", "significant") if p.anchor == AUTO else (p.anchor,),
        )

    def auto_is_exact(self) -> bool:
        """The exact path's batched selection runs Adam on log w; another w rule takes the loop."""
        return super().auto_is_exact() and self.schedule().w_update == "adam_log"

    def _fit_selected(self, problem: Problem, reporter: Reporter) -> Solution:
        if self.params.lambda_ == AUTO and self.uses_ridge_path() and not self.auto_is_exact():
            return self._fit_heldout_auto(problem, reporter, _target_scale(problem))
        return super()._fit_selected(problem, reporter)

    def total_steps(self) -> int:
        """Progress steps; an MLP fit whose w comes from the linear path counts that path's rounds first
        (its batched selection, then its refit), then ten steps per network fit."""
        seeding = self.w_seeder().total_steps() if self.seeds_w() else 0
        return seeding + super().total_steps()

    # ------------------------------------------------------------------- MLPs: w from the linear path
    def seeds_w(self) -> bool:
        """Does this fit take w from SAL's exact linear path (an MLP with w_source 'linear' or 'auto')?"""
        return self.uses_deep_path() and self.sal_params.w_source != "network"

    def w_seeder(self) -> SAL:
        """The linear SAL that learns w for a network: the same parameters and seed, lambda_='auto',
        on the exact path (squared loss; for classification a linear probability model of the labels)."""
        params = dataclasses.replace(
            self.sal_params, lambda_=AUTO, gradient=AUTO, adversary=AUTO, w_source=AUTO
        )
        return SAL(params, model=ModelSpec(), seed=self.seed, device=str(self.device), dtype=self.dtype)

    def _fit(self, problem: Problem, reporter: Reporter) -> Solution:
        if not self.seeds_w():
            return super()._fit(problem, reporter)
        seeder = self.w_seeder()
        linear = dataclasses.replace(problem, task="regression", loss_name="squared", model_spec=ModelSpec())
        seeded = seeder._fit(linear, reporter)
        if seeded.stopped:  # cancelled while learning w: the network is untrained
            return Solution(
                model=problem.new_model(),
                covariate_weights=seeded.covariate_weights,
                history=seeded.history,
                stopped=True,
            )
        assert seeded.covariate_weights is not None
        self._seed_w = seeded.covariate_weights
        solution = super()._fit(problem, _Offset(reporter, seeder.total_steps()))
        solution.selection = dataclasses.replace(
            solution.selection or ls.FitSelection(),
            covariate_weights=ls.SeededW(
                source="SAL's exact path on a linear model of the same rows, then held fixed",
                w=tuple(float(v) for v in seeded.covariate_weights.cpu()),
                selection=seeded.selection,
            ),
        )
        return solution

    def schedule(self) -> Schedule:
        """Rounds, step and rule with every 'auto' resolved for this fit's path."""
        p = self.sal_params
        base = EXACT_SCHEDULE if self.uses_ridge_path() else GRADIENT_SCHEDULE
        return Schedule(
            rounds=base.rounds if p.rounds == AUTO else int(p.rounds),
            w_lr=base.w_lr if p.w_lr == AUTO else float(p.w_lr),
            w_update=base.w_update if p.w_update == AUTO else p.w_update,
        )

    def _w_step(self, anchor: np.ndarray | None = None) -> WUpdate:
        s = self.schedule()
        return make_w_update(s.w_update, s.w_lr, self.sal_params.w_max, anchor)

    # ------------------------------------------------------------------------------------ options
    def _check_options(self, problem: Problem) -> None:
        super()._check_options(problem)
        p = self.sal_params
        if p.gradient == "exact" and not problem.model_spec.is_linear:
            raise InvalidParameterError(
                "gradient='exact' needs a linear model; use 'paper'", field="params.gradient"
            )
        if p.gradient == "exact" and p.adversary == "gradient":
            raise InvalidParameterError(
                "gradient='exact' differentiates the closed-form adversary; use adversary='closed_form' or 'auto'",
                field="params.gradient",
            )

    def closed_form(self) -> bool:
        return super().closed_form() and self.sal_params.gradient != "paper"

    # ------------------------------------------------------------------------------------ the fit
    def _fit_at(self, problem: Problem, lam: float, reporter: Reporter, y_scale: float) -> Solution:
        if self.uses_ridge_path():
            return self._fit_ridge_rounds(problem, lam, reporter, y_scale)
        if self.seeds_w():
            return self._fit_network_at_seeded_w(problem, lam, reporter, y_scale, adversary=True)
        if self.uses_deep_path():
            p = self.sal_params
            return deep_sal.fit_deep_sal(
                problem, lambda_=lam, alpha=p.alpha, stability=p.stability, rounds=self.schedule().rounds,
                w_update=self._w_step(), reporter=reporter, y_scale=y_scale,
            )  # fmt: skip
        return self._fit_gradient_rounds(problem, lam, reporter, y_scale)

    def _fit_off(self, problem: Problem, lam: float, reporter: Reporter, y_scale: float) -> Solution:
        """ERM with the same network, on the network fits' schedule (minibatches from 16,384 rows)."""
        if self.seeds_w():
            return self._fit_network_at_seeded_w(problem, lam, reporter, y_scale, adversary=False)
        return super()._fit_off(problem, lam, reporter, y_scale)

    def _fit_network_at_seeded_w(
        self, problem: Problem, lam: float, reporter: Reporter, y_scale: float, *, adversary: bool
    ) -> Solution:
        """The network trained under the linear path's w (``adversary``), or ERM's 2000 steps (w = 1)."""
        p = self.sal_params
        if adversary:
            options = dataclasses.replace(SEEDED_OPTIONS, theta_lr=p.theta_lr)
        else:
            options = dataclasses.replace(
                SEEDED_OPTIONS, theta_lr=p.theta_lr, warmup_steps=0, final_steps=ERM_STEPS
            )
        return deep_sal.fit_deep_sal(
            problem, lambda_=lam, alpha=p.alpha, stability=p.stability, rounds=1, w_update=None,
            reporter=reporter, y_scale=y_scale, options=options,
            initial_w=self._seed_w if adversary else None, adversary=adversary, ticks=SEEDED_TICKS,
        )  # fmt: skip

    def uses_deep_path(self) -> bool:
        """Non-linear models with gradient='auto': ascent in u = w ⊙ δ with a convergence check and
        ∂R/∂w by implicit differentiation (:mod:`sal_core.deep_sal`); 'paper' keeps Section 4.2.1."""
        return not self.model_spec.is_linear and self.sal_params.gradient == AUTO

    def candidate_grid(self) -> tuple[float, ...]:
        if self.seeds_w():
            return SEEDED_GRID
        return DEEP_GRID if self.uses_deep_path() else super().candidate_grid()

    def lambda_base(self, problem: Problem, y_scale: float) -> float:
        """Under the linear path's w an MLP's λ grid is relative to the pooled OLS MSE, as on that path."""
        if self.seeds_w():
            return es.ols_mse(self.moments(problem, y_scale)[0])
        return super().lambda_base(problem, y_scale)

    def _fit_ridge_rounds(self, problem: Problem, lam: float, reporter: Reporter, y_scale: float) -> Solution:
        p = self.sal_params
        moments, y_mean = self.moments(problem, y_scale)
        w = np.ones(problem.n_features)
        anchor = (
            rl.significant_covariates(moments, int(problem.y.shape[0]), es.SIGNIFICANCE)
            if p.anchor == "significant"
            else None
        )
        step_w = self._w_step(anchor)
        history = []
        stopped = False
        converged = Convergence(p.convergence_tol)
        for round_ in range(1, self.schedule().rounds + 1):
            step = rl.solve_theta(moments, w, lam)
            risk, grad_theta, losses = rl.risk_and_grad_theta(step.theta, moments, p.alpha, p.stability)
            history.append(_round(round_, risk * y_scale**2, w, losses * y_scale**2, problem))
            if reporter(round_, {"risk": risk * y_scale**2, "w": w.tolist()}):
                stopped = True
                break
            w_next = step_w(w, rl.risk_grad_w(step.theta, w, moments, lam, grad_theta))
            if converged(w, w_next, risk):
                break
            w = w_next
        step = rl.solve_theta(moments, w, lam)
        return ridge_solution(problem, step, lam, w, y_scale, y_mean, history, stopped)

    def _fit_gradient_rounds(
        self, problem: Problem, lam: float, reporter: Reporter, y_scale: float
    ) -> Solution:
        p = self.sal_params
        Z, y = problem.Z, problem.y / y_scale
        model = problem.new_model()
        names = [n for n, _ in model.named_parameters()]
        optimizer = torch.optim.Adam(model.parameters(), lr=p.theta_lr)
        w = torch.ones(problem.n_features, dtype=Z.dtype, device=Z.device)
        step_w = self._w_step()
        closed_form = self.closed_form()
        loss_scale = _loss_scale(problem, y_scale)
        state = rg.AdversaryState()
        history = []
        stopped = False
        for round_ in range(1, self.schedule().rounds + 1):
            trace: rg.Trace = []
            for _ in range(p.theta_steps):
                optimizer.zero_grad(set_to_none=True)
                objective, ascended = rg.theta_objective(
                    problem, model, Z, y, w, lam, state, closed_form=closed_form,
                    ascent_steps=p.ascent_steps, ascent_lr=p.ascent_lr,
                )  # fmt: skip
                if ascended is not None:  # θ_t is unchanged until optimizer.step()
                    delta, d_delta_dw = ascended
                    params_now = {k: v.detach().clone() for k, v in model.named_parameters()}
                    trace.append((params_now, Z + delta, d_delta_dw))
                torch.autograd.backward(objective)
                optimizer.step()
            losses = problem.env_means(problem.loss(model(Z), y)).detach()
            risk, d_losses = rl.stability_risk(losses.cpu().double().numpy(), p.alpha, p.stability)
            w_now = w.cpu().double().numpy()
            history.append(
                _round(round_, risk * loss_scale, w_now, losses.cpu().double().numpy() * loss_scale, problem)
            )
            if reporter(round_, {"risk": risk * loss_scale, "w": w_now.tolist()}):
                stopped = True
                break
            grad_r = rg.risk_grad_params(problem, model, y, d_losses, names)
            if closed_form:
                grad_w = rg.implicit_grad_w(problem, model, Z, y, w, lam, grad_r, names)
            else:
                grad_w = rg.paper_grad_w(problem, model, y, trace, grad_r, p.theta_lr)
            w = torch.as_tensor(step_w(w_now, grad_w), dtype=Z.dtype, device=Z.device)
        cert = rg.certificate(
            problem, model, Z, y, w, lam, closed_form=closed_form, loss_scale=loss_scale,
            ascent_steps=p.ascent_steps, ascent_lr=p.ascent_lr, state=state,
        )  # fmt: skip
        _rescale_output(model, y_scale)
        return Solution(
            model=model, covariate_weights=w.cpu(), history=history, certificate=cert, stopped=stopped
        )


ALGORITHM = SAL
