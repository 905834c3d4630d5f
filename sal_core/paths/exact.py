"""The exact path (linear model, squared loss, closed-form adversary): every θ-step solved exactly on
the generalised-ridge path (:mod:`sal_core.robust_linear`) from p×p moments, O(p³) per round.

Plain functions: the moments of a problem, a fit at a fixed w, the rounds that learn w at a fixed λ,
and ``lambda_='auto'`` as one batched cross-fitted selection (:mod:`sal_core.exact_selection`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from sal_core import exact_batch as eb
from sal_core import exact_selection as es
from sal_core import robust_linear as rl
from sal_core.history import Round
from sal_core.optim import set_linear
from sal_core.params import Params
from sal_core.paths.common import round_of
from sal_core.paths.w_step import WStep
from sal_core.problem import Certificate, Problem, Reporter, Solution

Stats = tuple[rl.Moments, float]
"""A problem's moments (targets divided by y_scale) and the pooled mean of y."""


def moments(problem: Problem, y_scale: float) -> Stats:
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
    return rl.Moments.of_environments(g, c, yy, counts), float(y_mean)


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


def fit_fixed_w(
    problem: Problem, lam: float, w: np.ndarray, y_scale: float, reporter: Reporter, stats: Stats
) -> Solution:
    """The exact θ-step at a fixed w, packaged as a one-round solution."""
    m, y_mean = stats
    step = rl.solve_theta(m, w, lam)
    risk, _, losses = rl.risk_and_grad_theta(step.theta, m, 0.0, "std")
    history = [round_of(1, risk * y_scale**2, None, losses * y_scale**2, problem)]
    stopped = reporter(1, {"risk": risk * y_scale**2})
    return linear_solution(
        problem, step.theta, rl.certificate(step, lam), lam, w, y_scale, y_mean, history, stopped
    )


@dataclass(frozen=True)
class WPath:
    """Where SAL's rounds at a fixed λ ended: the exact θ-step at the last w, and every round seen
    (standardised units: multiply risks and losses by y_scale² for the target's)."""

    step: rl.ThetaStep
    w: np.ndarray  # (p,)
    rounds: list[tuple[int, float, np.ndarray, np.ndarray]]  # (round, R, w at its start, L^e (E,))
    stopped: bool


OnRound = Callable[[int, float, np.ndarray], bool]
"""``on_round(t, R, w)`` after round t (R standardised, w at the round's start): True stops."""


def learn_w(m: rl.Moments, lam: float, n_rows: int, w_step: WStep[Params], on_round: OnRound) -> WPath:
    """SAL's rounds at a fixed λ on p×p moments of ``n_rows`` rows: θ-step, R and ∂R/∂w by implicit
    differentiation, the w-step (``w_step``'s update, anchors, schedule and risk); until its rounds
    end, ``on_round`` stops them or they converge (:class:`Convergence`). The in-memory fit and the
    chunked one (``app.datasets.outofcore``) both run this.

    The default w-step (Adam on log w, no convergence stop) runs as a batch of one on
    :func:`sal_core.exact_batch.run_paths`, compiled where it can be (a fit at the paper setting
    took 0.25 s by the loop below, more than ``lambda_="auto"``'s 40 paths compiled); the same
    rounds to rounding, the same rounds seen, and a stop leaves w where the loop would."""
    if w_step.learns_w and w_step.batchable() and w_step.convergence_tol <= 0:
        return _learn_w_batched(m, lam, n_rows, w_step, on_round)
    return learn_w_by_rounds(m, lam, n_rows, w_step, on_round)


def _learn_w_batched(
    m: rl.Moments, lam: float, n_rows: int, w_step: WStep[Params], on_round: OnRound
) -> WPath:
    """:func:`learn_w` on the batched (compiled) exact path."""
    anchor = w_step.anchor_mask(m, n_rows)
    batch = eb.BatchMoments(
        m.gram[None], m.cross[None], np.array([m.yy]), m.env_gram[None], m.env_cross[None], m.env_yy[None],
        rows=n_rows,
    )  # fmt: skip
    stop_at = 0

    def shown(t: int, risk: np.ndarray, losses: np.ndarray, w: np.ndarray) -> bool:
        nonlocal stop_at
        if on_round(t, float(risk[0]), w[0]):
            stop_at = t
            return True
        return False

    out = eb.run_paths(
        batch, np.array([lam]), np.ones((1, m.cross.shape[0])), w_step.path_settings(),
        None if anchor is None else anchor[None], record=True, on_round=shown,
    )  # fmt: skip
    kept = stop_at or out.risks.shape[0]
    seen = [(t + 1, float(out.risks[t, 0]), out.ws[t, 0], out.env_losses[t, 0]) for t in range(kept)]
    w = out.ws[stop_at - 1, 0] if stop_at else out.w[0]  # a stop: w at that round's start, as the loop's
    return WPath(rl.solve_theta(m, w, lam), w, seen, stop_at > 0)


def learn_w_by_rounds(
    m: rl.Moments, lam: float, n_rows: int, w_step: WStep[Params], on_round: OnRound
) -> WPath:
    """:func:`learn_w` one round at a time, for any w-step (and the reference its batched run is
    tested against)."""
    update = w_step.update(w_step.anchor_mask(m, n_rows))
    alpha, stability = w_step.alpha, w_step.stability
    w = np.ones(m.cross.shape[0])
    seen = []
    stopped = False
    converged = Convergence(w_step.convergence_tol)
    for t in range(1, w_step.schedule.rounds + 1):
        step = rl.solve_theta(m, w, lam)
        risk, grad_theta, losses = rl.risk_and_grad_theta(step.theta, m, alpha, stability)
        seen.append((t, risk, w, losses))
        if on_round(t, risk, w):
            stopped = True
            break
        w_next = update(w, rl.risk_grad_w(step.theta, w, m, lam, grad_theta))
        if converged(w, w_next, risk):
            break
        w = w_next
    return WPath(rl.solve_theta(m, w, lam), w, seen, stopped)


def fit_rounds(
    problem: Problem, lam: float, y_scale: float, reporter: Reporter, stats: Stats, w_step: WStep[Params]
) -> Solution:
    """SAL's rounds at a fixed λ (:func:`learn_w`), reported and packaged as a solution."""
    m, y_mean = stats
    path = learn_w(
        m, lam, int(problem.y.shape[0]), w_step,
        lambda t, risk, w: reporter(t, {"risk": risk * y_scale**2, "w": w.tolist()}),
    )  # fmt: skip
    history = [round_of(t, r * y_scale**2, w, loss * y_scale**2, problem) for t, r, w, loss in path.rounds]
    cert = rl.certificate(path.step, lam)
    return linear_solution(
        problem, path.step.theta, cert, lam, path.w, y_scale, y_mean, history, path.stopped
    )


def fit_auto(
    problem: Problem,
    y_scale: float,
    plan: es.Plan,
    reporter: Reporter,
    steps_per_fit: int,
    full_moments: Callable[[], rl.Moments],
) -> Solution:
    """lambda_='auto': every candidate on every fold in one batch, then the refit (``full_moments``:
    the problem's moments, asked for only when w is fixed)."""
    # the watched path's rounds, raw: the history of a fit stopped while choosing
    shown: list[tuple[int, float, np.ndarray, np.ndarray]] = []

    def on_round(t: int, risk: float, losses: np.ndarray, w: np.ndarray) -> bool:
        shown.append((t, risk * y_scale**2, w, losses * y_scale**2))
        return reporter(t, {"risk": risk * y_scale**2, "w": w.tolist()})

    outcome = es.select(problem, y_scale, plan, on_round)
    if outcome.stopped:
        history = [round_of(t, risk, w, losses, problem) for t, risk, w, losses in shown]
    else:
        history = _history(problem, outcome, y_scale, full_moments)
    y_mean = float(problem.y.mean())
    # a selection with no w-path (no rounds to report) is one progress step, where a stop is seen
    chose = not outcome.stopped and steps_per_fit == 1 and reporter(1)
    last = history[-1]
    stopped = (
        outcome.stopped
        or chose
        or reporter(2 * steps_per_fit, {"risk": last.risk, **({"w": list(last.w)} if last.w else {})})
    )
    solution = linear_solution(
        problem,
        outcome.theta,
        outcome.certificate,
        outcome.lambda_,
        outcome.w,
        y_scale,
        y_mean,
        history,
        stopped,
    )
    solution.selection = outcome.fit_selection()
    return solution


def _history(
    problem: Problem, outcome: es.Outcome, y_scale: float, full_moments: Callable[[], rl.Moments]
) -> list[Round]:
    step = outcome.step
    if step.risks.shape[0] == 0:  # w fixed: one round, the θ-step
        losses = rl.env_losses(step.theta[0], full_moments())
        return [round_of(1, float(losses.mean()) * y_scale**2, None, losses * y_scale**2, problem)]
    # the same numbers as round_of per round, converted in bulk (measured: docs/sal.md, "Measured for
    # the defaults")
    names = [e.name for e in problem.envs]
    risks = (step.risks[:, 0] * y_scale**2).tolist()
    losses = (step.env_losses[:, 0] * y_scale**2).tolist()
    ws = step.ws[:, 0].tolist()
    return [
        Round(round=t + 1, risk=risk, env_losses=dict(zip(names, env, strict=True)), w=w)
        for t, (risk, env, w) in enumerate(zip(risks, losses, ws, strict=True))
    ]


def linear_solution(
    problem: Problem,
    theta_z: np.ndarray,
    cert: rl.CertificateValues,
    lam: float,
    w: np.ndarray,
    y_scale: float,
    y_mean: float,
    history: list[Round],
    stopped: bool,
) -> Solution:
    """A linear model from θ on the standardised covariates and ỹ (intercept through the pooled
    means), in the target's units, with the certificate given for it (an exact θ-step's:
    ``rl.certificate(step, lam)``)."""
    model = problem.new_model()
    theta = torch.as_tensor(theta_z * y_scale, dtype=problem.Z.dtype, device=problem.Z.device)
    bias = y_mean - theta @ problem.Z.mean(0)  # rows are centred on the pooled mean
    set_linear(model, theta, bias)
    return Solution(
        model=model,
        covariate_weights=torch.as_tensor(w, dtype=torch.float64, device=problem.Z.device),
        history=history,
        certificate=Certificate(cert.rho_hat, cert.worst_case_risk * y_scale**2, lam),
        stopped=stopped,
    )
