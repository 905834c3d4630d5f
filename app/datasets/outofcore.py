"""Linear fits of a stored dataset chunk by chunk (issue 19): three to five passes over the row
groups, each fanned out as chunk tasks (:mod:`app.datasets.fanout`), and solves on p×p moments.

    1. stats    the standardiser (pooled mean and population std of x over the training rows) and
                y's pooled mean and std, as ``Standardizer.fit_tensors`` and the exact path take them
    2. sums     per (environment, fold) sums of z, zzᵀ, zỹ, ỹ, ỹ² (ỹ = y / y_scale): the training
                environments' centred moments (:class:`sal_core.cross_fit.FoldSums`); one fold, or
                for ``lambda_="auto"`` the K cross-fitting folds, each row's decided by its content
                and the job's seed exactly as in memory; where those sums show that no slopes test
                can run, SAL's sums again on ``folds_untested`` folds (``exact_selection.folds_for``)
    3. oof      (``lambda_="auto"`` only) the sums of every λ candidate's out-of-fold squared
                errors (:class:`sal_core.loss_stats.LossStats`), given the K × C fold fits
    4. metrics  the fitted model's MSE, RMSE and MAE on every train and test environment

What is fitted, with sal_core's public functions only:

All of them for a linear model with squared loss (regression):

* ``erm``: the least-squares solve ``sal_core.optim.least_squares`` makes;
* ``ridge``: the same solve with λI added to the Gram matrix (``least_squares(..., ridge=λ)``);
* ``lasso``: the in-memory fit's FISTA iterations on the pooled Gram matrix
  (``sal_core.algorithms.lasso.squared_proximal_fit``, in target units: its threshold is not
  scale-free);
* ``irm`` (IRMv1): the in-memory fit's damped Newton solve on each training environment's
  uncentred moments (``sal_core.algorithms.irm.irm_newton``, in target units), its one round from
  the same moments (``irm_terms``); a solve that runs out of Newton steps is warned about
  (``ConvergenceWarning``), since where it stops then depends on the moments' last digits;
* ``sal`` at a fixed ``lambda_`` on the exact path (``adam_log``): ``sal_core.paths.exact.learn_w``
  (θ-step, R and ∂R/∂w by implicit differentiation, the w step);
* ``wdrl`` at a fixed ``lambda_``: the exact θ-step at w ≡ 1 (``sal_core.paths.exact.fit_fixed_w``);
* ``sal`` and ``wdrl`` at ``lambda_="auto"`` (the default) on the exact path:
  ``exact_selection.select_from_sums`` on the fold sums, with pass 3 as its out-of-fold scoring,
  then the result ``sal_core.paths.exact.fit_auto`` makes of it (history, certificate,
  ``selection``; SAL's with w's evidence).

The coefficients agree with the in-memory fit of the same rows to about 1e-12 relative at a fixed
λ (tests/worker/test_chunked.py checks 1e-8): the sums are the same numbers added in another
order. ERM, Ridge, the Lasso and IRM agree to ~1e-15 (tests/app/test_outofcore.py checks 1e-8).
At ``lambda_="auto"`` the choice is the in-memory one, its scores agree to ~1e-12 and the
coefficients to 1e-8 (tests/app/test_outofcore.py).

A cancel: the rounds see it through ``progress`` as in memory (True stops them, the fit returns
``stopped``); the passes see it through their :data:`PassRunner`, which raises
:class:`fanout.PassStopped` out of :func:`fit_linear` in any pass before the solve. The metrics
pass is built ``stoppable=False``: a model that is there is scored whole and kept.

Which jobs run chunk by chunk, and how many progress steps they count, is decided here for every
model (:func:`supports`, :func:`total_steps`); an MLP's fit, whose Adam steps stream minibatches
from the row groups, is :mod:`app.datasets.outofcore_network` (it reuses :func:`fit_linear`, the
standardiser and the metrics pass from here).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from app.datasets import fanout
from sal_core import cross_fit
from sal_core import exact_selection as es
from sal_core import lambda_selection as ls
from sal_core import robust_linear as rl
from sal_core.algorithms.irm import IRM, irm_newton, irm_terms
from sal_core.algorithms.lasso import ConvergenceWarning, Lasso, squared_proximal_fit
from sal_core.algorithms.ridge import Ridge
from sal_core.algorithms.sal import SAL
from sal_core.algorithms.wdrl import WDRL
from sal_core.cross_fit import FoldSums
from sal_core.data import Standardizer
from sal_core.loss_stats import LossStats
from sal_core.metrics import PairedDifference, paired_rmse_difference
from sal_core.optim import solve_or_min_norm
from sal_core.params import AUTO
from sal_core.paths import exact

__all__ = [
    "ChunkedData",
    "LinearFit",
    "PassRunner",
    "fit_linear",
    "supports",
    "total_steps",
]

Array = np.ndarray
POOLED = ("erm", "ridge", "lasso")
"""Fits of the pooled training rows' moments alone (one round, no w)."""
PassRunner = Callable[[fanout.Pass], fanout.Arrays]
"""Runs one pass over every chunk and returns its reduced sums (:func:`fanout.run_pass` then
:func:`fanout.reduce_parts`, or a plain loop in tests); may raise :class:`fanout.PassStopped` for
a pass whose ``stoppable`` is True."""


def supports(algorithm: str, task: str, model: dict[str, Any] | None, params: dict[str, Any]) -> str | None:
    """None when the job's fit can run chunk by chunk, else why not (it then runs in memory)."""
    if task != "regression":
        return "only regression (squared loss) runs chunk by chunk"
    if model and model.get("kind", "linear") != "linear":
        return _network_supports(algorithm, params)
    if algorithm in (*POOLED, "irm"):
        return None
    if algorithm not in ("sal", "wdrl"):
        return f"{algorithm} does not run chunk by chunk (erm, ridge, lasso, irm, sal and wdrl do)"
    if params.get("gradient", AUTO) == "paper" or params.get("adversary", AUTO) == "gradient":
        return f"only {algorithm.upper()}'s exact path runs chunk by chunk"
    if params.get("w_update", AUTO) not in (AUTO, "adam_log"):
        return "only the exact path's adam_log w update runs chunk by chunk"
    return None


def _network_supports(algorithm: str, params: dict[str, Any]) -> str | None:
    """MLPs: ERM, and SAL under the linear path's w (the ``seeded`` path), at ``lambda_="auto"``
    or a given λ."""
    if algorithm == "erm":
        return None
    if algorithm != "sal":
        return "of the MLP fits only ERM's and SAL's run chunk by chunk"
    if params.get("gradient", AUTO) != AUTO or params.get("w_source", AUTO) == "network":
        return "only SAL's MLP fit under the linear path's w (w_source='linear') runs chunk by chunk"
    return supports("sal", "regression", None, _seeder_params(params))


def _seeder_params(params: dict[str, Any]) -> dict[str, Any]:
    """The linear fit that learns an MLP's w (``LearnedW.seeder_params``: λ, the gradient, the
    adversary and w's source back to 'auto')."""
    return {**params, "lambda_": AUTO, "gradient": AUTO, "adversary": AUTO, "w_source": AUTO}


def total_steps(algorithm: str, params: dict[str, Any], model: dict[str, Any] | None = None) -> int:
    """Progress steps of the fit, as the in-memory fit counts them: SAL's rounds (twice at
    ``lambda_="auto"``: the batched selection, then the refit), WDRL's, IRM's (of which its
    Newton solve reports the first), or one; an MLP's SAL, its linear w-seeder's then its ticks."""
    if model and model.get("kind", "linear") != "linear":
        return SAL(params, model=model).total_steps() if algorithm == "sal" else 1
    if algorithm == "irm":  # Newton reports one round of these
        return IRM(params).total_steps()
    if algorithm not in ("sal", "wdrl"):
        return 1
    return _robust(algorithm, params, 0).total_steps()


def _robust(algorithm: str, params: dict[str, Any], seed: int) -> WDRL:
    """The SAL or WDRL whose exact path the chunked fit runs (its plan, schedule and progress)."""
    return (SAL if algorithm == "sal" else WDRL)(params, seed=seed)


@dataclass(frozen=True)
class ChunkedData:
    environments: tuple[str, ...]  # every environment of the dataset, in its stored order
    feature_names: tuple[str, ...]
    train: tuple[str, ...]
    test: tuple[str, ...]


@dataclass
class LinearFit:
    """What the job's result needs: coefficients in original units, w, rounds, certificate."""

    standardizer: Standardizer
    theta: Array  # (p,) on standardised covariates, target units
    bias: float
    coef: Array  # (p,) original units
    intercept: float
    w: Array | None
    rounds: list[dict[str, Any]]  # {round, risk, env_losses, w} as sal_core.history.Round takes them
    certificate: tuple[float, float] | None  # (rho_hat, worst_case_risk)
    metrics: dict[str, dict[str, float]]  # per environment: mse, rmse, mae
    stopped: bool = False
    selection: ls.FitSelection | None = None  # lambda_="auto": what was tried, kept and why
    passes: dict[str, float] = field(default_factory=dict)  # seconds per pass
    # the fit against ERM from the same moments, both scored on the test rows in one metrics pass
    reference: PairedDifference | None = None


def _merged_stats(stats: fanout.Arrays, train: Sequence[int]) -> fanout.Arrays:
    """The stats pass's per-environment stats merged over the training environments (one row)."""
    pooled = {k: v[train[0] : train[0] + 1] for k, v in stats.items()}
    for e in train[1:]:
        pooled = fanout.merge_stats(pooled, {k: v[e : e + 1] for k, v in stats.items()})
    return pooled


def _standardiser(stats: fanout.Arrays, train: Sequence[int]) -> tuple[Standardizer, float, float]:
    pooled = _merged_stats(stats, train)
    n = float(pooled["n"][0])
    scale = np.sqrt(pooled["m2x"][0] / n)
    scale = np.where(scale > 1e-12, scale, 1.0)
    y_std = math.sqrt(float(pooled["m2y"][0]) / (n - 1)) if n > 1 else 0.0  # torch's std: unbiased
    return (
        Standardizer(mean=pooled["mx"][0], scale=scale),
        float(pooled["my"][0]),
        y_std if y_std > 0 else 1.0,
    )


def key_scale(stats: fanout.Arrays, train: Sequence[int], standardizer: Standardizer) -> cross_fit.KeyScale:
    """The scale the rows' content keys read values on (:class:`sal_core.cross_fit.KeyScale`), from
    the stats pass: the standardiser's, and the target's pooled mean and population standard
    deviation, as a fit in memory takes them, so both draw the same folds."""
    pooled = _merged_stats(stats, train)
    n = float(pooled["n"][0])
    sd = math.sqrt(float(pooled["m2y"][0]) / n) if n > 0 else 0.0
    return cross_fit.KeyScale(
        standardizer.mean, standardizer.scale, float(pooled["my"][0]), sd if sd > 1e-12 else 1.0
    )


def key_params(keys: cross_fit.KeyScale) -> dict[str, float]:
    """A pass's inputs for :func:`fanout.key_scale_of`: the target's part of ``keys`` (the
    covariates' travel as the standardiser's ``mean`` and ``scale``)."""
    return {"key_y_mean": keys.y_mean, "key_y_scale": keys.y_scale}


def fit_linear(
    data: ChunkedData,
    algorithm: str,
    params: dict[str, Any],
    run_pass: PassRunner,
    *,
    seed: int = 0,
    progress: Callable[[int, dict[str, Any]], bool] | None = None,
    clock: Callable[[], float] | None = None,
    score: bool = True,
) -> LinearFit:
    """ERM, Ridge, the Lasso, IRM, or SAL and WDRL at a fixed λ or at ``lambda_="auto"`` (folds
    decided with ``seed``, the job's), from the passes above; ``progress(round, metrics)`` True
    stops the rounds; a stopped pass (``fanout.PassStopped``) ends the fit before its solve.
    ``score=False`` skips the metrics pass (``metrics`` empty): an MLP's w-seeder."""
    import time

    tick = clock or time.perf_counter
    index = {name: i for i, name in enumerate(data.environments)}
    train = [index[n] for n in data.train]
    timings: dict[str, float] = {}

    def timed(what: fanout.Pass) -> fanout.Arrays:
        start = tick()
        out = run_pass(what)
        timings[what.name] = timings.get(what.name, 0.0) + tick() - start
        return out

    stats = timed(fanout.Pass("stats", {}))
    standardizer, _, y_scale = _standardiser(stats, train)
    scaling = {"mean": standardizer.mean.tolist(), "scale": standardizer.scale.tolist(), "y_scale": y_scale}
    scaling |= key_params(key_scale(stats, train, standardizer))
    auto = algorithm in ("sal", "wdrl") and params.get("lambda_", AUTO) == AUTO
    plan = _robust(algorithm, params, seed).exact_plan() if auto else None
    repeats = es.splits_for(plan, len(data.feature_names)) if plan is not None else 1
    folds = {"folds": plan.folds, "repeats": repeats, "seed": seed} if plan is not None else {}
    # K columns per split of repeated cross-fitting; one split gives every row once
    split_sums = _rows_of(fanout.fold_sums_of(timed(fanout.Pass("sums", scaling | folds))), train).splits(
        repeats
    )
    if plan is not None and (k := es.folds_for(plan, split_sums[0])) != plan.folds:
        folds |= {"folds": k}  # no slopes test can run: the sums again on more folds, as in memory
        refolded = fanout.fold_sums_of(timed(fanout.Pass("refold", scaling | folds)))
        split_sums = _rows_of(refolded, train).splits(repeats)
    sums = split_sums[0]
    moments, z_bar, y_bar = sums.part(np.ones(sums.n_folds, dtype=bool))
    names = data.train
    selection = None

    if algorithm in POOLED:
        theta, bias, rounds = _pooled(
            algorithm, params, moments, z_bar, y_bar, y_scale, sums.n.sum(1), names, progress
        )
        w, cert, stopped = None, None, False
    elif algorithm == "irm":
        theta, bias, rounds, stopped = _irm(params, sums, moments, z_bar, y_bar, y_scale, names, progress)
        w, cert = None, None
    elif auto:

        def loss_stats(fits: es.FoldFits) -> LossStats:
            given = {"train": train, "theta": fits.theta.tolist(), "z_bar": fits.z_bar.tolist()}
            return LossStats(
                **timed(fanout.Pass("oof", scaling | folds | given | {"y_bar": fits.y_bar.tolist()}))
            )

        theta, bias, w, rounds, cert, stopped, selection = _exact_auto(
            split_sums, y_bar, y_scale, _robust(algorithm, params, seed), names, loss_stats, progress
        )
    elif algorithm == "wdrl":
        theta, bias, w, rounds, cert, stopped = _wdrl_at(
            moments, z_bar, y_bar, y_scale, params, names, progress
        )
    elif algorithm == "sal":
        theta, bias, w, rounds, cert, stopped = _sal_rounds(
            moments, z_bar, y_bar, y_scale, int(sums.n.sum()), params, names, progress
        )
    else:
        raise ValueError(f"{algorithm} does not run chunk by chunk")

    coef, intercept = standardizer.coefficients_to_original(theta, bias)
    if not score:
        return LinearFit(
            standardizer, theta, bias, coef, intercept, w, rounds, cert, {}, stopped, selection, timings
        )
    # a model is there (rounds stopped by a cancel keep theirs, as in memory): it is scored whole,
    # and, beside it on the same rows, ERM from the same moments (the job's reference) where the fit
    # is not ERM itself and there are test environments
    scored: dict[str, Any] = {"coef": coef.tolist(), "intercept": intercept}
    if algorithm != "erm" and data.test and not stopped:
        erm_theta, erm_bias, _ = _pooled(
            "erm", {}, moments, z_bar, y_bar, y_scale, sums.n.sum(1), names, None
        )
        erm_coef, erm_intercept = standardizer.coefficients_to_original(erm_theta, erm_bias)
        scored["reference"] = {"coef": erm_coef.tolist(), "intercept": float(erm_intercept)}
    m = timed(fanout.Pass("metrics", scored, stoppable=False))
    metrics = _env_metrics(m, data, index)
    reference = _reference(m, data, index) if "reference" in scored else None
    return LinearFit(
        standardizer, theta, bias, coef, intercept, w, rounds, cert, metrics, stopped, selection, timings,
        reference,
    )  # fmt: skip


def _reference(m: fanout.Arrays, data: ChunkedData, index: dict[str, int]) -> PairedDifference:
    """The fit against ERM over the test environments (RMSE), from the metrics pass's sums."""
    test = [index[name] for name in data.test]
    return paired_rmse_difference(*(m[k][test] for k in ("n", "sq", "quad", "ref_sq", "ref_quad", "cross")))


def _env_metrics(m: fanout.Arrays, data: ChunkedData, index: dict[str, int]) -> dict[str, dict[str, float]]:
    """mse, rmse and mae of every train and test environment from the metrics pass's sums."""
    metrics = {}
    for name in (*data.train, *data.test):
        e = index[name]
        mse = float(m["sq"][e] / m["n"][e])
        metrics[name] = {"mse": mse, "rmse": math.sqrt(mse), "mae": float(m["abs"][e] / m["n"][e])}
    return metrics


def _pooled(
    algorithm: str,
    params: dict[str, Any],
    moments: rl.Moments,
    z_bar: Array,
    y_bar: float,
    y_scale: float,
    rows: Array,
    names: Sequence[str],
    progress: Callable[[int, dict[str, Any]], bool] | None,
) -> tuple[Array, float, list[dict[str, Any]]]:
    """ERM, Ridge or the Lasso on the pooled training rows' centred moments, as their in-memory
    fits solve them: ERM's least squares, Ridge's (G + λI)θ = c (``sal_core.optim.least_squares``
    with ``ridge=λ``), the Lasso's FISTA iterations (``lasso.squared_proximal_fit``, its ½·MSE + λ‖θ‖₁
    as MSE + 2λ‖θ‖₁). θ (target units), b, and the one round the in-memory fit reports."""
    gram = torch.as_tensor(moments.gram)
    if algorithm == "erm":
        theta_s = solve_or_min_norm(gram, torch.as_tensor(moments.cross), rows=int(rows.sum())).numpy()
        penalty = 0.0
    elif algorithm == "ridge":
        lam = float(Ridge(params).params.lambda_)
        eye = torch.eye(gram.shape[0], dtype=torch.float64)
        theta_s = solve_or_min_norm(
            gram + lam * eye, torch.as_tensor(moments.cross), rows=int(rows.sum())
        ).numpy()
        penalty = lam * float(theta_s @ theta_s) * y_scale**2
    else:  # in target units: the Lasso's threshold is not scale-free
        lasso = Lasso(params).params
        solved, iterations, converged = squared_proximal_fit(
            gram, torch.as_tensor(moments.cross * y_scale), l1=2.0 * lasso.lambda_, max_iter=lasso.max_iter
        )
        if not converged:
            warnings.warn(
                f"proximal gradient stopped after {iterations} iterations before converging; "
                "raise max_iter or the penalty",
                ConvergenceWarning,
                stacklevel=2,
            )
        theta_s = solved.numpy() / y_scale
        penalty = 2.0 * lasso.lambda_ * float(np.abs(solved.numpy()).sum())
    theta = theta_s * y_scale
    bias = y_bar * y_scale - float(z_bar @ theta)
    losses = rl.env_losses(theta_s, moments) * y_scale**2
    pooled = float(np.sum(losses * rows) / rows.sum())
    metrics = {"train_loss": float(losses.mean())}
    if algorithm == "erm":
        risk = pooled
    else:  # the round's risk is the objective (the Lasso's with scikit-learn's ½)
        risk = (pooled + penalty) / (2.0 if algorithm == "lasso" else 1.0)
        metrics["objective"] = risk
    if progress is not None:
        progress(1, metrics)
    return theta, bias, [_round(1, risk, None, losses, names)]


def _irm(
    params: dict[str, Any],
    sums: FoldSums,
    moments: rl.Moments,
    z_bar: Array,
    y_bar: float,
    y_scale: float,
    names: Sequence[str],
    progress: Callable[[int, dict[str, Any]], bool] | None,
) -> tuple[Array, float, list[dict[str, Any]], bool]:
    """IRMv1 (linear, squared loss) as ``sal_core.algorithms.irm.linear_irm_newton`` fits it in
    memory: damped Newton (``irm_newton``) on each training environment's uncentred moments
    G_e = E[z̃z̃ᵀ], c_e = E[z̃y], E[y²] of z̃ = [z, 1], in target units (the penalty is not
    scale-free), from the pooled least-squares fit; then the one round the in-memory fit reports
    (risks and penalties per environment, ``irm_terms``). θ (target units), b, rounds, stopped."""
    irm = IRM(params).params
    n = sums.n.sum(1)  # (E,)
    sz, szz = sums.z.sum(1), sums.zz.sum(1)
    e, p = sz.shape
    gram = np.empty((e, p + 1, p + 1))
    gram[:, :p, :p], gram[:, :p, p], gram[:, p, :p], gram[:, p, p] = szz, sz, sz, n
    cross = np.concatenate([sums.zy.sum(1), sums.y.sum(1)[:, None]], axis=1) * y_scale
    yy = sums.yy.sum(1) * y_scale**2
    g, c, y2 = (torch.as_tensor(a / n.reshape(-1, *[1] * (a.ndim - 1))) for a in (gram, cross, yy))
    theta_ls = solve_or_min_norm(
        torch.as_tensor(moments.gram), torch.as_tensor(moments.cross), rows=int(n.sum())
    )
    theta_ls = theta_ls * y_scale
    start = torch.cat([theta_ls, (y_bar * y_scale - torch.as_tensor(z_bar) @ theta_ls).reshape(1)])
    t, converged = irm_newton(g, c, y2, start, irm.penalty_weight, anneal=irm.anneal_steps > 0)
    if not converged:  # the in-memory fit stops there too, silently; its iterate may differ
        warnings.warn(
            "IRM's Newton solve stopped before its gradient tolerance; the chunked and in-memory fits "
            "may then differ beyond rounding (try anneal_steps > 0, or a smaller penalty_weight)",
            ConvergenceWarning,
            stacklevel=2,
        )
    risks, penalties = irm_terms(t, g, c, y2)
    value = float((risks + irm.penalty_weight * penalties).mean())
    penalty = float(penalties.mean())
    rounds = [_round(1, value, None, risks.numpy(), names) | {"penalty": penalty}]
    metrics = {"train_loss": float(risks.mean()), "penalty": penalty, "objective": value}
    stopped = _asks_stop(progress, 1, metrics)
    return t[:-1].numpy(), float(t[-1]), rounds, stopped


def _rows_of(sums: FoldSums, envs: Sequence[int]) -> FoldSums:
    """The sums of the listed environments, in that order."""
    return FoldSums(
        n=sums.n[envs], z=sums.z[envs], y=sums.y[envs], zz=sums.zz[envs], zy=sums.zy[envs], yy=sums.yy[envs]
    )


def _exact_auto(
    split_sums: Sequence[FoldSums],
    y_bar: float,
    y_scale: float,
    sal: WDRL,
    names: Sequence[str],
    loss_stats: es.LossStatsOf,
    progress: Callable[[int, dict[str, Any]], bool] | None,
) -> tuple[Array, float, Array, list[dict[str, Any]], tuple[float, float], bool, ls.FitSelection | None]:
    """SAL or WDRL at ``lambda_="auto"`` as ``sal_core.paths.exact.fit_auto`` makes it of the same
    selection: the refit's rounds (or, stopped while choosing, the watched path's; WDRL, whose w is
    fixed, one round: the θ-step), its θ, w and certificate."""
    shown: list[dict[str, Any]] = []

    def on_round(t: int, risk: float, losses: Array, w: Array) -> bool:
        shown.append(_round(t, risk * y_scale**2, w, losses * y_scale**2, names))
        return progress is not None and bool(progress(t, {"risk": risk * y_scale**2, "w": w.tolist()}))

    outcome = es.select_from_sums(split_sums, sal.exact_plan(), on_round, loss_stats, names)
    step = outcome.step
    if outcome.stopped:
        history = shown
    elif step.risks.shape[0] == 0:  # w fixed: one round, the θ-step
        full = split_sums[0].part(np.ones(split_sums[0].n_folds, dtype=bool))[0]
        losses = rl.env_losses(step.theta[0], full)
        history = [_round(1, float(losses.mean()) * y_scale**2, None, losses * y_scale**2, names)]
    else:
        history = [
            _round(
                t + 1, step.risks[t, 0] * y_scale**2, step.ws[t, 0], step.env_losses[t, 0] * y_scale**2, names
            )
            for t in range(step.risks.shape[0])
        ]
    # a selection with no w-path (no rounds to report) is one progress step, where a stop is seen
    chose = not outcome.stopped and sal.steps_per_fit() == 1 and _asks_stop(progress, 1, {})
    stopped = outcome.stopped or chose or _asks_stop(progress, 2 * sal.steps_per_fit(), _shown(history))
    cert = outcome.certificate
    theta = outcome.theta * y_scale
    bias = y_bar * y_scale - float(outcome.z_bar @ theta)
    certificate = (cert.rho_hat, cert.worst_case_risk * y_scale**2)
    return theta, bias, outcome.w, history, certificate, stopped, outcome.fit_selection()


def _round(index: int, risk: float, w: Array | None, losses: Array, names: Sequence[str]) -> dict[str, Any]:
    return {
        "round": index,
        "risk": float(risk),
        "env_losses": {n: float(v) for n, v in zip(names, losses, strict=True)},
        "w": None if w is None else [float(v) for v in w],
    }


def _asks_stop(
    progress: Callable[[int, dict[str, Any]], bool] | None, step: int, metrics: dict[str, Any]
) -> bool:
    return progress is not None and bool(progress(step, metrics))


def _shown(history: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The last round's risk and w (where w is learned), as the in-memory fit reports its end."""
    if not history:
        return {}
    last = history[-1]
    return {"risk": last["risk"], **({"w": last["w"]} if last["w"] is not None else {})}


def _wdrl_at(
    moments: rl.Moments,
    z_bar: Array,
    y_bar: float,
    y_scale: float,
    raw: dict[str, Any],
    names: Sequence[str],
    progress: Callable[[int, dict[str, Any]], bool] | None,
) -> tuple[Array, float, Array, list[dict[str, Any]], tuple[float, float], bool]:
    """WDRL at a fixed λ: the exact θ-step at w ≡ 1, as ``sal_core.paths.exact.fit_fixed_w``."""
    lam = float(WDRL(raw).params.lambda_)  # type: ignore[arg-type]
    w = np.ones(moments.cross.shape[0])
    step = rl.solve_theta(moments, w, lam)
    risk, _, losses = rl.risk_and_grad_theta(step.theta, moments, 0.0, "std")
    history = [_round(1, risk * y_scale**2, None, losses * y_scale**2, names)]
    stopped = progress is not None and bool(progress(1, {"risk": risk * y_scale**2}))
    cert = rl.certificate(step, lam)
    theta = step.theta * y_scale
    bias = y_bar * y_scale - float(z_bar @ theta)
    return theta, bias, w, history, (cert.rho_hat, cert.worst_case_risk * y_scale**2), stopped


def _sal_rounds(
    moments: rl.Moments,
    z_bar: Array,
    y_bar: float,
    y_scale: float,
    n_rows: int,
    raw: dict[str, Any],
    names: Sequence[str],
    progress: Callable[[int, dict[str, Any]], bool] | None,
) -> tuple[Array, float, Array, list[dict[str, Any]], tuple[float, float], bool]:
    """SAL's exact rounds at a fixed λ, by ``sal_core.paths.exact.learn_w``."""
    sal = SAL(raw)
    lam = float(sal.params.lambda_)  # type: ignore[arg-type]

    def on_round(t: int, risk: float, w: Array) -> bool:
        return progress is not None and progress(t, {"risk": risk * y_scale**2, "w": w.tolist()})

    path = exact.learn_w(moments, lam, n_rows, sal.w_step(), on_round)
    history = [_round(t, r * y_scale**2, w_t, loss * y_scale**2, names) for t, r, w_t, loss in path.rounds]
    step, w, stopped = path.step, path.w, path.stopped
    cert = rl.certificate(step, lam)
    theta = step.theta * y_scale
    bias = y_bar * y_scale - float(z_bar @ theta)
    return theta, bias, w, history, (cert.rho_hat, cert.worst_case_risk * y_scale**2), stopped


def as_tensor(a: Array) -> torch.Tensor:
    return torch.as_tensor(np.asarray(a, dtype=np.float64))
