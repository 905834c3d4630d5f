"""Wasserstein distributionally robust learning (Sinha et al.) in the Lagrangian-penalty form.

min_θ mean_i sup_x̃ ℓ(θ; x̃, y_i) − λ‖w ⊙ (x̃ − x_i)‖² with a *fixed* covariate weight w (w ≡ 1 for
WDRL itself). :class:`~sal_core.algorithms.sal.SAL` subclasses it and adds the learning of w.

The fit flow lives here once, for WDRL and SAL alike: the path is chosen once (:meth:`WDRL.path`:
exact, gradient, deep or seeded; each a module of plain functions under :mod:`sal_core.paths`), λ is
fixed or selected, and every round asks the w-step (:class:`sal_core.paths.w_step.WStep`; w ≡ 1 here)
what to do with w. SAL declares its w-step, its parameters and its grids; it overrides no method.

``lambda_ = "auto"`` (the default) chooses λ on held-out rows of the training environments
(:mod:`sal_core.lambda_selection`) and reports the candidates and the criterion in the fit's
``selection``. Regression targets are divided by their pooled standard deviation inside the fit,
so a numeric ``lambda_`` is unit-free; results are reported in the target's own units.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import torch

from sal_core import exact_selection as es
from sal_core import lambda_selection as ls
from sal_core import loss_stats as lstats
from sal_core.algorithms.base import Algorithm, EnvTensors, Problem, Reporter, Solution
from sal_core.exceptions import InvalidParameterError
from sal_core.homogeneity import (
    TEST_BUDGET,
    SlopesTest,
    cap_where_alike,
    decided_here,
    erm_first_here,
    erm_kept_here,
    slopes_test_of,
)
from sal_core.models import ModelSpec
from sal_core.params import AUTO, Params, param
from sal_core.paths import PathName, deep, exact, gradient
from sal_core.paths.common import Holding, Offset, protection, target_scale
from sal_core.paths.exact import fit_fixed_w as fit_ridge_path
from sal_core.paths.exact import moments as _moments
from sal_core.paths.gradient import ERM_STEPS
from sal_core.paths.w_step import Schedule, WStep

_target_scale = target_scale
_Offset = Offset

__all__ = [
    "ERM_STEPS",
    "EXACT_GRID",
    "GRADIENT_GRID",
    "REFIT_SLACK",
    "WDRL",
    "WDRLParams",
    "_Offset",
    "_moments",
    "_target_scale",
    "fit_ridge_path",
]  # _moments and _target_scale: tests and bench.solver read the exact path's moments through them


@dataclass(frozen=True)
class HeldOutScores:
    """ERM's and the constant prediction's per-row losses on held-out rows, per training environment,
    with the problem and the row folds they came from, and the environments that decide the worst
    one (:func:`sal_core.lambda_selection.deciding_environments`)."""

    problem: Problem
    folds: torch.Tensor
    losses: list[np.ndarray]
    constant: list[np.ndarray]
    deciding: list[int]

    def decide(self, per_env: list[np.ndarray]) -> list[np.ndarray]:
        """The deciding environments' entries of a per-environment list."""
        return _deciding(per_env, self.deciding)


@dataclass(frozen=True)
class BallGate:
    """Whether lambda_='auto' tries the ball (:meth:`WDRL._ball_gate`), and ERM's and the constant's
    cross-fitted losses where every fold had to decide it."""

    opens: bool
    crossed: HeldOutScores | None = None


@dataclass(frozen=True)
class Scored:
    """One candidate of lambda_='auto' off the exact path: its key (relative λ, variant), λ, its fit
    without the held-out fold, and its per-row losses per training environment where scored."""

    key: tuple[float, str]
    lam: float
    solution: Solution
    losses: list[np.ndarray]


def _deciding(per_env: list[np.ndarray], deciding: list[int]) -> list[np.ndarray]:
    """The entries of a per-environment list for the environments that decide the worst one."""
    return [per_env[e] for e in deciding]


def _joined(parts: list[list[np.ndarray]]) -> list[np.ndarray]:
    """Per environment, the losses of every fold in one array (fold 0 first)."""
    return [np.concatenate(env_parts) for env_parts in parts]


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
    repeats: int | str = param(
        AUTO,
        low=1,
        high=10,
        doc="lambda_='auto' on the exact path: the K-fold cross-fitting is repeated on this many splits of "
        "the rows (each decided by their content); a row's out-of-fold loss is its mean over the splits, "
        "and SAL's returned θ the mean of all K × repeats fold fits of the chosen λ. Costs repeats × the "
        "selection's fits. 'auto' (default): 3 below 32 covariates, where a split costs little, 1 from 32 "
        "on (a split's cost grows like p³; docs/sal.md, 'Repeated cross-fitting').",
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
"""WDRL's relative λ candidates on the exact path (× the noise variance σ̂²); the last one is ERM."""
GRADIENT_GRID: tuple[float, ...] = (0.1, 1.0, ls.OFF)
"""WDRL's λ candidates elsewhere (unit-free); each is a full gradient fit, so the grid is short."""
BALL_VARIANT = "w ≡ 1 (the w-path's start: WDRL's ball)"
"""The variant of a learned-w candidate fitted at its w-path's start instead (:meth:`WDRL.offers_ball`)."""
REFIT_SLACK = 0.1
"""Networks on the other paths: the refit on all rows is kept unless it scores worse than this
fraction above the chosen candidate on the held-out fold (which it was trained on): a non-convex
refit that took another path to a worse end is not the model the selection validated. A linear
model's refit is always kept (convex in θ; docs/sal.md, "A linear refit is kept")."""


class WDRL(Algorithm[WDRLParams]):
    """Wasserstein DRO with a fixed transport cost ‖w ⊙ (x̃ − x)‖², w ≡ 1.

    Subclasses differ by declaration only: ``w_step_type`` (what happens to w), ``params_type``,
    ``grids`` (the relative λ candidates per path) and ``prefer``.
    """

    name = "wdrl"
    params_type = WDRLParams
    min_environments = 1
    summary = "Wasserstein DRO with an isotropic transport cost (SAL with w ≡ 1)."
    w_step_type: ClassVar[type[WStep[Any]]] = WStep
    grids: ClassVar[Mapping[PathName, tuple[float, ...]]] = {"exact": EXACT_GRID, "gradient": GRADIENT_GRID}
    prefer: ClassVar[ls.Prefer] = "erm"
    """lambda_='auto' keeps ERM unless a ball beats it by more than ``selection_se`` standard errors:
    an isotropic ball only shrinks every coefficient alike."""
    _seed_w: torch.Tensor | None = None  # the seeded path's w, learned on the exact path by ``w_seeder``

    # ------------------------------------------------------------------------------ the path, once
    def path(self) -> PathName:
        """The solver path this configuration takes (:mod:`sal_core.paths`): decided here only."""
        if not self.model_spec.is_linear:
            return self.w_step_type.network_path(self.params)
        return "exact" if self.closed_form() and self.loss_name == "squared" else "gradient"

    def closed_form(self) -> bool:
        """Is the inner supremum the linear model's closed form (not gradient ascent)?"""
        return (
            self.model_spec.is_linear
            and self.params.adversary != "gradient"
            and self.w_step_type.closed_form_allowed(self.params)
        )

    def uses_ridge_path(self) -> bool:
        return self.path() == "exact"

    def w_step(self) -> WStep[Any]:
        """What this fit does with w on its path."""
        return self.w_step_type(self.params, self.path())

    def schedule(self) -> Schedule:
        """Rounds, step and rule of the w-step, every 'auto' resolved for this fit's path."""
        return self.w_step().schedule

    # ---------------------------------------------------------------------------------- orchestration
    def _fit(self, problem: Problem, reporter: Reporter) -> Solution:
        if self.path() == "seeded":
            return self._fit_seeded(problem, reporter)
        return self._fit_checked(problem, reporter)

    def _fit_checked(self, problem: Problem, reporter: Reporter) -> Solution:
        self._check_options(problem)
        self._moments_of: dict[int, exact.Stats] = {}
        try:
            return self._fit_selected(problem, reporter)
        finally:
            self._moments_of.clear()

    def moments(self, problem: Problem, y_scale: float) -> exact.Stats:
        """The exact path's sufficient statistics of ``problem``, computed once per fit."""
        key = id(problem)  # problems live for the whole fit, so their ids are not reused within it
        if key not in self._moments_of:
            self._moments_of[key] = exact.moments(problem, y_scale)
        return self._moments_of[key]

    def _fit_selected(self, problem: Problem, reporter: Reporter) -> Solution:
        y_scale = target_scale(problem)
        lam = self.params.lambda_
        if lam != AUTO:
            assert isinstance(lam, float)
            return self._fit_at(problem, lam, reporter, y_scale)
        if self.auto_is_exact():
            plan = self.exact_plan()
            full = lambda: self.moments(problem, y_scale)[0]  # noqa: E731
            return exact.fit_auto(problem, y_scale, plan, reporter, self.steps_per_fit(), full)
        return self._fit_heldout_auto(problem, reporter, y_scale)

    def auto_is_exact(self) -> bool:
        """Does lambda_='auto' run on the exact path (batched cross-fitting, :mod:`exact_selection`)?
        Only where the batch runs the w-step (SAL: Adam on log w; another rule takes the loop)."""
        return self.params.lambda_ == AUTO and self.uses_ridge_path() and self.w_step().batchable()

    def total_steps(self) -> int:
        """Progress steps: the selection then the refit (the exact path's auto), or one fit per λ
        candidate then the final fit (elsewhere). A seeded fit counts the linear path's steps first."""
        seeding = self.w_seeder().total_steps() if self.path() == "seeded" else 0
        return seeding + self.fits() * self.steps_per_fit()

    def fits(self) -> int:
        """How many fits one job runs, as the progress bar counts them."""
        if self.auto_is_exact():
            return 2  # every candidate on every fold in one batch, then the refit
        return len(self._candidate_keys()) + 1 if self.params.lambda_ == AUTO else 1

    def steps_per_fit(self) -> int:
        return deep.SEEDED_TICKS if self.path() == "seeded" else self.schedule().rounds

    def candidate_grid(self) -> tuple[float, ...]:
        return self.grids[self.path()]

    def offers_ball(self) -> bool:
        """May lambda_='auto' off the exact path also try each λ at its w-path's start, w ≡ 1
        (WDRL's ball, which shrinks every coefficient alike), next to the w it learns? Where w is
        learned on the gradient path (SAL); :meth:`_ball_gate` says where it is tried."""
        return self.path() == "gradient" and self.w_step().learns_w

    def _candidate_keys(self) -> list[tuple[float, str]]:
        """(relative λ, variant) of every candidate lambda_='auto' may fit off the exact path."""
        keys = []
        for relative in self.candidate_grid():
            keys.append((relative, ""))
            if relative != ls.OFF and self.offers_ball():
                keys.append((relative, BALL_VARIANT))
        return keys

    def _ball_gate(self, erm: HeldOutScores, reporter: Reporter, y_scale: float) -> BallGate:
        """Is the w-path's start tried too? Where this fit offers it and ERM scores worse out of fold
        than the constant prediction beyond the noise: ERM overfits the fitting rows, and what may
        help is the ball's isotropic shrinkage, which a learned w ≥ 1 can only weaken. A ball is
        then kept as a candidate only if it beats the constant beyond the noise in turn (one that
        flattens the fit to about the base rate has nothing to offer).

        The held-out fold closes the gate where ERM beats the constant there. Where it does not,
        every fold decides (one fold of a small table is too few rows to tell): ERM is fitted
        without each of the others too and every row is scored, as the exact path scores its
        candidates; where that opens the gate, every candidate is scored so (docs/sal.md, "The
        w-path's start where ERM overfits")."""
        if not self.offers_ball():
            return BallGate(False)
        squared = erm.problem.loss_name == "squared"
        erm_score, constant_score = (
            ls.score_of(erm.decide(x), squared)[0] for x in (erm.losses, erm.constant)
        )
        if erm_score <= constant_score:
            return BallGate(False)
        crossed = self._cross_fitted_erm(erm, reporter, y_scale)
        if crossed is None or not self._worse_beyond_noise(
            crossed.decide(crossed.losses), crossed.decide(crossed.constant), squared
        ):
            return BallGate(False)
        return BallGate(True, crossed)

    def _cross_fitted_erm(
        self, erm: HeldOutScores, reporter: Reporter, y_scale: float
    ) -> HeldOutScores | None:
        """ERM's and the constant's losses on every row, each fold scored by a fit without it (fold
        0's from ``erm``); None where a stop was asked for meanwhile. Progress holds where it is."""
        losses = self._on_every_fold(
            erm.problem, erm.folds, (ls.OFF, ""), ls.OFF_LAMBDA, erm.losses, reporter, y_scale
        )
        if isinstance(losses, Solution):
            return None
        constant = [[loss] for loss in erm.constant]
        for k in range(1, self.params.folds):
            for env, loss in enumerate(ls.null_losses(*ls.fold_split(erm.problem, erm.folds, k))):
                constant[env].append(loss)
        return HeldOutScores(erm.problem, erm.folds, losses, _joined(constant), erm.deciding)

    def _cross_fitted(
        self, fold_zero: list[Scored], crossed: HeldOutScores, reporter: Reporter, y_scale: float
    ) -> list[Scored] | Solution:
        """Every candidate's losses on every row, each fold scored by a fit without it (fold 0's
        from ``fold_zero``, ERM's from ``crossed``); a stopped fit's solution where a stop was asked
        for. Progress holds where it is."""
        rescored = []
        for entry in fold_zero:
            losses = (
                crossed.losses
                if entry.key[0] == ls.OFF
                else self._on_every_fold(
                    crossed.problem, crossed.folds, entry.key, entry.lam, entry.losses, reporter, y_scale
                )
            )
            if isinstance(losses, Solution):
                return losses
            rescored.append(dataclasses.replace(entry, losses=losses))
        return rescored

    def _on_every_fold(
        self,
        problem: Problem,
        folds: torch.Tensor,
        key: tuple[float, str],
        lam: float,
        fold_zero: list[np.ndarray],
        reporter: Reporter,
        y_scale: float,
    ) -> list[np.ndarray] | Solution:
        """One candidate's per-row losses on every row, per environment: fold 0's given, each other
        fold's from a fit without it (progress held still); a stopped fit's solution where a stop
        was asked for."""
        parts = [[loss] for loss in fold_zero]
        for k in range(1, self.params.folds):
            fit_part, held_out = ls.fold_split(problem, folds, k)
            solution = self._fit_key(fit_part, key, lam, Holding(reporter), y_scale)
            if solution.stopped:
                return solution
            for env, loss in enumerate(ls.scored_losses(problem, solution.model, held_out)):
                parts[env].append(loss)
        return _joined(parts)

    def _fit_key(
        self, problem: Problem, key: tuple[float, str], lam: float, reporter: Reporter, y_scale: float
    ) -> Solution:
        """One candidate of lambda_='auto' off the exact path: ERM, the ball, or a fit at λ."""
        relative, variant = key
        if relative == ls.OFF:
            return self._fit_off(problem, lam, reporter, y_scale)
        if variant == BALL_VARIANT:
            return self._fit_ball(problem, lam, reporter, y_scale)
        return self._fit_at(problem, lam, reporter, y_scale)

    def _worse_beyond_noise(self, losses: list[np.ndarray], other: list[np.ndarray], squared: bool) -> bool:
        """Does ``losses`` score worse than ``other`` on the same held-out rows by more than
        ``selection_se`` standard errors of the paired difference?"""
        lead = ls.score_of(losses, squared)[0] - ls.score_of(other, squared)[0]
        return lead > self.params.selection_se * ls.paired_se(losses, other, squared)

    # -------------------------------------------------------------------- MLPs: w from the linear path
    def w_seeder(self) -> WDRL:
        """The linear fit that learns w for a network (``seeded`` path): the same class, parameters
        and seed, lambda_='auto', on the exact path (squared loss; for classification a linear
        probability model of the labels)."""
        params = self.w_step_type.seeder_params(self.params)
        return type(self)(
            params, model=ModelSpec(), seed=self.seed, device=str(self.device), dtype=self.dtype
        )

    def _fit_seeded(self, problem: Problem, reporter: Reporter) -> Solution:
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
        solution = self._fit_checked(problem, Offset(reporter, seeder.total_steps()))
        solution.selection = dataclasses.replace(
            solution.selection or ls.FitSelection(),
            covariate_weights=ls.SeededW(
                source="SAL's exact path on a linear model of the same rows, then held fixed",
                w=tuple(float(v) for v in seeded.covariate_weights.cpu()),
                selection=seeded.selection,
            ),
        )
        return solution

    # ------------------------------------------------------------------ lambda_='auto', exact path
    def exact_plan(self) -> es.Plan:
        ws = self.w_step()
        return es.Plan(
            relatives=self.grids["exact"],
            learns_w=ws.learns_w,
            settings=ws.path_settings(),
            z=self.params.selection_se,
            prefer=self.prefer,
            folds=self.params.folds,
            folds_untested=self.folds_untested(),
            repeats=None if self.params.repeats == AUTO else int(self.params.repeats),
            anchors=ws.anchors(),
            cost_cap=self.cost_cap(),
            erm_first=self.erm_first_mode(),
            erm_bar=self.erm_bar(),
            score_all=self.scores_all(),
            device=self.device_,
        )

    def cost_cap(self) -> float | None:
        """What a robust candidate may cost where the environments' slopes look alike: SAL's
        ``cost_cap`` below 1 (1 is off, the default); none for WDRL, which keeps ERM unless a ball
        beats it."""
        cap = getattr(self.params, "cost_cap", None)
        return None if cap is None or cap >= 1.0 else float(cap)

    def erm_first_mode(self) -> str:
        """SAL's ``erm_first`` (`homogeneity.ERM_FIRST`); "never" for WDRL, whose rule keeps ERM
        unless a ball beats it everywhere already."""
        return str(getattr(self.params, "erm_first", "never"))

    def scores_all(self) -> bool:
        """SAL's ``score_all``: fit the robust candidates where ERM is kept outright too. WDRL never
        keeps ERM outright."""
        return bool(getattr(self.params, "score_all", False))

    def folds_untested(self) -> int | None:
        """SAL's ``folds_untested``; None for WDRL (its folds everywhere)."""
        folds = getattr(self.params, "folds_untested", None)
        return None if folds is None else int(folds)

    def erm_bar(self) -> str:
        """SAL's ``erm_bar`` (`lambda_selection.ERM_BARS`); "single" for WDRL."""
        return str(getattr(self.params, "erm_bar", "single"))

    # -------------------------------------------------------------- lambda_='auto', other paths
    def _fit_heldout_auto(self, problem: Problem, reporter: Reporter, y_scale: float) -> Solution:
        """Every candidate fitted without one held-out fold and scored on it, then the chosen one
        refitted on all rows: always kept for a linear model (its objective is convex in θ, so the
        refit cannot end on another path, and where ERM is kept the fit is ERM's own); for a network
        kept unless it scores worse on the held-out rows than the candidate did, though it was
        trained on them (a non-convex refit that took another path)."""
        selected = self._select_lambda(problem, y_scale, reporter)
        if isinstance(selected, Solution):  # stopped while fitting a candidate
            return selected
        selection, candidate, held_out = selected
        offset = len(self._candidate_keys()) * self.steps_per_fit()
        progress = Offset(reporter, offset)
        if selection.lambda_ == ls.OFF_LAMBDA:
            solution = self._fit_off(problem, selection.lambda_, progress, y_scale)
        elif selection.candidates[selection.chosen].variant == BALL_VARIANT:
            solution = self._fit_ball(problem, selection.lambda_, progress, y_scale)
        else:
            solution = self._fit_at(problem, selection.lambda_, progress, y_scale)
        squared = problem.loss_name == "squared"
        deciding = self._deciding_environments(problem)
        refit_score = ls.score_of(
            _deciding(ls.scored_losses(problem, solution.model, held_out), deciding), squared
        )[0]
        # the chosen candidate's own score on the held-out fold: its selection score where the
        # selection read that fold alone; where it read every fold, that score is over all rows,
        # and a refit's score on one fold is no measure against it
        chosen_score = ls.score_of(
            _deciding(ls.scored_losses(problem, candidate.model, held_out), deciding), squared
        )[0]
        kept = (
            problem.model_spec.is_linear
            or refit_score <= (1 + REFIT_SLACK) * chosen_score
            or solution.stopped
        )
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

    def _deciding_environments(self, problem: Problem) -> list[int]:
        """The training environments that may decide the worst one: those with at least one row per
        fold (:func:`sal_core.lambda_selection.deciding_environments`, as on the exact path)."""
        return ls.deciding_environments(problem.env_counts.tolist(), self.params.folds)

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
        constant = ls.null_losses(fit_part, held_out)
        rows = problem.env_counts.tolist()
        deciding = ls.deciding_environments(rows, p.folds)
        decided = decided_here(self.erm_first_mode(), ls.decided(rows, p.folds))
        steps = self.steps_per_fit()
        keys = [key for key in self._candidate_keys() if key[1] != BALL_VARIANT]
        homogeneity = _slopes_test(problem)
        skips = self._skips_robust(homogeneity, decided)
        skipped = [key for key in keys if key[0] != ls.OFF] if skips else []
        keys = [key for key in keys if key not in skipped]  # ERM alone, unless its gate opens below
        scored: list[Scored] = []
        crossed: HeldOutScores | None = None
        for key in keys:
            lam = ls.candidate_lambda(key[0], base)
            solution = self._fit_key(fit_part, key, lam, Offset(reporter, len(scored) * steps), y_scale)
            if solution.stopped:
                return solution
            scored.append(Scored(key, lam, solution, ls.scored_losses(problem, solution.model, held_out)))
            if key[0] == ls.OFF:
                erm = HeldOutScores(problem, folds, scored[-1].losses, constant, deciding)
                gate = self._ball_gate(erm, Offset(reporter, len(scored) * steps), y_scale)
                if gate.opens:
                    # ERM (the grid's last key) overfits: it is not kept outright, and this loop goes on
                    # to any robust candidates skipped above and the balls appended here
                    keys += skipped + [key for key in self._candidate_keys() if key[1] == BALL_VARIANT]
                    crossed = gate.crossed
        if crossed is not None:  # one fold could not tell ERM from the constant; every fold did
            rescored = self._cross_fitted(scored, crossed, Offset(reporter, len(scored) * steps), y_scale)
            if isinstance(rescored, Solution):
                return rescored
            scored, constant = rescored, crossed.constant

        # every environment is scored and reported; only the deciding ones are read from here on
        candidates: list[ls.Candidate] = []
        solutions: list[Solution] = []
        losses: list[list[np.ndarray]] = []
        for entry in scored:
            relative, variant = entry.key
            if variant == BALL_VARIANT and not self._worse_beyond_noise(
                _deciding(constant, deciding), _deciding(entry.losses, deciding), squared
            ):
                continue  # the ball flattened the fit to about the constant: nothing to offer
            score = ls.score_of(_deciding(entry.losses, deciding), squared)[0]
            per_env = ls.score_of(entry.losses, squared)[1]
            candidates.append(
                ls.Candidate(
                    None if relative == ls.OFF else relative,
                    entry.lam,
                    score,
                    {e.name: v for e, v in zip(held_out, per_env, strict=True)},
                    protection=protection(entry.solution),
                    variant=variant,
                )
            )
            solutions.append(entry.solution)
            losses.append(_deciding(entry.losses, deciding))
        erm_last = sorted(range(len(candidates)), key=lambda i: candidates[i].relative is None)
        kept = [erm_last[i] for i in ls.best_variants([candidates[i] for i in erm_last])]
        candidates, solutions, losses = (
            [candidates[i] for i in kept],
            [solutions[i] for i in kept],
            [losses[i] for i in kept],
        )
        null = ls.score_of(_deciding(constant, deciding), squared)[0]  # ls.null_score
        candidates = ls.with_paired_se(candidates, losses, squared, null)
        cap = cap_where_alike(self.cost_cap(), homogeneity)
        first = erm_first_here(self.erm_first_mode(), homogeneity, decided)
        # ERM kept outright where the slopes look alike, unless it overfits (the ball's gate opened:
        # ERM scored worse than the constant beyond the noise, so it is no fit to keep)
        erm_kept = (
            erm_kept_here(self.erm_first_mode(), homogeneity, decided)
            and crossed is None
            and bool(candidates)
            and candidates[-1].relative is None
        )
        weighed = first and not erm_kept  # ERM came first and the candidates' evidence against it is read
        beats_erm = (
            _beats_erm(candidates, losses, p.selection_se, squared, null)
            if weighed and self.erm_bar() == "simultaneous"
            else None
        )
        erm_se = (
            [ls.paired_se(loss, losses[-1], squared) for loss in losses]
            if weighed and candidates and candidates[-1].relative is None  # read only where ERM came first
            else None
        )
        chosen, best, reason = ls.choose(
            candidates,
            p.selection_se,
            self.prefer,
            cap,
            first,
            null,
            beats_erm,
            homogeneity,
            erm_se,
            erm_kept,
            decided,
        )
        selection = ls.Selection(
            criterion="worst_env_validation_rmse" if squared else "worst_env_validation_loss",
            prefer=self.prefer,
            z=p.selection_se,
            scoring=(
                f"{p.folds}-fold cross-fitting within each training environment (one held-out fold "
                "could not tell ERM from the constant prediction)"
                if crossed is not None
                else f"one held-out fold of {p.folds} within each training environment"
            )
            + (
                "; log-loss after one temperature fitted on those rows, as each candidate ranks them"
                if problem.loss_name == "logistic"
                else ""
            )
            + ls.not_deciding_words([e.name for e in problem.envs], deciding, p.folds),
            rows_scored=sum(len(loss) for loss in scored[0].losses),
            base=base,
            candidates=tuple(candidates),
            chosen=chosen,
            best=best,
            reason=reason,
            homogeneity=homogeneity,
            cost_cap=cap,
            erm_first=first,
            null_score=null,
            beats_erm=beats_erm,
            erm_kept=erm_kept,
            decided=decided,
        )
        return selection, solutions[chosen], held_out

    def _skips_robust(self, homogeneity: SlopesTest | None, decided: bool) -> bool:
        """Whether lambda_='auto' fits ERM alone first: where ERM is kept outright (the slopes test, or
        no environment with a row per fold), no robust candidate can be chosen unless ERM overfits (its
        ball gate opens), and ``score_all`` does not ask for them for the record."""
        return erm_kept_here(self.erm_first_mode(), homogeneity, decided) and not self.scores_all()

    def lambda_base(self, problem: Problem, y_scale: float) -> float:
        """The unit of the relative λ grid: the noise variance (`exact_selection.noise_variance`) where the grid is relative to it (the
        exact path, and a network under its w), 1 elsewhere."""
        if self.path() in ("exact", "seeded"):
            return es.noise_variance(self.moments(problem, y_scale)[0], int(problem.Z.shape[0]))
        return 1.0

    # ---------------------------------------------------------------------- one fit at one λ, by path
    def _fit_at(self, problem: Problem, lam: float, reporter: Reporter, y_scale: float) -> Solution:
        """Fit at one λ on this fit's path, w as the w-step has it."""
        path, ws = self.path(), self.w_step()
        if path == "exact":
            stats = self.moments(problem, y_scale)
            if ws.learns_w:
                return exact.fit_rounds(problem, lam, y_scale, reporter, stats, ws)
            return exact.fit_fixed_w(problem, lam, np.ones(problem.n_features), y_scale, reporter, stats)
        if path == "seeded":
            return self._fit_seeded_at(problem, lam, reporter, y_scale, adversary=True)
        if path == "deep":
            return deep.fit_learned(problem, lam, reporter, y_scale, ws)
        if ws.learns_w:
            return gradient.fit_rounds(problem, lam, reporter, y_scale, self._theta_options(), ws)
        return gradient.fit_fixed_w(problem, lam, reporter, y_scale, self._theta_options())

    def _fit_ball(self, problem: Problem, lam: float, reporter: Reporter, y_scale: float) -> Solution:
        """Fit at one λ with w ≡ 1 (the w-path's start) on the gradient path, with as many Adam
        steps on θ as the learned-w fit takes over all its rounds."""
        options = dataclasses.replace(
            self._theta_options(), theta_steps=self.params.theta_steps * self.schedule().rounds
        )
        return gradient.fit_fixed_w(problem, lam, reporter, y_scale, options)

    def _fit_off(self, problem: Problem, lam: float, reporter: Reporter, y_scale: float) -> Solution:
        """The adversary switched off (λ = OFF_LAMBDA): ERM, whatever the w-step learns. Exact on the
        ridge path; a network under its w gets ERM on the network fits' schedule; elsewhere ERM's own
        2000 Adam steps on the plain loss (no inner supremum to pay for)."""
        path = self.path()
        if path == "exact":
            stats = self.moments(problem, y_scale)
            return exact.fit_fixed_w(problem, lam, np.ones(problem.n_features), y_scale, reporter, stats)
        if path == "seeded":
            return self._fit_seeded_at(problem, lam, reporter, y_scale, adversary=False)
        return gradient.fit_fixed_w(problem, lam, reporter, y_scale, self._theta_options(), adversary=False)

    def _fit_seeded_at(
        self, problem: Problem, lam: float, reporter: Reporter, y_scale: float, *, adversary: bool
    ) -> Solution:
        return deep.fit_seeded(
            problem, lam, reporter, y_scale, self.w_step(),
            theta_lr=self.params.theta_lr, seed_w=self._seed_w, adversary=adversary,
        )  # fmt: skip

    def _theta_options(self) -> gradient.ThetaOptions:
        p = self.params
        return gradient.ThetaOptions(
            theta_steps=p.theta_steps,
            theta_lr=p.theta_lr,
            ascent_steps=p.ascent_steps,
            ascent_lr=p.ascent_lr,
            closed_form=self.closed_form(),
        )

    # ------------------------------------------------------------------------------------ options
    def _check_options(self, problem: Problem) -> None:
        if self.params.adversary == "closed_form" and not problem.model_spec.is_linear:
            raise InvalidParameterError(
                "the closed-form adversary needs a linear model", field="params.adversary"
            )
        self.w_step().check(problem)


def _beats_erm(
    candidates: list[ls.Candidate],
    losses: list[list[np.ndarray]],
    z: float,
    squared: bool,
    null: float | None,
) -> ls.ErmEvidence | None:
    """The evidence that some admissible robust candidate beats ERM (the last one) on the held-out
    rows, against the simultaneous bar (:func:`sal_core.loss_stats.beats_erm`)."""
    robust = [
        i for i, c in enumerate(candidates)
        if c.relative is not None and np.isfinite(c.score) and ls.admissible(c, null)
    ]  # fmt: skip
    if not robust or candidates[-1].relative is not None:
        return None
    per_env = [np.column_stack([candidate[e] for candidate in losses]) for e in range(len(losses[0]))]
    return lstats.beats_erm(lstats.LossStats.of_rows(per_env), robust, len(candidates) - 1, z, squared)


def _slopes_test(problem: Problem) -> SlopesTest | None:
    """The slopes test on the training rows (`homogeneity.slopes_test_of`); none above
    `homogeneity.TEST_BUDGET` rows × covariates², before the rows are copied off the fit's device."""
    rows, p = problem.Z.shape
    if rows * p * p > TEST_BUDGET:
        return None
    envs = [(e.Z.detach().cpu().double().numpy(), e.y.detach().cpu().double().numpy()) for e in problem.envs]
    return slopes_test_of(envs, binary=problem.loss_name == "logistic")


ALGORITHM = WDRL
