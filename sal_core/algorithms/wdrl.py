"""Wasserstein distributionally robust learning (Sinha et al.) in the Lagrangian-penalty form.

min_θ mean_i sup_x̃ ℓ(θ; x̃, y_i) − λ‖w ⊙ (x̃ − x_i)‖² with a *fixed* covariate weight w (w ≡ 1 for
WDRL itself). :class:`~sal_core.algorithms.sal.SAL` subclasses it and adds the learning of w.

Two ways to fit θ, picked from the model, the loss and ``adversary``:

* **exact ridge path** (linear model, squared loss): the θ-step is solved exactly on the
  generalised-ridge path (:mod:`sal_core.robust_linear`); a θ-step costs O(p³), independent of n.
* **gradient path** (any other case): Adam steps on θ against the closed-form adversary (linear
  models) or m steps of gradient ascent for X̃ (:mod:`sal_core.robust_gradient`).

``lambda_ = "auto"`` (the default) chooses λ on held-out rows of the training environments
(:mod:`sal_core.lambda_selection`) and reports the candidates and the criterion in the fit's
``selection``. Regression targets are divided by their pooled standard deviation inside the fit,
so a numeric ``lambda_`` is unit-free; results are reported in the target's own units.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import torch

from sal_core import lambda_selection as ls
from sal_core import robust_gradient as rg
from sal_core import robust_linear as rl
from sal_core.algorithms.base import (
    Algorithm,
    Certificate,
    EnvTensors,
    Problem,
    Reporter,
    RoundMetrics,
    Solution,
)
from sal_core.exceptions import InvalidParameterError
from sal_core.history import Round
from sal_core.optim import set_linear
from sal_core.params import AUTO, Params, param


@dataclass(frozen=True)
class WDRLParams(Params):
    lambda_: float | str = param(
        AUTO,
        low=0.0,
        low_inclusive=False,
        high=1e6,
        doc="λ, the price per unit of transport cost paid by the adversary (unit-free: covariates and "
        "targets are standardised); smaller λ = larger uncertainty set. 'auto' (default) chooses it on "
        "held-out rows of the training environments (see selection_tolerance); the result's `selection` "
        "lists the candidates and their scores.",
        grid=(0.3, 1.0, 2.0, 5.0, 10.0, 30.0, 100.0),
    )
    selection_tolerance: float = param(
        0.0,
        low=0.0,
        high=10.0,
        doc="lambda_='auto' keeps the smallest λ whose worst-training-environment validation error is within "
        "this fraction of the best candidate's. WDRL: 0 (the best candidate; a larger ball only shrinks "
        "every coefficient alike).",
    )
    holdout_fraction: float = param(
        0.2,
        low=0.0,
        low_inclusive=False,
        high=0.5,
        doc="lambda_='auto': the fraction of each training environment's rows held out to score candidates.",
    )
    adversary: str = param(
        AUTO,
        choices=(AUTO, "closed_form", "gradient"),
        doc="Inner supremum: closed form for linear models ('auto'), or m steps of gradient ascent.",
    )
    theta_steps: int = param(2000, low=1, high=1_000_000, doc="Adam steps on θ (gradient paths only).")
    theta_lr: float = param(0.01, low=0.0, low_inclusive=False, high=10.0, doc="Adam step size for θ.")
    ascent_steps: int = param(
        20, low=1, high=10_000, doc="m, gradient-ascent steps for x̃ (gradient adversary)."
    )
    ascent_lr: float = param(
        0.1, low=0.0, low_inclusive=False, high=10.0, doc="Gradient-ascent step size for x̃."
    )


EXACT_GRID: tuple[float, ...] = (1e-2, 1e-1, 1.0, 10.0, ls.OFF)
"""WDRL's relative λ candidates on the exact path (× the pooled OLS MSE); the last one is ERM."""
GRADIENT_GRID: tuple[float, ...] = (0.1, 1.0, ls.OFF)
ERM_STEPS = 2000
"""Adam steps of the adversary-off candidate on gradient paths (ERM's default)."""
"""WDRL's λ candidates elsewhere (unit-free); each is a full gradient fit, so the grid is short."""


class WDRL(Algorithm[WDRLParams]):
    """Wasserstein DRO with a fixed transport cost ‖w ⊙ (x̃ − x)‖², w ≡ 1."""

    name = "wdrl"
    params_type = WDRLParams
    min_environments = 1
    summary = "Wasserstein DRO with an isotropic transport cost (SAL with w ≡ 1)."
    exact_grid: ClassVar[tuple[float, ...]] = EXACT_GRID
    gradient_grid: ClassVar[tuple[float, ...]] = GRADIENT_GRID
    erm_margin: ClassVar[float] = 0.05
    """lambda_='auto' keeps ERM (the adversary off) unless a ball improves the worst training
    environment's held-out error by more than this fraction: an isotropic ball only shrinks every
    coefficient alike, and a ball chosen for a 1% validation gain cost 0.1 test RMSE on one seed in
    ten (selection bias r = 2, docs/paper-results.md before this margin)."""

    # ---------------------------------------------------------------------------------- orchestration
    def _fit(self, problem: Problem, reporter: Reporter) -> Solution:
        self._check_options(problem)
        self._moments_of: dict[int, tuple[rl.Moments, float]] = {}
        try:
            return self._fit_selected(problem, reporter)
        finally:
            self._moments_of.clear()

    def moments(self, problem: Problem, y_scale: float) -> tuple[rl.Moments, float]:
        """The exact path's sufficient statistics of ``problem``, computed once per fit: every λ
        candidate and variant fitted on the same rows reuses the one O(n·p²) pass."""
        key = id(problem)  # problems live for the whole fit, so their ids are not reused within it
        if key not in self._moments_of:
            self._moments_of[key] = _moments(problem, y_scale)
        return self._moments_of[key]

    def _fit_selected(self, problem: Problem, reporter: Reporter) -> Solution:
        y_scale = _target_scale(problem)
        lam = self.params.lambda_
        if lam != AUTO:
            assert isinstance(lam, float)
            return self._fit_at(problem, lam, reporter, y_scale)
        selected = self._select_lambda(problem, y_scale, reporter)
        if isinstance(selected, Solution):  # stopped while fitting a candidate
            return selected
        selection, candidate, held_out = selected
        offset = self._candidate_fits() * self.steps_per_fit()
        start = selection.candidates[selection.chosen].start
        if selection.lambda_ == ls.OFF_LAMBDA:
            solution = self._fit_off(problem, selection.lambda_, _Offset(reporter, offset), y_scale)
        else:
            solution = self._fit_at(problem, selection.lambda_, _Offset(reporter, offset), y_scale, start)
        refit_score = max(ls.env_errors(problem, solution.model, held_out).values())
        selection = selection.with_refit(refit_score)
        if not selection.refit_kept and not solution.stopped:
            # The refit on all rows took another path and ended worse, on rows it was trained on, than
            # the candidate did on rows it never saw: keep the candidate (it is fitted on the kept rows).
            solution = candidate
        solution.selection = selection.to_dict()
        return solution

    def total_steps(self) -> int:
        """Progress steps: one fit per λ candidate (lambda_='auto'), then the final fit."""
        return self.fits() * self.steps_per_fit()

    def fits(self) -> int:
        """How many fits one job runs: every λ candidate and variant (lambda_='auto'), then the refit."""
        return self._candidate_fits() + 1 if self.params.lambda_ == AUTO else 1

    def steps_per_fit(self) -> int:
        return 1

    def starts_at(self, relative: float) -> int:
        """How many variants of the fit a candidate λ is tried with (WDRL: w is fixed, one)."""
        return 1

    def variant_name(self, start: int) -> str:
        return ""

    def _candidate_fits(self) -> int:
        return sum(self.starts_at(r) for r in self.candidate_grid())

    def candidate_grid(self) -> tuple[float, ...]:
        return self.exact_grid if self.uses_ridge_path() else self.gradient_grid

    def _select_lambda(
        self, problem: Problem, y_scale: float, reporter: Reporter
    ) -> tuple[ls.Selection, Solution, list[EnvTensors]] | Solution:
        """Fit every candidate on the kept rows, score it on the held-out rows (worst environment).

        Returns the selection, the chosen candidate's solution and the held-out rows. Candidates
        report progress (so a job can be watched and cancelled while λ is chosen); a stop request
        returns that candidate's partial solution instead.
        """
        p = self.params
        fit_part, held_out = ls.split_problem(problem, p.holdout_fraction, problem.seed)
        base = self.lambda_base(fit_part, y_scale)
        fitted: list[tuple[ls.Candidate, Solution]] = []
        for relative in self.candidate_grid():
            lam = ls.candidate_lambda(relative, base)
            for start in range(self.starts_at(relative)):
                progress = _Offset(reporter, len(fitted) * self.steps_per_fit())
                if relative == ls.OFF:
                    solution = self._fit_off(fit_part, lam, progress, y_scale)
                else:
                    solution = self._fit_at(fit_part, lam, progress, y_scale, start)
                if solution.stopped:
                    return solution
                scores = ls.env_errors(problem, solution.model, held_out)
                rel = None if relative == ls.OFF else relative
                protection = _protection(solution)
                fitted.append(
                    (
                        ls.Candidate(
                            rel,
                            lam,
                            max(scores.values()),
                            scores,
                            start,
                            protection,
                            self.variant_name(start),
                        ),
                        solution,
                    )
                )
        order = ls.robustness_order([c for c, _ in fitted])
        candidates = [fitted[i][0] for i in order]
        solutions = [fitted[i][1] for i in order]
        chosen = ls.pick_most_robust([c.score for c in candidates], p.selection_tolerance)
        chosen = ls.prefer_first_variant(candidates, chosen)
        chosen = ls.prefer_erm(candidates, chosen, self.erm_margin)
        criterion = (
            "worst_env_validation_rmse" if problem.loss_name == "squared" else "worst_env_validation_loss"
        )
        selection = ls.Selection(
            criterion,
            p.selection_tolerance,
            p.holdout_fraction,
            base,
            tuple(candidates),
            chosen,
            erm_margin=self.erm_margin,
        )
        return selection, solutions[chosen], held_out

    def lambda_base(self, problem: Problem, y_scale: float) -> float:
        """The unit of the relative λ grid: the pooled OLS MSE on the exact path, 1 elsewhere."""
        return _ols_mse(self.moments(problem, y_scale)[0]) if self.uses_ridge_path() else 1.0

    def _fit_off(self, problem: Problem, lam: float, reporter: Reporter, y_scale: float) -> Solution:
        """The adversary switched off (λ = OFF_LAMBDA): ERM, whatever the subclass learns. Exact on the
        ridge path; elsewhere ERM's own 2000 Adam steps on the plain loss (no inner supremum to pay for)."""
        if self.uses_ridge_path():
            return WDRL._fit_at(self, problem, lam, reporter, y_scale)
        return self._fit_gradient_fixed_w(problem, lam, reporter, y_scale, adversary=False)

    def _fit_at(
        self, problem: Problem, lam: float, reporter: Reporter, y_scale: float, start: int = 0
    ) -> Solution:
        """Fit θ at one λ with w ≡ 1 (``start`` is SAL's: which initial w)."""
        w = np.ones(problem.n_features)
        if self.uses_ridge_path():
            return fit_ridge_path(problem, lam, w, y_scale, reporter, self.moments(problem, y_scale))
        return self._fit_gradient_fixed_w(problem, lam, reporter, y_scale)

    # ------------------------------------------------------------------------------------ options
    def _check_options(self, problem: Problem) -> None:
        if self.params.adversary == "closed_form" and not problem.model_spec.is_linear:
            raise InvalidParameterError(
                "the closed-form adversary needs a linear model", field="params.adversary"
            )

    def closed_form(self) -> bool:
        return self.model_spec.is_linear and self.params.adversary != "gradient"

    def uses_ridge_path(self) -> bool:
        return self.closed_form() and self.loss_name == "squared"

    # ------------------------------------------------------------------------------- gradient path
    def _fit_gradient_fixed_w(
        self, problem: Problem, lam: float, reporter: Reporter, y_scale: float, *, adversary: bool = True
    ) -> Solution:
        p = self.params
        Z, y = problem.Z, problem.y / y_scale
        model = problem.new_model()
        optimizer = torch.optim.Adam(model.parameters(), lr=p.theta_lr)
        w = torch.ones(problem.n_features, dtype=Z.dtype, device=Z.device)
        closed_form = self.closed_form()
        state = rg.AdversaryState()
        for _ in range(p.theta_steps if adversary else ERM_STEPS):
            optimizer.zero_grad(set_to_none=True)
            if adversary:
                objective, _ = rg.theta_objective(
                    problem, model, Z, y, w, lam, state, closed_form=closed_form,
                    ascent_steps=p.ascent_steps, ascent_lr=p.ascent_lr,
                )  # fmt: skip
                torch.autograd.backward(objective)
            else:
                torch.autograd.backward(problem.loss(model(Z), y).mean())
            optimizer.step()
        loss_scale = _loss_scale(problem, y_scale)
        losses = problem.env_means(problem.loss(model(Z), y)).detach().cpu().double().numpy() * loss_scale
        history = [_round(1, float(losses.mean()), None, losses, problem)]
        stopped = reporter(1, {"risk": float(losses.mean())})
        cert = rg.certificate(
            problem, model, Z, y, w, lam, closed_form=closed_form, loss_scale=loss_scale,
            ascent_steps=p.ascent_steps, ascent_lr=p.ascent_lr, state=state,
        )  # fmt: skip
        _rescale_output(model, y_scale)
        return Solution(
            model=model, covariate_weights=w.cpu(), history=history, certificate=cert, stopped=stopped
        )


class _Offset(Reporter):
    """Reports a sub-fit's steps after ``offset`` steps of the same progress bar."""

    def __init__(self, parent: Reporter, offset: int) -> None:
        super().__init__(None, parent.total)
        self._parent = parent
        self._offset = offset

    def __call__(self, step: int, metrics: RoundMetrics | None = None) -> bool:
        self.stop_requested = self._parent(self._offset + step, metrics)
        return self.stop_requested


# ------------------------------------------------------------------------------ exact ridge path
def fit_ridge_path(
    problem: Problem,
    lam: float,
    w: np.ndarray,
    y_scale: float,
    reporter: Reporter,
    stats: tuple[rl.Moments, float],
) -> Solution:
    """The exact θ-step at a fixed w, packaged as a one-round solution; ``stats`` are the problem's
    (moments, pooled mean of y)."""
    moments, y_mean = stats
    step = rl.solve_theta(moments, w, lam)
    risk, _, losses = rl.risk_and_grad_theta(step.theta, moments, 0.0, "std")
    history = [_round(1, risk * y_scale**2, None, losses * y_scale**2, problem)]
    stopped = reporter(1, {"risk": risk * y_scale**2})
    return ridge_solution(problem, step, lam, w, y_scale, y_mean, history, stopped)


def ridge_solution(
    problem: Problem,
    step: rl.ThetaStep,
    lam: float,
    w: np.ndarray,
    y_scale: float,
    y_mean: float,
    history: list[Round],
    stopped: bool,
) -> Solution:
    cert = rl.certificate(step, lam)
    model = problem.new_model()
    theta = torch.as_tensor(step.theta * y_scale, dtype=problem.Z.dtype, device=problem.Z.device)
    bias = y_mean - theta @ problem.Z.mean(0)  # rows are centred on the pooled mean
    set_linear(model, theta, bias)
    return Solution(
        model=model,
        covariate_weights=torch.as_tensor(w),
        history=history,
        certificate=Certificate(cert.rho_hat, cert.worst_case_risk * y_scale**2, lam),
        stopped=stopped,
    )


def _moments(problem: Problem, y_scale: float) -> tuple[rl.Moments, float]:
    """Moments of the centred rows (targets divided by ``y_scale``) and the pooled mean of y.

    One pass of O(n·p²) matrix products on the fit's device; everything after works on p×p arrays.
    """
    z_mean, y_mean = problem.Z.mean(0), problem.y.mean()
    env_gram, env_cross, env_yy = [], [], []
    for env in problem.envs:
        Ze, ye = env.Z - z_mean, (env.y - y_mean) / y_scale
        env_gram.append(Ze.T @ Ze / Ze.shape[0])
        env_cross.append(Ze.T @ ye / Ze.shape[0])
        env_yy.append((ye * ye).mean())
    g = torch.stack(env_gram).double().cpu().numpy()
    c = torch.stack(env_cross).double().cpu().numpy()
    yy = torch.stack(env_yy).double().cpu().numpy()
    counts = np.array([env.Z.shape[0] for env in problem.envs], dtype=np.float64)
    weights = counts / counts.sum()
    moments = rl.Moments(
        gram=np.einsum("e,eij->ij", weights, g),
        cross=weights @ c,
        yy=float(weights @ yy),
        env_gram=g,
        env_cross=c,
        env_yy=yy,
    )
    return moments, float(y_mean)


def _protection(solution: Solution) -> float:
    """Σ log w: how much of X the fitted cost shields from the adversary (0 for w ≡ 1)."""
    w = solution.covariate_weights
    return 0.0 if w is None else float(torch.log(w.double().clamp_min(1.0)).sum())


def _ols_mse(m: rl.Moments) -> float:
    """Pooled least-squares training MSE of the standardised problem (the exact grid's unit)."""
    theta = np.asarray(np.linalg.lstsq(m.gram, m.cross, rcond=None)[0], dtype=np.float64)
    return max(float(rl.mse(theta, m.gram, m.cross, m.yy)), 1e-12)


def _target_scale(problem: Problem) -> float:
    scale = float(problem.y.std()) if problem.task == "regression" else 1.0
    return scale if scale > 0 else 1.0


def _loss_scale(problem: Problem, y_scale: float) -> float:
    return y_scale**2 if problem.loss_name == "squared" else y_scale


def _round(index: int, risk: float, w: np.ndarray | None, losses: np.ndarray, problem: Problem) -> Round:
    return Round(
        round=index,
        risk=float(risk),
        env_losses={e.name: float(v) for e, v in zip(problem.envs, losses, strict=True)},
        w=None if w is None else [float(v) for v in w],
    )


def _rescale_output(model: torch.nn.Module, y_scale: float) -> None:
    """Undo the target standardisation: the last layer's weight and bias times y_scale."""
    if y_scale == 1.0:
        return
    with torch.no_grad():
        for tensor in list(model.parameters())[-2:]:
            tensor.mul_(y_scale)


ALGORITHM = WDRL
