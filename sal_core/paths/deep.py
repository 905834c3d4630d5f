"""The network paths (MLPs), both on :func:`sal_core.deep_sal.fit_deep_sal`:

* ``deep``: w learned through the network by implicit differentiation;
* ``seeded``: the network trained under the w that SAL's exact path learned on a linear model of the
  same rows, held fixed (or, as the adversary-off candidate, ERM with the same network and schedule).
"""

from __future__ import annotations

import dataclasses

import torch

from sal_core import deep_sal
from sal_core.params import Params
from sal_core.paths.gradient import ERM_STEPS
from sal_core.paths.w_step import WStep
from sal_core.problem import Problem, Reporter, Solution

SEEDED_TICKS = 10
"""Progress steps per network fit under the linear path's w (one per tenth of its final steps)."""
SEEDED_OPTIONS = deep_sal.DeepSALOptions(final_steps=800, minibatch_from=16_384)
"""The network's fit at the fixed w: 300 ERM warm-up steps, then 800 adversarial θ-steps; full batch
below 16,384 rows, 8,192-row minibatches from there (reshuffled every epoch), so a fit costs the same
~1,100 steps whatever n is (docs/sal.md, "Measured for the defaults")."""


def fit_learned(
    problem: Problem, lam: float, reporter: Reporter, y_scale: float, w_step: WStep[Params]
) -> Solution:
    """w learned through the network, ``w_step``'s rounds and update."""
    return deep_sal.fit_deep_sal(
        problem, lambda_=lam, alpha=w_step.alpha, stability=w_step.stability, rounds=w_step.schedule.rounds,
        w_update=w_step.update(), reporter=reporter, y_scale=y_scale,
    )  # fmt: skip


def fit_seeded(
    problem: Problem,
    lam: float,
    reporter: Reporter,
    y_scale: float,
    w_step: WStep[Params],
    *,
    theta_lr: float,
    seed_w: torch.Tensor | None,
    adversary: bool,
) -> Solution:
    """The network trained under the linear path's w ``seed_w`` (``adversary``), or ERM's 2000 steps
    (w = 1) with the same schedule."""
    if adversary:
        options = dataclasses.replace(SEEDED_OPTIONS, theta_lr=theta_lr)
    else:
        options = dataclasses.replace(
            SEEDED_OPTIONS, theta_lr=theta_lr, warmup_steps=0, final_steps=ERM_STEPS
        )
    return deep_sal.fit_deep_sal(
        problem, lambda_=lam, alpha=w_step.alpha, stability=w_step.stability, rounds=1, w_update=None,
        reporter=reporter, y_scale=y_scale, options=options,
        initial_w=seed_w if adversary else None, adversary=adversary, ticks=SEEDED_TICKS,
    )  # fmt: skip
