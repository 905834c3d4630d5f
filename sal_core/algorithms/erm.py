"""Empirical risk minimisation on the pooled training environments."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from sal_core.algorithms.base import Algorithm, Problem, Reporter, Solution
from sal_core.history import Round
from sal_core.optim import fit_plain_loss, least_squares, set_linear
from sal_core.params import Params, param


@dataclass(frozen=True)
class ERMParams(Params):
    steps: int = param(
        2000,
        low=1,
        high=1_000_000,
        doc="Adam steps when there is no closed form (MLP, logistic or absolute loss).",
    )
    lr: float = param(
        0.01, low=0.0, low_inclusive=False, high=10.0, doc="Adam learning rate for the gradient path."
    )


class ERM(Algorithm[ERMParams]):
    """min_θ mean over all pooled rows of ℓ(θ; x, y). Closed form for a linear model with squared loss."""

    name = "erm"
    params_type = ERMParams
    summary = "Empirical risk minimisation on the pooled training environments."

    def _fit(self, problem: Problem, reporter: Reporter) -> Solution:
        model = problem.new_model()
        if problem.model_spec.is_linear and problem.loss_name == "squared":
            set_linear(model, *least_squares(problem.Z, problem.y))
        else:
            fit_plain_loss(
                model, problem.Z, problem.y, problem.loss_name,
                linear=problem.model_spec.is_linear, steps=self.params.steps, lr=self.params.lr,
            )  # fmt: skip
        losses = problem.env_losses(model).detach()
        with torch.no_grad():
            pooled = float(problem.loss(model(problem.Z), problem.y).mean())
        env_losses = problem.by_env(losses)
        history = [Round(round=1, risk=pooled, env_losses=env_losses)]
        reporter(1, {"train_loss": float(losses.mean())})
        return Solution(model=model, history=history)


ALGORITHM = ERM
