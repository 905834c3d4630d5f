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

from sal_core import exact_batch as eb
from sal_core import exact_selection as es
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
    retired: ClassVar[frozenset[str]] = frozenset({"selection_tolerance", "holdout_fraction"})

    lambda_: float | str = param(
        AUTO,
        low=0.0,
        low_inclusive=False,
        high=1e6,
        doc="λ, the price per unit of transport cost paid by the adversary (unit-free: covariates and "
        "targets are standardised); smaller λ = larger uncertainty set. 'auto' (default) chooses it on "
        "held-out rows of the training environments (see selection_se and folds); the result's `selection` "
        "lists the candidates and their scores.",
        grid=(0.3, 1.0, 2.0, 5.0, 10.0, 30.0, 100.0),
    )
    selection_se: float = param(
        1.0,
        low=0.0,
        high=100.0,
        doc="lambda_='auto': how many standard errors of a score difference count as noise. WDRL keeps ERM "
        "unless a ball beats it by more than this (an isotropic ball only shrinks every coefficient alike); "
        "SAL keeps the most robust candidate within this of the best (see docs/sal.md).",
    )
    folds: int = param(
        5,
        low=2,
        high=20,
        doc="lambda_='auto': folds K, decided by each row's content. The exact path (linear model, squared "
        "loss) scores every candidate by K-fold cross-fitting; other paths hold one fold (1/K of each "
        "training environment's rows) out.",
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
REFIT_SLACK = 0.1
"""Other paths: the refit on all rows is kept unless it scores worse than this fraction above the
chosen candidate on the held-out fold (which it was trained on): a non-convex refit that took
another path to a worse end is not the model the selection validated."""
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
    prefer: ClassVar[ls.Prefer] = "erm"
    """lambda_='auto' keeps ERM unless a ball beats it by more than ``selection_se`` standard errors:
    an isotropic ball only shrinks every coefficient alike."""

    # ---------------------------------------------------------------------------------- orchestration
    def _fit(self, problem: Problem, reporter: Reporter) -> Solution:
        self._check_options(problem)
        self._moments_of: dict[int, tuple[rl.Moments, float]] = {}
        try:
            return self._fit_selected(problem, reporter)
        finally:
            self._moments_of.clear()

    def moments(self, problem: Problem, y_scale: float) -> tuple[rl.Moments, float]:
        """The exact path's sufficient statistics of ``problem``, computed once per fit."""
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
        if self.uses_ridge_path():
            return self._fit_exact_auto(problem, reporter, y_scale)
        return self._fit_heldout_auto(problem, reporter, y_scale)

    def auto_is_exact(self) -> bool:
        """Does lambda_='auto' run on the exact path (batched cross-fitting, :mod:`exact_selection`)?"""
        return self.params.lambda_ == AUTO and self.uses_ridge_path()

    def total_steps(self) -> int:
        """Progress steps: the selection then the refit (the exact path's auto), or one fit per λ
        candidate then the final fit (elsewhere)."""
        return self.fits() * self.steps_per_fit()

    def fits(self) -> int:
        """How many fits one job runs, as the progress bar counts them."""
        if self.auto_is_exact():
            return 2  # every candidate on every fold in one batch, then the refit
        return len(self.candidate_grid()) + 1 if self.params.lambda_ == AUTO else 1

    def steps_per_fit(self) -> int:
        return 1

    def candidate_grid(self) -> tuple[float, ...]:
        return self.exact_grid if self.uses_ridge_path() else self.gradient_grid

    # ------------------------------------------------------------------ lambda_='auto', exact path
    def exact_plan(self) -> es.Plan:
        settings = eb.PathSettings(rounds=1, lr=0.0, w_max=1.0, alpha=0.0, stability="std")
        return es.Plan(
            relatives=self.exact_grid,
            learns_w=False,
            settings=settings,
            z=self.params.selection_se,
            prefer=self.prefer,
            folds=self.params.folds,
        )

    def _fit_exact_auto(self, problem: Problem, reporter: Reporter, y_scale: float) -> Solution:
        plan = self.exact_plan()
        per_fit = self.steps_per_fit()
        # the watched path's rounds, raw: the history of a fit stopped while choosing
        shown: list[tuple[int, float, np.ndarray, np.ndarray]] = []

        def on_round(t: int, risk: float, losses: np.ndarray, w: np.ndarray) -> bool:
            shown.append((t, risk * y_scale**2, w, losses * y_scale**2))
            return reporter(t, {"risk": risk * y_scale**2, "w": w.tolist()})

        outcome = es.select(problem, y_scale, plan, on_round)
        if outcome.stopped:
            history = [_round(t, risk, w, losses, problem) for t, risk, w, losses in shown]
        else:
            history = self._exact_history(problem, outcome, y_scale)
        theta_step = outcome.theta_step()
        y_mean = float(problem.y.mean())
        # WDRL's selection (no w-path, no rounds to report) is one progress step, where a stop is seen
        chose = not outcome.stopped and per_fit == 1 and reporter(1)
        last = history[-1]
        stopped = (
            outcome.stopped
            or chose
            or reporter(2 * per_fit, {"risk": last.risk, **({"w": list(last.w)} if last.w else {})})
        )
        solution = ridge_solution(
            problem, theta_step, outcome.lambda_, outcome.w, y_scale, y_mean, history, stopped
        )
        if outcome.stopped:
            return solution
        solution.selection = ls.FitSelection(outcome.selection, covariate_weights=outcome.w_evidence())
        return solution

    def _exact_history(self, problem: Problem, outcome: es.Outcome, y_scale: float) -> list[Round]:
        step = outcome.step
        if step.risks.shape[0] == 0:  # w fixed: one round, the θ-step
            losses = rl.env_losses(step.theta[0], self._full_moments(problem, y_scale))
            return [_round(1, float(losses.mean()) * y_scale**2, None, losses * y_scale**2, problem)]
        return [
            _round(
                t + 1,
                float(step.risks[t, 0]) * y_scale**2,
                step.ws[t, 0],
                step.env_losses[t, 0] * y_scale**2,
                problem,
            )
            for t in range(step.risks.shape[0])
        ]

    def _full_moments(self, problem: Problem, y_scale: float) -> rl.Moments:
        return self.moments(problem, y_scale)[0]

    # -------------------------------------------------------------- lambda_='auto', other paths
    def _fit_heldout_auto(self, problem: Problem, reporter: Reporter, y_scale: float) -> Solution:
        """Every candidate fitted without one held-out fold and scored on it, then the chosen one
        refitted on all rows (kept unless it scores worse on the held-out rows than the candidate
        did, though it was trained on them: a non-convex refit that took another path)."""
        selected = self._select_lambda(problem, y_scale, reporter)
        if isinstance(selected, Solution):  # stopped while fitting a candidate
            return selected
        selection, candidate, held_out = selected
        offset = len(self.candidate_grid()) * self.steps_per_fit()
        progress = _Offset(reporter, offset)
        if selection.lambda_ == ls.OFF_LAMBDA:
            solution = self._fit_off(problem, selection.lambda_, progress, y_scale)
        else:
            solution = self._fit_at(problem, selection.lambda_, progress, y_scale)
        refit_score = ls.score_of(
            ls.row_losses(problem, solution.model, held_out), problem.loss_name == "squared"
        )[0]
        chosen_score = selection.candidates[selection.chosen].score
        kept = refit_score <= (1 + REFIT_SLACK) * chosen_score or solution.stopped
        if not kept:
            solution = candidate
        solution.selection = ls.FitSelection(
            selection,
            ls.Refit(
                refit_score,
                "refit on all rows"
                if kept
                else "the chosen candidate, fitted without the held-out fold (the refit on all rows scored worse)",
            ),
        )
        return solution

    def _select_lambda(
        self, problem: Problem, y_scale: float, reporter: Reporter
    ) -> tuple[ls.Selection, Solution, list[EnvTensors]] | Solution:
        """Fit every candidate without the held-out fold and score it there (worst environment).

        Returns the selection, the chosen candidate's solution and the held-out rows. Candidates
        report progress (so a job can be watched and cancelled while λ is chosen); a stop request
        returns that candidate's partial solution instead.
        """
        p = self.params
        folds = ls.row_folds(problem, p.folds)
        fit_part, held_out = ls.fold_split(problem, folds, 0)
        base = self.lambda_base(fit_part, y_scale)
        squared = problem.loss_name == "squared"
        candidates: list[ls.Candidate] = []
        solutions: list[Solution] = []
        losses: list[list[np.ndarray]] = []
        for relative in self.candidate_grid():
            lam = ls.candidate_lambda(relative, base)
            progress = _Offset(reporter, len(solutions) * self.steps_per_fit())
            if relative == ls.OFF:
                solution = self._fit_off(fit_part, lam, progress, y_scale)
            else:
                solution = self._fit_at(fit_part, lam, progress, y_scale)
            if solution.stopped:
                return solution
            env_losses = ls.row_losses(problem, solution.model, held_out)
            score, per_env = ls.score_of(env_losses, squared)
            candidates.append(
                ls.Candidate(
                    None if relative == ls.OFF else relative,
                    lam,
                    score,
                    {e.name: v for e, v in zip(held_out, per_env, strict=True)},
                    protection=_protection(solution),
                )
            )
            solutions.append(solution)
            losses.append(env_losses)
        candidates = ls.with_paired_se(candidates, losses, squared)
        chosen, best, reason = ls.choose(candidates, p.selection_se, self.prefer)
        selection = ls.Selection(
            criterion="worst_env_validation_rmse" if squared else "worst_env_validation_loss",
            prefer=self.prefer,
            z=p.selection_se,
            scoring=f"one held-out fold of {p.folds} within each training environment",
            rows_scored=sum(int(e.y.shape[0]) for e in held_out),
            base=base,
            candidates=tuple(candidates),
            chosen=chosen,
            best=best,
            reason=reason,
        )
        return selection, solutions[chosen], held_out

    def lambda_base(self, problem: Problem, y_scale: float) -> float:
        """The unit of the relative λ grid: the pooled OLS MSE on the exact path, 1 elsewhere."""
        return es.ols_mse(self.moments(problem, y_scale)[0]) if self.uses_ridge_path() else 1.0

    def _fit_off(self, problem: Problem, lam: float, reporter: Reporter, y_scale: float) -> Solution:
        """The adversary switched off (λ = OFF_LAMBDA): ERM, whatever the subclass learns. Exact on the
        ridge path; elsewhere ERM's own 2000 Adam steps on the plain loss (no inner supremum to pay for)."""
        if self.uses_ridge_path():
            return WDRL._fit_at(self, problem, lam, reporter, y_scale)
        return self._fit_gradient_fixed_w(problem, lam, reporter, y_scale, adversary=False)

    def _fit_at(self, problem: Problem, lam: float, reporter: Reporter, y_scale: float) -> Solution:
        """Fit θ at one λ with w ≡ 1."""
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


def _target_scale(problem: Problem) -> float:
    scale = float(problem.y.std()) if problem.task == "regression" else 1.0
    return scale if scale > 0 else 1.0


def _loss_scale(problem: Problem, y_scale: float) -> float:
    return y_scale**2 if problem.loss_name == "squared" else y_scale


def _round(index: int, risk: float, w: np.ndarray | None, losses: np.ndarray, problem: Problem) -> Round:
    return Round(
        round=index,
        risk=float(risk),
        env_losses=problem.by_env(losses),
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
