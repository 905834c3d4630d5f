"""``lambda_="auto"`` on the exact path (linear model, squared loss), for SAL and WDRL.

One pass over the rows gives the raw sums of every (environment, fold) cell
(:func:`sal_core.cross_fit.fold_sums`). Every λ candidate is then fitted on every "all folds but
k" part from those sums alone: SAL's w-paths all run side by side in one batch
(:mod:`sal_core.exact_batch`), WDRL's and ERM's θ-steps are one stacked solve. Each row is scored by
the fit that did not see it (cross-fitting), so every training row counts as validation, and the
rule of :mod:`sal_core.lambda_selection` picks λ with the standard errors of those scores.

**The model returned.** Where w is learned (SAL) the chosen candidate's θ is the mean of its K fold
fits (bagging): the very fits whose out-of-fold scores chose it, so the score it was chosen on
describes it (for squared loss, by Jensen, the mean's error on any row is at most the fold fits'
mean error there), and the mean damps how far a w-path on one draw of rows can wander along its
plateaus (docs/sal.md, "Bagged fold fits"). The chosen candidate is still refitted on all rows:
its w is the w reported, its rounds the training curve, and its ball the one the returned θ is
certified on (:func:`sal_core.robust_linear.certificate_at_radius`). The K fold fits also say how
far w moves when the rows change (``w_low`` / ``w_high``). ERM and fixed-w (WDRL) candidates are
refitted on all rows and returned as they are.

**Repeated cross-fitting.** Which rows a fold holds out is one draw, and on a real table another
draw can move the choice (docs/sal.md, "Every row rerun: what moves with the host"). Below
:data:`REPEAT_BELOW_P` covariates the K folds are drawn :data:`AUTO_REPEATS` times (each split a
hash of the rows' content with its own seed, :func:`sal_core.cross_fit.split_seed`): every candidate
is fitted on every fold of every split, each row's out-of-fold loss is its mean over the splits,
and the scores, standard errors and the rule read those means. The model returned is then the mean
of all K × splits fold fits of the chosen candidate.

The rows are read twice and only ever summed: once for the (environment, fold) sums, once for the
sums of the candidates' out-of-fold losses (:class:`sal_core.loss_stats.LossStats`), given the
K × C fold fits (:class:`FoldFits`). :func:`select` does both from a Problem in memory;
:func:`select_from_sums` takes the sums and the second pass as arguments, so a table read chunk
by chunk (app.datasets.outofcore) gets the same choice.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from numpy.typing import NDArray

from sal_core import cross_fit
from sal_core import exact_batch as eb
from sal_core import lambda_selection as ls
from sal_core import loss_stats as lstats
from sal_core import robust_linear as rl
from sal_core.exceptions import InvalidDataError
from sal_core.homogeneity import (
    SlopesTest,
    cap_where_alike,
    decided_here,
    erm_first_here,
    erm_kept_here,
    slopes_test,
)
from sal_core.loss_stats import LossStats
from sal_core.problem import Problem
from sal_core.robust_linear import Moments

Array = NDArray[np.float64]


@dataclass(frozen=True)
class Plan:
    """What the algorithm asks of the selection."""

    relatives: tuple[float, ...]  # the relative λ grid, most robust first, ls.OFF last
    learns_w: bool  # SAL: a w-path per candidate; WDRL: w ≡ 1
    settings: eb.PathSettings  # the w-path (unused when w is fixed)
    z: float
    prefer: ls.Prefer
    folds: int
    anchors: tuple[str, ...] = ("all",)  # w-path variants per λ: "all" (the paper's W), "significant"
    # SAL: the folds cross-fitted where no slopes test can run on the training rows (folds_for); the
    # row-per-fold rules (which environments decide, whether any does) still read ``folds``
    folds_untested: int | None = None
    repeats: int | None = None  # splits of repeated cross-fitting; None: by the covariates (splits_for)
    cost_cap: float | None = None  # SAL: what a robust candidate may cost where the slopes look alike
    erm_first: str = "never"  # SAL: where ERM is kept unless beaten beyond the noise (homogeneity.ERM_FIRST)
    erm_bar: str = "single"  # SAL: what beating ERM there means (lambda_selection.ERM_BARS)
    # SAL: where ERM is kept outright, fit and score the robust candidates anyway (for the record)
    score_all: bool = False
    # where the fit's data lie: the w-paths may run there (exact_batch.run_paths); None: the CPU
    device: torch.device | None = None


@dataclass(frozen=True)
class Outcome:
    selection: ls.Selection
    lambda_: float
    w: Array  # (p,) the refit's w
    step: eb.PathResult  # the refit on all rows (batch of one), rounds recorded when w is learned
    theta: Array  # (p,) the model returned (standardised z, ỹ): the fold fits' mean where w is learned
    certificate: rl.CertificateValues  # of ``theta`` on all rows, on the refit's ball
    final_model: str | None  # what ``theta`` is, where it is not the refit's
    z_bar: Array  # (p,) pooled mean of the standardised covariates
    w_low: Array | None  # (p,) smallest w over the fold fits of the chosen candidate (None: w fixed)
    w_high: Array | None
    determined: NDArray[np.bool_]  # (p,) pooled least-squares |t| ≥ DETERMINED_T: the data say it matters
    folds: int  # fold fits behind w_low / w_high: K per split of repeated cross-fitting
    stopped: bool

    def fit_selection(self) -> ls.FitSelection | None:
        """What the fit reports of its choices (None for a selection stopped before it chose)."""
        if self.stopped:
            return None
        return ls.FitSelection(
            self.selection, covariate_weights=self.w_evidence(), final_model=self.final_model
        )

    def w_evidence(self) -> ls.WEvidence | None:
        """How sure w is: its range over the fold fits of the chosen λ, and which covariates the data
        do not decide (y does not depend on them, so any w fits alike). None where w is fixed."""
        if self.w_low is None or self.w_high is None:
            return None
        return ls.WEvidence(
            low=tuple(float(v) for v in self.w_low),
            high=tuple(float(v) for v in self.w_high),
            determined=tuple(bool(v) for v in self.determined),
            note=f"low/high: the smallest and largest w over the {self.folds} fold fits of the chosen λ "
            "(each without one fold of the rows); determined = false where the pooled least-squares "
            "coefficient has |t| < 2: y does not depend on that covariate, so its w is not evidence of "
            "stability",
        )


OnRound = Callable[[int, float, Array, Array], bool]
"""Called after each round of the batched selection with (round, R, environment losses (E,), w (p,))
of the most robust candidate's first fold path, the one a watcher is shown; True stops the fit."""


def _batch(parts: list[Moments], repeat: int, rows: int) -> eb.BatchMoments:
    """Stack the fold moments, each fold repeated for ``repeat`` candidates (candidate-major);
    ``rows``: the most rows behind any of them."""
    order = [parts[k] for _ in range(repeat) for k in range(len(parts))]
    return eb.BatchMoments(
        gram=np.stack([m.gram for m in order]),
        cross=np.stack([m.cross for m in order]),
        yy=np.array([m.yy for m in order]),
        env_gram=np.stack([m.env_gram for m in order]),
        env_cross=np.stack([m.env_cross for m in order]),
        env_yy=np.stack([m.env_yy for m in order]),
        rows=rows,
    )


def _one(m: Moments, rows: int) -> eb.BatchMoments:
    return _batch([m], 1, rows)


def _concat(a: eb.BatchMoments, b: eb.BatchMoments) -> eb.BatchMoments:
    names = [f.name for f in dataclasses.fields(a) if f.name != "rows"]
    stacked = {n: np.concatenate([getattr(a, n), getattr(b, n)]) for n in names}
    return eb.BatchMoments(**stacked, rows=max(a.rows, b.rows))


def _take(result: eb.PathResult, i: int) -> eb.PathResult:
    """Path i of a batch, as a batch of one (with its recorded rounds)."""
    one = slice(i, i + 1)
    return eb.PathResult(
        w=result.w[one], theta=result.theta[one], mu=result.mu[one], mse=result.mse[one],
        kappa=result.kappa[one], risks=result.risks[:, one], env_losses=result.env_losses[:, one],
        ws=result.ws[:, one], stopped=result.stopped,
    )  # fmt: skip


REFIT_IN_BATCH_BELOW_P = 32
"""Below this many covariates a round of the numpy path costs mostly per call, not per path, so 48
paths cost about what 40 do and the refits join the selection's batch instead of running 400 more
rounds afterwards; above it the extra paths would cost more than one separate refit. The compiled
path (:func:`sal_core.exact_batch.runs_compiled`) costs per path: there the one refit runs after
(the paper setting 0.104 → 0.094 s, p = 24 0.35 → 0.30 s; the same w and θ)."""


def noise_variance(m: Moments, n_rows: int) -> float:
    """The grid's unit: the noise variance σ̂² of the standardised problem, from pooled least
    squares on its residual degrees of freedom (`robust_linear.least_squares`). The training MSE
    itself, the unit before, is 0 where the covariates are as many as the rows, and collapsed every
    λ to 10⁻¹² there (SAL twice ERM's test error at n = 70, p = 80)."""
    return max(rl.least_squares(m, n_rows).noise, 1e-12)


def fixed_w_step(m: eb.BatchMoments, lam: Array) -> eb.PathResult:
    """The exact θ-step at w ≡ 1 for every problem of the batch (no w-path)."""
    p = m.cross.shape[1]
    w = np.ones((m.size, p))
    step = eb.solve_theta(m, w, lam)
    return _fixed(w, step.theta, step.mu, step.mse, step.kappa, m.env_yy.shape[1])


def erm_step(moments: Sequence[Moments], rows: Sequence[int]) -> eb.PathResult:
    """ERM on each problem: minimum-norm least squares (the ERM algorithm's fit), so that the
    adversary switched off is ERM exactly, also where a fold has fewer rows than covariates (a
    ridge step at a huge λ is a tiny ridge there, and its θ is rounding)."""
    fits = [rl.least_squares(m, n) for m, n in zip(moments, rows, strict=True)]
    theta = np.stack([f.theta for f in fits])
    fit_mse = np.array([f.mse for f in fits])
    w = np.ones_like(theta)
    n_env = moments[0].env_yy.shape[0]
    return _fixed(w, theta, np.zeros(len(fits)), fit_mse, (theta * theta).sum(1), n_env)


def _fixed(w: Array, theta: Array, mu: Array, fit_mse: Array, kappa: Array, n_env: int) -> eb.PathResult:
    """A batch of θ-steps at a fixed w, as a path result without rounds."""
    size, p = theta.shape
    empty = np.zeros((0, size))
    return eb.PathResult(
        w=w, theta=theta, mu=mu, mse=fit_mse, kappa=kappa,
        risks=empty, env_losses=np.zeros((0, size, n_env)), ws=np.zeros((0, size, p)),
    )  # fmt: skip


@dataclass(frozen=True)
class FoldFits:
    """The candidates' fits on each fold's complement: what scoring them out of fold needs.

    A row of fold k with standardised covariates z and target ỹ = y / y_scale has, under candidate
    c, the out-of-fold loss ``((ỹ − y_bar[k] − (z − z_bar[k]) · theta[c, k]) · y_scale)²``: a fit's
    intercept puts its own part's pooled means on the line (its rows are centred on them)."""

    theta: Array  # (C, K, p) on standardised covariates and ỹ
    z_bar: Array  # (K, p) pooled mean of z over every fold but k
    y_bar: Array  # (K,) pooled mean of ỹ over every fold but k

    def per_split(self, repeats: int) -> list[FoldFits]:
        """The fits of each split of repeated cross-fitting (their K·repeats folds split-major)."""
        k = self.theta.shape[1] // repeats
        return [
            FoldFits(
                self.theta[:, j * k : (j + 1) * k],
                self.z_bar[j * k : (j + 1) * k],
                self.y_bar[j * k : (j + 1) * k],
            )
            for j in range(repeats)
        ]


LossStatsOf = Callable[[FoldFits], LossStats]
"""Given the fold fits, the sums of every candidate's out-of-fold losses over every training
environment's rows (:class:`sal_core.loss_stats.LossStats`, environments in the order of the sums):
from the rows in memory (:func:`select`), or from a pass over a table's chunks."""


def oof_losses(Z: Array, y_tilde: Array, folds: NDArray[np.int64], fits: FoldFits, y_scale: float) -> Array:
    """Out-of-fold squared error (target units) of each row under each candidate (n, C).

    ``Z`` (n, p) standardised covariates, ``y_tilde`` (n,) targets / y_scale, ``folds`` (n,) in
    [0, K). Rows of any environment (one chunk's, or one environment's in memory)."""
    out = np.empty((Z.shape[0], fits.theta.shape[0]))
    for k in range(fits.theta.shape[1]):
        rows = folds == k
        resid = (y_tilde[rows] - fits.y_bar[k])[:, None] - (Z[rows] - fits.z_bar[k]) @ fits.theta[:, k].T
        out[rows] = (resid * y_scale) ** 2
    return out


def mean_oof_losses(
    Z: Array, y_tilde: Array, split_folds: Sequence[NDArray[np.int64]], fits: FoldFits, y_scale: float
) -> Array:
    """Each row's out-of-fold squared error under each candidate (n, C), its mean over the splits of
    repeated cross-fitting: ``split_folds`` holds the rows' folds under each split, ``fits`` the
    K fold fits of every split, split-major (:meth:`FoldFits.per_split`)."""
    per_split = fits.per_split(len(split_folds))
    total = sum(
        oof_losses(Z, y_tilde, folds, one, y_scale) for folds, one in zip(split_folds, per_split, strict=True)
    )
    return np.asarray(total) / len(split_folds)


AUTO_REPEATS = 3
"""Splits of repeated cross-fitting where ``repeats="auto"`` repeats (below :data:`REPEAT_BELOW_P`
covariates); chosen on every real regression table of the scoreboard (docs/sal.md, "Repeated
cross-fitting")."""
REPEAT_BELOW_P = 32
"""``repeats="auto"`` repeats the split below this many covariates. A split's w-paths cost like p³ per
round, so from here on one split is kept (docs/sal.md, "Repeated cross-fitting", gives the times)."""


def splits_for(plan: Plan, n_features: int) -> int:
    """How many splits of repeated cross-fitting the selection runs at ``n_features`` covariates."""
    if plan.repeats is not None:
        return plan.repeats
    return AUTO_REPEATS if n_features < REPEAT_BELOW_P else 1


def select(problem: Problem, y_scale: float, plan: Plan, on_round: OnRound) -> Outcome:
    """Fit every candidate on every fold, score out of fold, choose, refit on all rows (rows in memory)."""
    repeats = splits_for(plan, int(problem.Z.shape[1]))

    def split_sums(k: int) -> tuple[list[torch.Tensor], list[cross_fit.FoldSums]]:
        splits = [ls.row_folds(problem, k, split) for split in range(repeats)]
        sums = [
            cross_fit.fold_sums(problem.Z, problem.y / y_scale, problem.env_index, folds, problem.n_envs, k)
            for folds in splits
        ]
        return splits, sums

    splits, sums = split_sums(plan.folds)
    k = folds_for(plan, sums[0])
    if k != plan.folds:
        splits, sums = split_sums(k)
    names = [e.name for e in problem.envs]
    return select_from_sums(sums, plan, on_round, _stats_in_memory(problem, y_scale, splits), names)


def folds_for(plan: Plan, sums: cross_fit.FoldSums) -> int:
    """The folds the selection cross-fits on, given the training rows' sums on ``plan.folds`` folds:
    ``plan.folds_untested`` where no slopes test can run on those rows (so few rows per covariate
    that Chow's F has no degrees of freedom), else ``plan.folds``.

    Where rows are that few, a fit on 4/5 of them is much worse than the fit on all of them, and
    worse the fewer the rows: out of fold, ERM's error was 4 times its test error on two real
    tables, and the robust candidates, which shrink, looked better than they are. Fits on 9/10 of
    the rows read nearer what is returned (docs/sal.md, "More folds where no slopes test runs").
    The test reads every fold's rows, so the answer does not depend on the folds the sums hold."""
    if plan.folds_untested is None or plan.folds_untested == plan.folds or _slopes_test(sums) is not None:
        return plan.folds
    return plan.folds_untested


def _stats_in_memory(problem: Problem, y_scale: float, splits: Sequence[torch.Tensor]) -> LossStatsOf:
    """Each row's out-of-fold loss per candidate, averaged over the splits (repeated cross-fitting)."""

    def stats_of(fits: FoldFits) -> LossStats:
        losses, start = [], 0
        for env in problem.envs:
            n = int(env.y.shape[0])
            Z, y = env.Z.double().cpu().numpy(), env.y.double().cpu().numpy() / y_scale
            env_folds = [folds[start : start + n].cpu().numpy() for folds in splits]
            start += n
            losses.append(mean_oof_losses(Z, y, env_folds, fits, y_scale))
        return LossStats.of_rows(losses)

    return stats_of


def _check_every_fold_trains_on_every_environment(sums: cross_fit.FoldSums, env_names: Sequence[str]) -> None:
    """A clear error where some fold's fit would have no row of an environment (all its rows in that
    fold). Rows in memory are dealt so that this cannot happen (:func:`ls.row_folds`); chunked
    fits hash each row alone, and an environment of a few rows can land in one fold."""
    k = sums.n_folds
    for e, name in enumerate(env_names):
        if any(sums.n[e, np.arange(k) != j].sum() == 0 for j in range(k)):
            raise InvalidDataError(
                f"training environment {name!r} has {int(sums.n[e].sum())} row(s), all in one of the "
                f"{k} cross-fitting folds of lambda_='auto': give it more rows, merge it with another "
                "environment, or set lambda_ to a number",
                field="environments",
            )


def select_from_sums(
    split_sums: Sequence[cross_fit.FoldSums],
    plan: Plan,
    on_round: OnRound,
    loss_stats: LossStatsOf,
    env_names: Sequence[str],
) -> Outcome:
    """:func:`select` from the (environment, fold) sums of the training rows (the folds
    :func:`folds_for` gives, targets in ỹ = y / y_scale), one per split of repeated cross-fitting,
    and a way to sum the candidates' out-of-fold losses over those rows (each row's mean over the
    splits)."""
    every = list(split_sums)
    k = every[0].n_folds
    rule_folds = plan.folds  # the row-per-fold rules read the plan's folds whatever k is
    sums = every[0]
    for one in every:
        _check_every_fold_trains_on_every_environment(one, env_names)
    full, z_bar, _ = sums.part(np.ones(k, dtype=bool))
    n_features = int(sums.z.shape[-1])
    full_rows = int(sums.n.sum())
    base = noise_variance(full, full_rows)
    parts = [one.part(np.arange(k) != j) for one in every for j in range(k)]
    fold_moments = [m for m, _, _ in parts]
    fold_rows = [int(one.n[:, np.arange(k) != j].sum()) for one in every for j in range(k)]
    n_fits = len(parts)  # K fold fits per split
    lam_of = {r: ls.candidate_lambda(r, base) for r in plan.relatives}
    variants = plan.anchors if plan.learns_w else ("all",)
    fold_anchor = {v: _anchor(fold_moments, fold_rows, v) for v in variants}  # the same for every λ
    variants = distinct_variants(fold_anchor)
    homogeneity = _slopes_test(sums)
    decided = decided_here(plan.erm_first, ls.decided(sums.n.sum(axis=1).tolist(), rule_folds))
    kept = erm_kept_here(plan.erm_first, homogeneity, decided)
    robust = (
        []
        if kept and not plan.score_all
        else [(r, v) for r in plan.relatives if r != ls.OFF for v in variants]
    )

    # 1. every robust candidate on every fold: one batch (candidate-major), then ERM on every fold.
    # Where a round of the numpy path costs little per path (small p, not compiled), each
    # candidate's refit on all rows rides along at the end of the batch, so that step 3 only picks
    # it out (identical to fitting it afterwards). Where the slopes test keeps ERM outright no robust
    # candidate can be chosen, and none is fitted unless the plan asks for the record (score_all).
    refits_in_batch = (
        plan.learns_w and n_features < REFIT_IN_BATCH_BELOW_P and not eb.runs_compiled(n_features)
    )
    lams = [lam_of[r] for r, _ in robust]
    fitted = None
    if robust:
        full_anchor = [_anchor([full], [full_rows], v) for _, v in robust] if refits_in_batch else None
        fitted = _robust_fits(
            plan,
            fold_moments,
            lams,
            [fold_anchor[v] for _, v in robust],
            full,
            full_anchor,
            on_round,
            rows=(max(fold_rows), full_rows),
        )
        if fitted.stopped:
            return _stopped(plan, base, full, full_rows, z_bar)
    erm = erm_step(fold_moments, fold_rows)

    # 2. out-of-fold losses of every candidate, summed per environment; within one λ the
    # better-scoring variant first
    keys_all = [*robust, (ls.OFF, "all")]
    robust_theta = (
        [] if fitted is None else [fitted.theta[i * n_fits : (i + 1) * n_fits] for i in range(len(robust))]
    )
    robust_w = [] if fitted is None else [fitted.w[i * n_fits : (i + 1) * n_fits] for i in range(len(robust))]
    thetas, ws = [*robust_theta, erm.theta], [*robust_w, erm.w]
    fits = FoldFits(
        theta=np.stack(thetas),
        z_bar=np.stack([zb for _, zb, _ in parts]),
        y_bar=np.array([yb for _, _, yb in parts]),
    )
    every_env = loss_stats(fits)
    deciding = ls.deciding_environments(every_env.n.tolist(), rule_folds)
    stats = every_env if len(deciding) == len(env_names) else every_env.take(deciding)
    candidates = []
    for i, ((r, variant), fold_w) in enumerate(zip(keys_all, ws, strict=True)):
        score = lstats.score_of(stats, i, squared=True)[0]
        per_env = lstats.score_of(every_env, i, squared=True)[1]
        candidates.append(
            ls.Candidate(
                None if r == ls.OFF else r,
                lam_of[r],
                score,
                {name: float(v) for name, v in zip(env_names, per_env, strict=True)},
                protection=float(np.log(np.maximum(fold_w, 1.0)).sum(1).mean()),
                variant=VARIANT_NAMES[variant] if plan.learns_w and r != ls.OFF else "",
            )
        )
    # the better-validating variant of each λ stands for it (ls.best_variants says why)
    standing = set(ls.best_variants(candidates))
    order = [i for i in ls.robustness_order(candidates) if i in standing]
    candidates = lstats.with_paired_se([candidates[i] for i in order], stats, order, squared=True)
    cap = cap_where_alike(plan.cost_cap, homogeneity)
    first = erm_first_here(plan.erm_first, homogeneity, decided)
    weighed = first and not kept  # ERM came first and the candidates' evidence against it is read
    beats_erm = (
        lstats.beats_erm(stats, range(len(robust)), len(robust), plan.z, squared=True)
        if weighed and robust and plan.erm_bar == "simultaneous"
        else None
    )
    erm_se = (
        lstats.paired_with_erm(candidates, stats, order) if weighed else None
    )  # read only where ERM came first
    chosen, best, reason = ls.choose(
        candidates,
        plan.z,
        plan.prefer,
        cap,
        first,
        beats_erm=beats_erm,
        homogeneity=homogeneity,
        erm_se=erm_se,
        keep_erm=kept,
        decided=decided,
    )
    selection = ls.Selection(
        criterion="worst_env_out_of_fold_rmse",
        prefer=plan.prefer,
        z=plan.z,
        scoring=f"{k}-fold cross-fitting within each training environment"
        + (
            f" ({k} folds, not {rule_folds}: no slopes test can run on so few rows per covariate)"
            if k != rule_folds
            else ""
        )
        + (
            f", repeated on {len(every)} splits (each row's loss its mean over them)"
            if len(every) > 1
            else ""
        )
        + ls.not_deciding_words(env_names, deciding, rule_folds),
        rows_scored=int(sums.n.sum()),
        base=base,
        candidates=tuple(candidates),
        chosen=chosen,
        best=best,
        reason=reason,
        homogeneity=homogeneity,
        cost_cap=cap,
        erm_first=first,
        beats_erm=beats_erm,
        erm_kept=kept,
        decided=decided,
    )

    # 3. the chosen candidate on all rows
    relative, variant = keys_all[order[chosen]]
    lam_final = lam_of[relative]
    if relative != ls.OFF and plan.learns_w:
        if refits_in_batch:
            assert fitted is not None  # a robust candidate was chosen, so the robust candidates ran
            refit = _take(fitted, len(robust) * n_fits + robust.index((relative, variant)))
        else:
            w0 = np.ones((1, n_features))
            anchor = _anchor([full], [full_rows], variant)
            refit = eb.run_paths(
                _one(full, full_rows),
                np.array([lam_final]),
                w0,
                plan.settings,
                anchor,
                record=True,
                device=plan.device,
            )
        w_folds = ws[order[chosen]]
        w_low, w_high = w_folds.min(0), w_folds.max(0)
        theta, cert = bagged(thetas[order[chosen]], refit, lam_final, full)
        final_model = BAGGED.format(k=n_fits)
    else:
        refit = (
            erm_step([full], [full_rows])
            if relative == ls.OFF
            else fixed_w_step(_one(full, full_rows), np.array([lam_final]))
        )
        w_low = w_high = None
        theta, cert, final_model = (
            refit.theta[0],
            _certificate(refit, lam_final),
            None,
        )
    determined = rl.significant_covariates(full, full_rows, DETERMINED_T)
    return Outcome(
        selection, lam_final, refit.w[0], refit, theta, cert, final_model, z_bar, w_low, w_high, determined, n_fits,
        stopped=False,
    )  # fmt: skip


def _robust_fits(
    plan: Plan,
    fold_moments: list[Moments],
    lams: list[float],
    anchors: list[NDArray[np.bool_]],
    full: Moments,
    full_anchors: list[NDArray[np.bool_]] | None,
    on_round: OnRound,
    *,
    rows: tuple[int, int],
) -> eb.PathResult:
    """Every robust candidate (λ ``lams[i]``, w-path anchor ``anchors[i]``) on every fold's
    complement: one batch, candidate-major. Where ``full_anchors`` is given, each candidate's refit on
    all rows rides along at the end of the batch. With w fixed (WDRL), one stacked θ-step.
    ``rows``: the most rows of a fold's complement, and all rows (:attr:`eb.BatchMoments.rows`)."""
    k = len(fold_moments)
    fold_rows, full_rows = rows
    batch = _batch(fold_moments, len(lams), fold_rows)
    lam = np.repeat(lams, k)
    if not plan.learns_w:
        return fixed_w_step(batch, lam)
    anchor = np.concatenate(anchors)
    if full_anchors is not None:
        batch = _concat(batch, _batch([full], len(lams), full_rows))
        lam = np.concatenate([lam, lams])
        anchor = np.concatenate([anchor, *full_anchors])
    w0 = np.ones((batch.size, batch.cross.shape[1]))
    shown = lambda t, risk, losses, w: on_round(t, float(risk[0]), losses[0], w[0])  # noqa: E731
    return eb.run_paths(
        batch,
        lam,
        w0,
        plan.settings,
        anchor,
        record=full_anchors is not None,
        on_round=shown,
        device=plan.device,
    )


BAGGED = (
    "bagged: the mean of the chosen candidate's {k} fold fits, the fits its out-of-fold score was measured "
    "on; w and the rounds are its refit's on all rows, and the certificate is this θ's on the refit's ball"
)


def bagged(
    fold_thetas: Array, refit: eb.PathResult, lam: float, full: Moments
) -> tuple[Array, rl.CertificateValues]:
    """The mean of a candidate's fold fits (K, p) and its certificate on all rows, over the ball the
    refit's λ certifies in the refit's cost c_w."""
    theta = fold_thetas.mean(0)
    radius = _certificate(refit, lam).rho_hat
    return theta, rl.certificate_at_radius(theta, refit.w[0], full, radius)


def _certificate(result: eb.PathResult, lam: float) -> rl.CertificateValues:
    """Theorem 1's certificate of path 0 of a batch, from the exact θ-step it ended with."""
    mse, kappa = float(result.mse[0]), float(result.kappa[0])
    step = rl.ThetaStep(
        theta=result.theta[0],
        mu=float(result.mu[0]),
        mse=mse,
        kappa=kappa,
        objective=lam * mse / (lam - kappa),
    )
    return rl.certificate(step, lam)


def _slopes_test(sums: cross_fit.FoldSums) -> SlopesTest | None:
    """Chow's test on the training rows (every fold): per-environment sums of the standardised rows."""
    return slopes_test(
        sums.n.sum(1), sums.z.sum(1), sums.y.sum(1), sums.zz.sum(1), sums.zy.sum(1), sums.yy.sum(1)
    )


VARIANT_NAMES = {
    "all": "min w = 1 over all covariates",
    "significant": "min w = 1 over covariates with |t| >= 3",
}


def distinct_variants(fold_anchor: dict[str, NDArray[np.bool_]]) -> tuple[str, ...]:
    """The variants whose w-paths differ, in their order: one whose anchor lets min w = 1 pin the
    same covariates as an earlier one's on every fold (where every covariate has |t| ≥ 3, or none
    has, "significant" is "all") would run the same paths again and tie with it, so it is dropped
    (the earlier one stood for that λ before, too: ties keep the first)."""
    kept: dict[str, NDArray[np.bool_]] = {}
    for variant, mask in fold_anchor.items():
        pinnable = np.where(mask.any(1, keepdims=True), mask, True)  # none pinnable: any may (run_paths)
        if not any(np.array_equal(pinnable, other) for other in kept.values()):
            kept[variant] = pinnable
    return tuple(kept)


def _anchor(moments: list[Moments], rows: list[int], variant: str) -> NDArray[np.bool_]:
    """Per problem (B, p): the covariates min w = 1 may pin: all that vary in its rows, or those with
    pooled |t| ≥ 3 (:func:`sal_core.robust_linear.varying_covariates`: a constant one never moves)."""
    varying = np.stack([rl.varying_covariates(m) for m in moments])
    if variant == "significant":
        return varying & np.stack(
            [rl.significant_covariates(m, n, SIGNIFICANCE) for m, n in zip(moments, rows, strict=True)]
        )
    return varying


SIGNIFICANCE = 3.0
"""|t| of a pooled least-squares coefficient above which a covariate may anchor min w = 1."""
DETERMINED_T = 2.0
"""w_d is reported as determined by the data only where the pooled least-squares coefficient of
covariate d has |t| ≥ 2: where y does not depend on it at all, every w fits the data alike, and a w
at the cap there says nothing about stability (issue 18: V2, V3, V5 sat at the cap beside the S's)."""


def _stopped(plan: Plan, base: float, full: Moments, full_rows: int, z_bar: Array) -> Outcome:
    """A cancelled selection: the fit ends with ERM, flagged as stopped."""
    refit = erm_step([full], [full_rows])
    cert = _certificate(refit, ls.OFF_LAMBDA)
    erm = ls.Candidate(None, ls.OFF_LAMBDA, float("nan"), {})
    selection = ls.Selection(
        "worst_env_out_of_fold_rmse", plan.prefer, plan.z, "stopped", 0, base, (erm,), 0, 0,
        "stopped before the candidates were scored",
    )  # fmt: skip
    determined = np.zeros(full.cross.shape[0], dtype=bool)
    return Outcome(
        selection, ls.OFF_LAMBDA, refit.w[0], refit, refit.theta[0], cert, None, z_bar, None, None, determined,
        plan.folds, stopped=True,
    )  # fmt: skip
