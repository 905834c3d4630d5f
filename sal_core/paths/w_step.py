"""The w-step: the one thing SAL adds to WDRL. Every path asks it the same questions.

:class:`WStep` is WDRL's (w ≡ 1: nothing learned, one θ-step per fit); SAL declares its own subclass
(:class:`sal_core.algorithms.sal.LearnedW`) with its schedule, its per-round update of w and the
anchors of min w = 1. The fit flow, the paths and the λ selection are the same for both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Generic, TypeVar

import numpy as np
from numpy.typing import NDArray

from sal_core import exact_batch as eb
from sal_core import robust_linear as rl
from sal_core.covariate_weights import WUpdate
from sal_core.params import Params
from sal_core.paths import PathName
from sal_core.problem import Problem

P = TypeVar("P", bound=Params)


@dataclass(frozen=True)
class Schedule:
    """The w-learning schedule a fit runs, with every ``"auto"`` resolved for its path."""

    rounds: int
    w_lr: float
    w_update: str


FIXED_SCHEDULE = Schedule(rounds=1, w_lr=0.0, w_update="none")
"""w ≡ 1: one θ-step, no update."""


class WStep(Generic[P]):
    """w ≡ 1 (WDRL): the θ-step at an isotropic cost, once per fit.

    A subclass that learns w sets ``learns_w`` and overrides what it changes: the schedule, the
    update, the anchors, the spread in R, and (classmethods, asked before the path is known) which
    paths its parameters allow.
    """

    learns_w: ClassVar[bool] = False

    def __init__(self, params: P, path: PathName) -> None:
        self.params = params
        self.path = path

    # ----------------------------------------------------- asked while choosing the path (classmethods)
    @classmethod
    def closed_form_allowed(cls, params: P) -> bool:
        """May a linear model use the closed-form adversary (and so, with squared loss, the exact path)?"""
        return True

    @classmethod
    def network_path(cls, params: P) -> PathName:
        """The path of a non-linear model (an MLP)."""
        return "gradient"

    @classmethod
    def seeder_params(cls, params: P) -> P:
        """The parameters of the linear fit that learns w for a network (``seeded`` path)."""
        return params

    def check(self, problem: Problem) -> None:
        """Reject options this w-step cannot run on ``problem`` (``InvalidParameterError``)."""

    # ------------------------------------------------------------------------------ the rounds
    @property
    def schedule(self) -> Schedule:
        return FIXED_SCHEDULE

    @property
    def alpha(self) -> float:
        """α, the weight of the spread of environment losses in R (0: the mean loss)."""
        return 0.0

    @property
    def stability(self) -> str:
        return "std"

    @property
    def convergence_tol(self) -> float:
        return 0.0

    def batchable(self) -> bool:
        """Can the exact path's batched selection (:mod:`sal_core.exact_selection`) run this w-step?"""
        return True

    def update(self, anchor: NDArray[np.bool_] | None = None) -> WUpdate:
        """The per-round update w ← update(w, ∂R/∂w); ``anchor`` restricts which covariate min w = 1 pins."""
        raise NotImplementedError("w ≡ 1 is never updated")

    # ------------------------------------------------------------------------------ the anchors
    def anchors(self) -> tuple[str, ...]:
        """The w-path variants per λ that lambda_='auto' tries on the exact path."""
        return ("all",)

    def anchor_mask(self, moments: rl.Moments, n_rows: int) -> NDArray[np.bool_] | None:
        """At a fixed λ, the covariates min w = 1 may pin (None: all)."""
        return None

    def path_settings(self) -> eb.PathSettings:
        """The exact path's batched w-path (unused when w is fixed)."""
        return eb.PathSettings(rounds=1, lr=0.0, w_max=1.0, alpha=0.0, stability="std")
