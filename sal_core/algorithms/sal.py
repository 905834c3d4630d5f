"""Stable Adversarial Learning (Algorithm 1 of the paper): WDRL whose transport cost learns w.

SAL is WDRL with another w-step (:class:`LearnedW`): the fit flow, the paths (:mod:`sal_core.paths`)
and the λ selection are WDRL's; SAL declares its w-step, its parameters and its λ grids.

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

* ``lambda_ = "auto"``: λ = c · σ̂² (the noise variance) with c on a relative grid, every candidate
  fitted on every fold of a 5-fold split of each training environment (folds by row content, so the order of
  environments and rows does not matter; 10 folds where no slopes test can run, ``folds_untested``), scored by the worst environment's out-of-fold RMSE with
  paired standard errors (read over the environments with a row per fold, where any has:
  ``lambda_selection.deciding_environments``), and the most robust candidate within one standard
  error of the best kept
  (:mod:`sal_core.lambda_selection`, :mod:`sal_core.exact_selection`). Where Chow's test of equal
  slopes across the environments (:mod:`sal_core.homogeneity`) finds no difference, ERM is kept
  (``erm_first``; where no test ran, ERM unless a robust candidate beats it beyond one standard
  error); ``erm_bar`` (opt-in ``"simultaneous"``) reads that lead against the bar for the best of
  all candidates, and ``cost_cap`` (opt-in) bounds what a robust candidate may cost where the slopes
  look alike under ``erm_first="where_alike"`` or ``"never"``.
* On the exact path: ``w_update = "adam_log"`` with step 0.1 for 400 rounds, α = 0.5 and the std
  of environment losses as the spread; every λ candidate tried with both anchors of min w = 1.
  Elsewhere ``"auto"`` keeps the cheaper schedule: ``scaled_log``, step 0.3, 40 rounds.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from sal_core import exact_batch as eb
from sal_core import exact_selection as es
from sal_core import lambda_selection as ls
from sal_core import robust_linear as rl
from sal_core.algorithms.wdrl import WDRL, WDRLParams
from sal_core.covariate_weights import WUpdate, make_w_update
from sal_core.exceptions import InvalidParameterError
from sal_core.homogeneity import ERM_FIRST
from sal_core.params import AUTO, param
from sal_core.paths import PathName
from sal_core.paths.deep import SEEDED_OPTIONS, SEEDED_TICKS
from sal_core.paths.exact import Convergence
from sal_core.paths.w_step import Schedule, WStep
from sal_core.problem import Problem

__all__ = [
    "DEEP_GRID",
    "EXACT_GRID",
    "EXACT_SCHEDULE",
    "GRADIENT_GRID",
    "GRADIENT_SCHEDULE",
    "SEEDED_GRID",
    "SEEDED_OPTIONS",
    "SEEDED_TICKS",
    "SAL",
    "Convergence",
    "LearnedW",
    "SALParams",
    "Schedule",
]  # Convergence, Schedule and the seeded constants live in sal_core.paths; re-exported for their readers


EXACT_SCHEDULE = Schedule(rounds=400, w_lr=0.1, w_update="adam_log")
"""400 rounds at step 0.1: where 800 at 0.05 ended, at half the cost (docs/sal.md, "Measured for the
defaults")."""
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
        "the data separate the candidates by more, the best wins, ERM included. Where ERM scores best, the "
        "band admits only a candidate that beats ERM on at least one training environment. 1: the "
        'one-standard-error rule (why, measured: docs/sal.md, "The paper\'s generators").',
    )
    erm_first: str = param(
        "keep_where_alike",
        choices=ERM_FIRST,
        doc="lambda_='auto': where ERM is kept. 'keep_where_alike' (default): where the slopes test ran and "
        "finds no evidence that the training environments' slopes differ (Chow's F test; for classification "
        "the likelihood ratio; p ≥ 0.05; `selection.homogeneity` reports it), ERM outright (no robust "
        "candidate is chosen there, so none is fitted unless score_all: a lead out of fold there is what "
        "shrinkage gains on rows like the training rows, and on real tables it did not carry to shifted test "
        "environments), and so too where the environments share one exact linear law whatever p says "
        "(the shared slopes leave at most 1e-6 of the target's variance; `homogeneity.exact_law`); where "
        "no test ran, ERM unless a robust candidate beats it by more than selection_se standard errors; where "
        "the slopes differ, the rule above. 'where_alike' (the default before 2026-12-02 evening): ERM unless "
        "beaten by more than selection_se standard errors where the slopes look alike or no test ran. "
        "'always': that everywhere. 'never': the robust-first rule alone (the default before 2026-11-28 "
        "evening). What each costs and gains on real tables and the paper's anti-causal cells: docs/sal.md, "
        '"ERM where the slopes look alike" and "ERM first where the slopes look alike".',
    )
    score_all: bool = param(
        False,
        doc="lambda_='auto', where erm_first keeps ERM outright: also fit and score every robust candidate, "
        "for the record (`selection.candidates`); ERM is still the fit returned. Off by default: those fits "
        "cannot change the result, and they are nearly all of the fit's time.",
    )
    erm_bar: str = param(
        "single",
        choices=ls.ERM_BARS,
        doc="lambda_='auto', where ERM comes first (erm_first): what a robust candidate must clear to replace "
        "ERM. 'single' (default): the best candidate's lead over ERM beyond selection_se standard errors. "
        "'simultaneous', opt-in: the strongest candidate's lead, in its own standard errors, beyond the bar "
        "that keeps that comparison's level for the best of all robust candidates (a max-t over joint "
        "draws; `selection.beats_erm` reports both). Measured against 'single' on real tables and the "
        'paper\'s anti-causal cells: docs/sal.md, "The best of several is not one".',
    )
    folds_untested: int = param(
        10,
        low=2,
        high=20,
        doc="lambda_='auto' on the exact path: the cross-fitting folds where no slopes test can run on the "
        "training rows (too few rows per covariate for Chow's F: `selection.homogeneity` is null). There a fit "
        "on (K−1)/K of the rows is much worse than the fit on all of them, and most so for ERM, which shrinks "
        "nothing: 10 folds score the candidates on fits nearer the one returned. Which environments decide "
        "the worst one, and whether any does, still reads `folds` (a row per fold). Setting it to `folds` "
        'turns it off. Measured on real tables: docs/sal.md, "More folds where no slopes test runs".',
    )
    cost_cap: float = param(
        1.0,
        low=0.0,
        high=1.0,
        doc="lambda_='auto', opt-in: where the training environments show no evidence of different slopes "
        "(Chow's F test; for classification the likelihood-ratio test; p ≥ 0.05; `selection.homogeneity` "
        "reports it either way), a robust candidate must also score at most this fraction above the best "
        'out of fold. 1: off (the default); 0.03 measured in docs/sal.md, "Few rows, nothing shifted".',
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
        "differentiation, sal_core.deep_sal), from w = 1. 'auto' = 'linear' (why, measured: "
        "docs/benchmarks.md).",
    )


EXACT_GRID: tuple[float, ...] = (1e-3, 1e-2, 1e-1, 1.0, ls.OFF)
"""SAL's relative λ candidates on the exact path (× the noise variance σ̂²), most robust first; the
last one switches the adversary off (ERM)."""
DEEP_GRID: tuple[float, ...] = (1.0, ls.OFF)
"""SAL's λ candidates for MLPs learning w through the network (``w_source="network"``): λ = 1
(unit-free; at 0.1 the network outgrows what the adversary can pay for and most rows hit the radius
cap) and the fallback to ERM."""
SEEDED_GRID: tuple[float, ...] = (1e-1, 1.0, ls.OFF)
"""SAL's relative λ candidates for MLPs under the linear path's w (× the noise variance σ̂², as on the
exact path), most robust first; the last one is ERM with the same network."""
GRADIENT_GRID: tuple[float, ...] = (0.1, ls.OFF)
"""SAL's λ candidates on gradient paths (unit-free): each SAL candidate is a full fit of 40 rounds, so
only the paper-setting λ = 0.1 and the fallback to ERM (docs/sal.md, "Measured for the defaults").
Where ERM overfits beyond the noise, λ = 0.1 is also tried at the w-path's start, w ≡ 1
(:meth:`WDRL.offers_ball`; docs/sal.md, "The w-path's start where ERM overfits")."""


class LearnedW(WStep[SALParams]):
    """SAL's w-step: w ≥ 1 with min w = 1, updated every round from ∂R/∂w."""

    learns_w: ClassVar[bool] = True

    @classmethod
    def closed_form_allowed(cls, params: SALParams) -> bool:
        return params.gradient != "paper"

    @classmethod
    def network_path(cls, params: SALParams) -> PathName:
        """gradient='auto': w from the linear path ('seeded', the default) or through the network
        ('deep', ascent in u = w ⊙ δ and ∂R/∂w by implicit differentiation); 'paper' keeps Section 4.2.1."""
        if params.gradient != AUTO:
            return "gradient"
        return "deep" if params.w_source == "network" else "seeded"

    @classmethod
    def seeder_params(cls, params: SALParams) -> SALParams:
        return dataclasses.replace(params, lambda_=AUTO, gradient=AUTO, adversary=AUTO, w_source=AUTO)

    def check(self, problem: Problem) -> None:
        p = self.params
        if p.gradient == "exact" and not problem.model_spec.is_linear:
            raise InvalidParameterError(
                "gradient='exact' needs a linear model; use 'paper'", field="params.gradient"
            )
        if p.gradient == "exact" and p.adversary == "gradient":
            raise InvalidParameterError(
                "gradient='exact' differentiates the closed-form adversary; use adversary='closed_form' or 'auto'",
                field="params.gradient",
            )

    @property
    def schedule(self) -> Schedule:
        p = self.params
        base = EXACT_SCHEDULE if self.path == "exact" else GRADIENT_SCHEDULE
        return Schedule(
            rounds=base.rounds if p.rounds == AUTO else int(p.rounds),
            w_lr=base.w_lr if p.w_lr == AUTO else float(p.w_lr),
            w_update=base.w_update if p.w_update == AUTO else p.w_update,
        )

    @property
    def alpha(self) -> float:
        return self.params.alpha

    @property
    def stability(self) -> str:
        return self.params.stability

    @property
    def convergence_tol(self) -> float:
        return self.params.convergence_tol

    def batchable(self) -> bool:
        """The exact path's batched selection runs Adam on log w; another w rule takes the loop."""
        return self.schedule.w_update == "adam_log"

    def update(self, anchor: NDArray[np.bool_] | None = None) -> WUpdate:
        s = self.schedule
        return make_w_update(s.w_update, s.w_lr, self.params.w_max, anchor)

    def anchors(self) -> tuple[str, ...]:
        p = self.params
        return ("all", "significant") if p.anchor == AUTO else (p.anchor,)

    def anchor_mask(self, moments: rl.Moments, n_rows: int) -> NDArray[np.bool_] | None:
        varying = rl.varying_covariates(moments)  # a constant covariate's w never moves: never pinned
        if self.params.anchor != "significant":
            return None if varying.all() else varying
        return varying & rl.significant_covariates(moments, n_rows, es.SIGNIFICANCE)

    def path_settings(self) -> eb.PathSettings:
        p, s = self.params, self.schedule
        return eb.PathSettings(
            rounds=s.rounds, lr=s.w_lr, w_max=p.w_max, alpha=p.alpha, stability=p.stability
        )


class SAL(WDRL):
    """Stable Adversarial Learning: WDRL whose transport cost learns a weight per covariate."""

    name = "sal"
    params_type = SALParams
    min_environments = 2
    summary = "Stable Adversarial Learning: Wasserstein DRO with a learned per-covariate transport cost."
    w_step_type: ClassVar[type[WStep[SALParams]]] = LearnedW
    grids: ClassVar[Mapping[PathName, tuple[float, ...]]] = {
        "exact": EXACT_GRID,
        "gradient": GRADIENT_GRID,
        "deep": DEEP_GRID,
        "seeded": SEEDED_GRID,
    }
    prefer: ClassVar[ls.Prefer] = "robust"


ALGORITHM = SAL
