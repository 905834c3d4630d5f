"""Linear fits of a stored dataset chunk by chunk (issue 19): three or four passes over the row
groups, each fanned out as chunk tasks (:mod:`app.datasets.fanout`), and solves on p×p moments.

    1. stats    the standardiser (pooled mean and population std of x over the training rows) and
                y's pooled mean and std, as ``Standardizer.fit_tensors`` and the exact path take them
    2. sums     per (environment, fold) sums of z, zzᵀ, zỹ, ỹ, ỹ² (ỹ = y / y_scale): the training
                environments' centred moments (:class:`sal_core.cross_fit.FoldSums`); one fold, or
                for ``lambda_="auto"`` the K cross-fitting folds, each row's decided by its content
                and the job's seed exactly as in memory
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

MLPs (regression; :func:`fit_network`) are not moment fits: their Adam steps take minibatches
streamed from the row groups (:class:`sal_core.minibatches.ShuffledChunks`, ``CHUNKS_AT_ONCE``
row groups held at a time, drawn from the job's seed), in the job's worker; the stats and metrics
passes fan out as above. What runs so:

* ``erm``: ERM's Adam steps (its ``steps`` and ``lr``) on the plain loss, each on one minibatch
  (in memory: full batch);
* ``sal`` under the linear path's w (``w_source="auto"``/``"linear"``): w from the linear fit
  SAL's ``w_seeder`` makes (:func:`fit_linear` at ``lambda_="auto"``, equal to the in-memory
  seeder's to ~1e-15), then the seeded path's network fit at that w (``sal_core.paths.deep``'s
  schedule, ``sal_core.deep_sal`` with ``batches``): at a fixed ``lambda_`` one fit; at
  ``lambda_="auto"`` the in-memory held-out choice (:func:`_seeded_auto`: fold 0 held out, a
  streamed network per candidate, their held-out losses as :class:`LossStats` sums, the refit).

Not bit for bit the in-memory fit (other minibatches; a streamed row's adversary starts from 0 at
each visit): on tests/app/test_outofcore_network.py's table the streamed fit's test RMSE is
0.93-1.05 of the in-memory SAL's and 1.01-1.08 of the in-memory ERM's (seeds 0 and 1). A cancel is
seen at the network's progress ticks (the fit keeps its partial network, as in memory) and before
each row group the stream reads (:func:`train_reader`'s ``stop``: :class:`fanout.PassStopped`).
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import torch

from app.datasets import chunks, fanout
from app.datasets.tables import ENV_COLUMN
from app.storage import ObjectStore, RangeFile
from sal_core import cross_fit, deep_sal, loss_stats
from sal_core import exact_selection as es
from sal_core import lambda_selection as ls
from sal_core import minibatches as mb
from sal_core import robust_linear as rl
from sal_core.algorithms.erm import ERM
from sal_core.algorithms.irm import IRM, irm_newton, irm_terms
from sal_core.algorithms.lasso import ConvergenceWarning, Lasso, squared_proximal_fit
from sal_core.algorithms.ridge import Ridge
from sal_core.algorithms.sal import SAL, SALParams
from sal_core.algorithms.wdrl import REFIT_SLACK, WDRL
from sal_core.cross_fit import FoldSums
from sal_core.data import Standardizer
from sal_core.fitted import FittedModel
from sal_core.history import Round
from sal_core.loss_stats import LossStats
from sal_core.models import ModelSpec
from sal_core.params import AUTO
from sal_core.paths import exact
from sal_core.paths.common import protection
from sal_core.paths.deep import SEEDED_OPTIONS, SEEDED_TICKS
from sal_core.paths.gradient import ERM_STEPS
from sal_core.problem import EnvTensors, Problem, Reporter, RoundMetrics, Solution

__all__ = [
    "ChunkedData",
    "LinearFit",
    "NetworkFit",
    "PassRunner",
    "fit_linear",
    "fit_network",
    "group_reader",
    "supports",
    "total_steps",
    "train_reader",
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


def _standardiser(stats: fanout.Arrays, train: Sequence[int]) -> tuple[Standardizer, float, float]:
    pooled = {k: v[train[0] : train[0] + 1] for k, v in stats.items()}
    for e in train[1:]:
        pooled = fanout.merge_stats(pooled, {k: v[e : e + 1] for k, v in stats.items()})
    n = float(pooled["n"][0])
    scale = np.sqrt(pooled["m2x"][0] / n)
    scale = np.where(scale > 1e-12, scale, 1.0)
    y_std = math.sqrt(float(pooled["m2y"][0]) / (n - 1)) if n > 1 else 0.0  # torch's std: unbiased
    return (
        Standardizer(mean=pooled["mx"][0], scale=scale),
        float(pooled["my"][0]),
        y_std if y_std > 0 else 1.0,
    )


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

    standardizer, _, y_scale = _standardiser(timed(fanout.Pass("stats", {})), train)
    scaling = {"mean": standardizer.mean.tolist(), "scale": standardizer.scale.tolist(), "y_scale": y_scale}
    auto = algorithm in ("sal", "wdrl") and params.get("lambda_", AUTO) == AUTO
    folds = {"folds": _robust(algorithm, params, seed).exact_plan().folds, "seed": seed} if auto else {}
    sums = _rows_of(fanout.fold_sums_of(timed(fanout.Pass("sums", scaling | folds))), train)
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
            sums, y_bar, y_scale, _robust(algorithm, params, seed), names, loss_stats, progress
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
    # a model is there (rounds stopped by a cancel keep theirs, as in memory): it is scored whole
    m = timed(fanout.Pass("metrics", {"coef": coef.tolist(), "intercept": intercept}, stoppable=False))
    metrics = _env_metrics(m, data, index)
    return LinearFit(
        standardizer, theta, bias, coef, intercept, w, rounds, cert, metrics, stopped, selection, timings
    )


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
        theta_s = np.asarray(np.linalg.solve(moments.gram, moments.cross), dtype=np.float64)
        penalty = 0.0
    elif algorithm == "ridge":
        lam = float(Ridge(params).params.lambda_)
        eye = torch.eye(gram.shape[0], dtype=torch.float64)
        theta_s = torch.linalg.solve(gram + lam * eye, torch.as_tensor(moments.cross)).numpy()
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
    theta_ls = torch.linalg.solve(torch.as_tensor(moments.gram), torch.as_tensor(moments.cross)) * y_scale
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
    sums: FoldSums,
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

    outcome = es.select_from_sums(sums, sal.exact_plan(), on_round, loss_stats, names)
    step = outcome.step
    if outcome.stopped:
        history = shown
    elif step.risks.shape[0] == 0:  # w fixed: one round, the θ-step
        full = sums.part(np.ones(sums.n_folds, dtype=bool))[0]
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
    theta_step = outcome.theta_step()
    cert = rl.certificate(theta_step, outcome.lambda_)
    theta = theta_step.theta * y_scale
    bias = y_bar * y_scale - float(outcome.z_bar @ theta)
    selection = (
        None
        if outcome.stopped
        else ls.FitSelection(outcome.selection, covariate_weights=outcome.w_evidence())
    )
    certificate = (cert.rho_hat, cert.worst_case_risk * y_scale**2)
    return theta, bias, outcome.w, history, certificate, stopped, selection


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


# ------------------------------------------------------------------------------------ MLPs
CHUNKS_AT_ONCE = 4
"""Row groups a streamed network fit holds at once (its shuffle buffer, :mod:`sal_core.minibatches`):
with the store's ~20,000-row groups, 80,000 rows, ten 8,192-row minibatches."""


@dataclass
class NetworkFit:
    """An MLP fitted from minibatches streamed from the chunks: the job's result's parts."""

    model: FittedModel
    w: Array | None
    rounds: list[dict[str, Any]]
    certificate: tuple[float, float] | None
    metrics: dict[str, dict[str, float]]
    stopped: bool = False
    selection: ls.FitSelection | None = None
    passes: dict[str, float] = field(default_factory=dict)
    peak_rows: int = 0  # the most streamed rows held at once (K row groups and a leftover)


def group_reader(
    store: ObjectStore, key: str, data: ChunkedData, target: str
) -> Callable[[int], chunks.Chunk]:
    """Row group i of the stored table, alone, by byte ranges, as :func:`chunks.iter_chunks` decodes
    it; the footer is read once (a new handle per read cost a footer fetch each: on the local store
    1.2 ms against 0.65 ms a 300-row group, on S3 a round trip)."""
    handle = pq.ParquetFile(RangeFile(store, key))
    known = pa.array(list(data.environments), pa.string())
    columns = [ENV_COLUMN, *data.feature_names, target]

    def read(i: int) -> chunks.Chunk:
        part = handle.read_row_group(i, columns=columns)
        found = pc.index_in(part.column(ENV_COLUMN), value_set=known)
        if found.null_count:
            raise KeyError(f"row group {i} names an environment the dataset does not list")
        X = np.column_stack([part.column(c).to_numpy() for c in data.feature_names]).astype(np.float64)
        y = part.column(target).to_numpy().astype(np.float64)
        return chunks.Chunk(env_index=found.to_numpy().astype(np.int64), X=X, y=y)

    return read


def train_reader(
    read_group: Callable[[int], chunks.Chunk], data: ChunkedData, stop: Callable[[], bool] = lambda: False
) -> mb.ChunkReader:
    """Row group i's training rows (environments renumbered in ``data.train``'s order); ``stop``
    is asked before each read: True raises :class:`fanout.PassStopped` (a cancel while streaming)."""
    index = {name: i for i, name in enumerate(data.environments)}
    to_train = np.full(len(data.environments), -1, dtype=np.int64)
    for j, name in enumerate(data.train):
        to_train[index[name]] = j

    def read(i: int) -> mb.ChunkRows:
        if stop():
            raise fanout.PassStopped("the network fit was stopped while streaming its minibatches")
        chunk = read_group(i)
        env = to_train[chunk.env_index]
        keep = env >= 0
        return mb.ChunkRows(env[keep], chunk.X[keep], chunk.y[keep])

    return read


def fit_network(
    data: ChunkedData,
    algorithm: str,
    params: dict[str, Any],
    model: dict[str, Any],
    run_pass: PassRunner,
    read: mb.ChunkReader,
    n_groups: int,
    *,
    seed: int = 0,
    progress: Callable[[int, dict[str, Any]], bool] | None = None,
    chunks_at_once: int = CHUNKS_AT_ONCE,
    batch_rows: int = deep_sal.DeepSALOptions().batch_rows,
) -> NetworkFit:
    """ERM or SAL (under the linear path's w) for an MLP, its θ-steps on minibatches
    streamed from the row groups (``read``: :func:`train_reader`), as :mod:`sal_core.deep_sal`
    fits them in memory from 10⁵ rows (ERM's, there full-batch, with the same Adam steps and rate):

    1. the stats pass: the standardiser and y's scale, as in memory;
    2. SAL only: w, by the linear fit SAL's ``w_seeder`` makes (``lambda_="auto"`` on the exact
       path), chunk by chunk (:func:`fit_linear`, its passes fanned out);
    3. the evaluation sample (at most ``DeepSALOptions.eval_rows`` rows, one pass,
       :func:`sal_core.minibatches.sample_rows`): the round's environment losses, the certificate;
    4. the θ-steps, each on the stream's next minibatch (:class:`sal_core.minibatches.ShuffledChunks`,
       ``chunks_at_once`` row groups held at a time, ``batch_rows`` rows a step, drawn from ``seed``);
       SAL at ``lambda_="auto"``: a network per candidate on the rows outside fold 0, their scores
       on fold 0, the refit (:func:`_seeded_auto`);
    5. the metrics pass (fanned out) with the network's weights.
    """
    kept: dict[str, fanout.Arrays] = {}

    def cached(what: fanout.Pass) -> fanout.Arrays:  # the seeder's stats and fold sums serve the network
        if what.name not in ("stats", "sums"):
            return run_pass(what)
        if what.name not in kept:
            kept[what.name] = run_pass(what)
        return kept[what.name]

    import time

    started = time.perf_counter()
    index = {name: i for i, name in enumerate(data.environments)}
    train = [index[n] for n in data.train]
    stats = cached(fanout.Pass("stats", {}))
    standardizer, _, y_scale = _standardiser(stats, train)
    spec = ModelSpec.from_mapping(model)
    offset = 0
    w: torch.Tensor | None = None
    seeded: LinearFit | None = None
    if algorithm == "sal":
        seeder = SAL(_seeder_params(params), seed=seed)
        seeded = fit_linear(
            data, "sal", _seeder_params(params), cached, seed=seed, progress=progress, score=False
        )
        offset = seeder.total_steps()
        assert seeded.w is not None
        w = torch.as_tensor(seeded.w)
    peak = 0
    chose: ls.FitSelection | None = None  # lambda_="auto": the candidates, the choice, the refit
    if seeded is not None and seeded.stopped:  # cancelled while learning w: the network is untrained
        torch.manual_seed(seed)  # as Problem.new_model draws it; no row is read
        untrained = spec.build(len(data.feature_names)).double()
        solution = Solution(model=untrained, covariate_weights=w, stopped=True)
        rounds = seeded.rounds
    else:
        n_train = int(sum(float(stats["n"][e]) for e in train))
        problem = _sample_problem(data, standardizer, spec, read, n_groups, n_train, seed)
        streams: list[mb.ShuffledChunks] = []

        def stream(reader: mb.ChunkReader) -> mb.ShuffledChunks:
            streams.append(
                mb.ShuffledChunks(
                    reader,
                    n_groups,
                    mean=standardizer.mean,
                    scale=standardizer.scale,
                    batch_rows=batch_rows,
                    chunks_at_once=chunks_at_once,
                    seed=seed,
                )  # fmt: skip
            )
            return streams[-1]

        if algorithm == "sal" and params.get("lambda_", AUTO) == AUTO:
            sums = _rows_of(fanout.fold_sums_of(kept["sums"]), train)
            held = _HeldOut(data, standardizer, spec, read, n_groups, seed)
            solution, chose = _seeded_auto(
                SAL(params), sums, problem, y_scale, w, held, stream, progress, offset
            )
        else:
            reporter = _reporter(progress, offset, erm=algorithm == "erm")
            solution = _streamed_fit(algorithm, params, problem, y_scale, w, reporter, stream(read))
        rounds = [_round_of(r, erm=algorithm == "erm") for r in solution.history]
        peak = max(s.peak_rows for s in streams)
    fitted_w = (
        None if algorithm == "erm" or solution.covariate_weights is None else solution.covariate_weights
    )
    state = {k: v.detach().to("cpu", torch.float64).clone() for k, v in solution.model.state_dict().items()}
    w_out = None if fitted_w is None else fitted_w.detach().cpu().double().numpy()
    fitted = FittedModel("regression", spec, data.feature_names, standardizer, state, w_out)
    m = run_pass(
        fanout.Pass(
            "metrics",
            {"model": {"kind": spec.kind, "hidden": list(spec.hidden), "activation": spec.activation},
             "state": {k: v.tolist() for k, v in state.items()},
             "mean": standardizer.mean.tolist(), "scale": standardizer.scale.tolist()},
            stoppable=False,
        )
    )  # fmt: skip
    cert = None if algorithm == "erm" else solution.certificate  # ERM's has no adversary to certify
    selection = None
    if seeded is not None and w_out is not None:
        selection = dataclasses.replace(
            chose or ls.FitSelection(),
            covariate_weights=ls.SeededW(
                source="SAL's exact path on a linear model of the same rows, then held fixed",
                w=tuple(float(v) for v in w_out),
                selection=seeded.selection,
            ),
        )
    return NetworkFit(
        fitted, w_out, rounds, None if cert is None else (cert.rho_hat, cert.worst_case_risk),
        _env_metrics(m, data, index), solution.stopped, selection,
        {"total": time.perf_counter() - started}, peak,
    )  # fmt: skip


def _seeder_params(params: dict[str, Any]) -> dict[str, Any]:
    """The linear fit that learns an MLP's w (``LearnedW.seeder_params``: λ, the gradient, the
    adversary and w's source back to 'auto')."""
    return {**params, "lambda_": AUTO, "gradient": AUTO, "adversary": AUTO, "w_source": AUTO}


def _sample_problem(
    data: ChunkedData,
    standardizer: Standardizer,
    spec: ModelSpec,
    read: mb.ChunkReader,
    n_groups: int,
    n_train: int,
    seed: int,
) -> Problem:
    """The evaluation sample as a :class:`Problem` (standardised, CPU, float64, the job's seed)."""
    rows = mb.sample_rows(read, n_groups, n_train, deep_sal.DeepSALOptions().eval_rows, seed)
    Z = torch.as_tensor((rows.X - standardizer.mean) / standardizer.scale)
    y, env = torch.as_tensor(rows.y), torch.as_tensor(rows.env)
    envs = [EnvTensors(name, Z[env == j], y[env == j]) for j, name in enumerate(data.train)]
    generator = torch.Generator().manual_seed(seed)
    return Problem(envs, Z, y, env, "regression", "squared", spec, generator, seed)


def _streamed_fit(
    algorithm: str,
    params: dict[str, Any],
    problem: Problem,
    y_scale: float,
    w: torch.Tensor | None,
    reporter: Reporter,
    batches: mb.ShuffledChunks,
) -> Solution:
    """The network's θ-steps on the stream: ERM's Adam steps on the plain loss (its own steps and
    rate, y unscaled as in memory), or SAL's seeded fit at λ under w (``sal_core.paths.deep``'s
    schedule: 300 warm-up and 800 adversarial steps, ``SEEDED_TICKS`` progress ticks)."""
    if algorithm == "erm":
        erm = ERM(params).params
        options = dataclasses.replace(
            SEEDED_OPTIONS, theta_lr=erm.lr, warmup_steps=0, final_steps=erm.steps, minibatch_from=0
        )
        scale, ticks, lam, adversary, alpha, stability = 1.0, 1, 0.0, False, 0.0, "std"
    else:
        sal = SAL(params).params
        assert isinstance(sal, SALParams)
        return _seeded_fit(sal, problem, y_scale, w, reporter, batches, float(sal.lambda_), adversary=True)  # type: ignore[arg-type]
    return deep_sal.fit_deep_sal(
        problem, lambda_=lam, alpha=alpha, stability=stability, rounds=1, w_update=None, reporter=reporter,
        y_scale=scale, options=options, initial_w=w if adversary else None, adversary=adversary, ticks=ticks,
        batches=batches,
    )  # fmt: skip


def _seeded_fit(
    sal: SALParams,
    problem: Problem,
    y_scale: float,
    w: torch.Tensor | None,
    reporter: Reporter,
    batches: mb.ShuffledChunks,
    lam: float,
    *,
    adversary: bool,
) -> Solution:
    """``sal_core.paths.deep.fit_seeded`` on the stream: the network under w at λ (300 warm-up, 800
    adversarial steps), or, without the adversary, ERM's 2000 steps (w = 1) on the same schedule."""
    if adversary:
        options = dataclasses.replace(SEEDED_OPTIONS, theta_lr=sal.theta_lr)
    else:
        options = dataclasses.replace(
            SEEDED_OPTIONS, theta_lr=sal.theta_lr, warmup_steps=0, final_steps=ERM_STEPS
        )
    return deep_sal.fit_deep_sal(
        problem, lambda_=lam, alpha=sal.alpha, stability=sal.stability, rounds=1, w_update=None,
        reporter=reporter, y_scale=y_scale, options=options, initial_w=w if adversary else None,
        adversary=adversary, ticks=SEEDED_TICKS, batches=batches,
    )  # fmt: skip


class _HeldOut:
    """lambda_="auto"'s split of the training rows (fold 0 of ``folds`` held out, by each row's
    content and the seed, as ``lambda_selection.row_folds`` splits them in memory): readers of
    either part, the fit part's evaluation sample, and the held-out losses of networks."""

    def __init__(
        self,
        data: ChunkedData,
        standardizer: Standardizer,
        spec: ModelSpec,
        read: mb.ChunkReader,
        n_groups: int,
        seed: int,
    ) -> None:
        self.data, self.standardizer, self.spec = data, standardizer, spec
        self.read, self.n_groups, self.seed = read, n_groups, seed

    def reader(self, k: int, *, held: bool) -> mb.ChunkReader:
        def read(i: int) -> mb.ChunkRows:
            rows = self.read(i)
            in_fold = cross_fit.folds_of(cross_fit.row_keys(rows.X, rows.y), self.seed, k) == 0
            keep = in_fold if held else ~in_fold
            return mb.ChunkRows(rows.env[keep], rows.X[keep], rows.y[keep])

        return read

    def sample(self, k: int, n_rows: int) -> Problem:
        return _sample_problem(
            self.data,
            self.standardizer,
            self.spec,
            self.reader(k, held=False),
            self.n_groups,
            n_rows,
            self.seed,
        )

    def losses(self, models: Sequence[torch.nn.Module], k: int) -> LossStats:
        """Each model's squared error on every held-out row, as sums per training environment (one
        pass; the in-memory ``ls.row_losses`` keeps them per row)."""
        read, total = self.reader(k, held=True), None
        n_envs = len(self.data.train)
        for i in range(self.n_groups):
            rows = read(i)
            Z = torch.as_tensor((rows.X - self.standardizer.mean) / self.standardizer.scale)
            y = torch.as_tensor(rows.y)
            with torch.no_grad():
                per_row = torch.stack([(m(Z).reshape(-1) - y) ** 2 for m in models], 1).numpy()
            one = LossStats.of_rows([per_row[rows.env == e] for e in range(n_envs)])
            total = one if total is None else total + one
        assert total is not None
        return total


def _seeded_auto(
    sal_: SAL,
    sums: FoldSums,
    problem: Problem,
    y_scale: float,
    w: torch.Tensor | None,
    held: _HeldOut,
    stream: Callable[[mb.ChunkReader], mb.ShuffledChunks],
    progress: Callable[[int, dict[str, Any]], bool] | None,
    offset: int,
) -> tuple[Solution, ls.FitSelection | None]:
    """SAL-MLP at ``lambda_="auto"`` as ``WDRL._fit_heldout_auto`` fits it in memory: every λ of the
    seeded grid (× the fit part's pooled OLS MSE, from the fold sums) and the adversary switched off,
    each a network streamed from the rows outside fold 0, scored on fold 0 (worst environment's
    RMSE, paired standard errors: :mod:`sal_core.loss_stats`), the choice, then the refit on all
    rows, kept unless it scores worse than ``REFIT_SLACK`` above the chosen candidate."""
    sal = sal_.params
    assert isinstance(sal, SALParams)
    k = sal.folds
    fit_part = np.arange(sums.n_folds) != 0
    base = es.ols_mse(sums.part(fit_part)[0])
    fit_problem = held.sample(k, int(sums.n[:, fit_part].sum()))
    grid = sal_.grids["seeded"]
    solutions: list[Solution] = []
    for i, relative in enumerate(grid):
        reporter = _reporter(progress, offset + i * SEEDED_TICKS, erm=False)
        batches = stream(held.reader(k, held=False))
        lam = ls.candidate_lambda(relative, base)
        solution = _seeded_fit(
            sal, fit_problem, y_scale, w, reporter, batches, lam, adversary=relative != ls.OFF
        )
        if solution.stopped:  # the in-memory fit returns the candidate's partial solution
            return solution, None
        solutions.append(solution)
    stats = held.losses([s.model for s in solutions], k)
    candidates = []
    for i, relative in enumerate(grid):
        score, per_env = loss_stats.score_of(stats, i, True)
        candidates.append(
            ls.Candidate(
                None if relative == ls.OFF else relative,
                ls.candidate_lambda(relative, base),
                score,
                dict(zip(held.data.train, per_env, strict=True)),
                protection=protection(solutions[i]),
            )  # fmt: skip
        )
    candidates = loss_stats.with_paired_se(candidates, stats, range(len(grid)), True)
    chosen, best, reason = ls.choose(candidates, sal.selection_se, sal_.prefer)
    selection = ls.Selection(
        criterion="worst_env_validation_rmse", prefer=sal_.prefer, z=sal.selection_se,
        scoring=f"one held-out fold of {k} within each training environment", rows_scored=int(stats.n.sum()),
        base=base, candidates=tuple(candidates), chosen=chosen, best=best, reason=reason,
    )  # fmt: skip
    lam = selection.lambda_
    reporter = _reporter(progress, offset + len(grid) * SEEDED_TICKS, erm=False)
    refit = _seeded_fit(
        sal, problem, y_scale, w, reporter, stream(held.read), lam, adversary=lam != ls.OFF_LAMBDA
    )
    refit_score = loss_stats.score_of(held.losses([refit.model], k), 0, True)[0]
    keep = refit_score <= (1 + REFIT_SLACK) * candidates[chosen].score or refit.stopped
    final = (
        "refit on all rows"
        if keep
        else "the chosen candidate, fitted without the held-out fold (the refit on all rows scored worse)"
    )
    return (refit if keep else solutions[chosen]), ls.FitSelection(selection, ls.Refit(refit_score, final))


def _reporter(progress: Callable[[int, dict[str, Any]], bool] | None, offset: int, *, erm: bool) -> Reporter:
    """The deep fit's progress as the job counts it: after the w-seeder's ``offset`` steps; ERM's
    one step as its in-memory fit reports it (``train_loss``, no w)."""

    def callback(step: int, total: int, metrics: RoundMetrics) -> bool:
        if progress is None:
            return False
        shown = dict(metrics)
        if erm:
            shown = {"train_loss": shown["risk"]} if "risk" in shown else {}
        return bool(progress(step + offset, shown))

    return Reporter(callback, 0)


def _round_of(r: Round, *, erm: bool) -> dict[str, Any]:
    """A deep fit's round as :func:`_round` writes them (ERM's without w)."""
    return {"round": r.round, "risk": r.risk, "env_losses": dict(r.env_losses), "w": None if erm else r.w}


def as_tensor(a: Array) -> torch.Tensor:
    return torch.as_tensor(np.asarray(a, dtype=np.float64))
