"""What every path shares: the target's scale, a round of history, sub-fit progress."""

from __future__ import annotations

import numpy as np
import torch

from sal_core.history import Round
from sal_core.problem import Problem, Reporter, RoundMetrics, Solution


def target_scale(problem: Problem) -> float:
    """Regression targets are divided by their pooled standard deviation inside the fit (1 otherwise)."""
    scale = float(problem.y.std()) if problem.task == "regression" else 1.0
    return scale if scale > 0 else 1.0


def loss_scale(problem: Problem, y_scale: float) -> float:
    """A loss computed on y / y_scale, times this, is in the target's own units."""
    return y_scale**2 if problem.loss_name == "squared" else y_scale


def round_of(index: int, risk: float, w: np.ndarray | None, losses: np.ndarray, problem: Problem) -> Round:
    return Round(
        round=index,
        risk=float(risk),
        env_losses=problem.by_env(losses),
        w=None if w is None else [float(v) for v in w],
    )


def rescale_output(model: torch.nn.Module, y_scale: float) -> None:
    """Undo the target standardisation: the last layer's weight and bias times y_scale."""
    if y_scale == 1.0:
        return
    with torch.no_grad():
        for tensor in list(model.parameters())[-2:]:
            tensor.mul_(y_scale)


def protection(solution: Solution) -> float:
    """Σ log w: how much of X the fitted cost shields from the adversary (0 for w ≡ 1)."""
    w = solution.covariate_weights
    return 0.0 if w is None else float(torch.log(w.double().clamp_min(1.0)).sum())


class Holding(Reporter):
    """Reports a side fit (one whose steps the progress bar does not count) at the parent's step 0,
    so that progress holds still while a stop request still reaches the fit."""

    def __init__(self, parent: Reporter) -> None:
        super().__init__(None, parent.total)
        self._parent = parent

    def __call__(self, step: int, metrics: RoundMetrics | None = None) -> bool:
        self.stop_requested = self._parent(0)
        return self.stop_requested


class Offset(Reporter):
    """Reports a sub-fit's steps after ``offset`` steps of the same progress bar."""

    def __init__(self, parent: Reporter, offset: int) -> None:
        super().__init__(None, parent.total)
        self._parent = parent
        self._offset = offset

    def __call__(self, step: int, metrics: RoundMetrics | None = None) -> bool:
        self.stop_requested = self._parent(self._offset + step, metrics)
        return self.stop_requested
