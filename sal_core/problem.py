"""What every fit works on and hands back, below the algorithms that use it.

:class:`Problem` is the standardised training data on the fit's device; :class:`Solution` is what an
algorithm's ``_fit`` returns; :class:`Reporter` carries progress and stop requests; the helpers
(:mod:`sal_core.lambda_selection`, :mod:`sal_core.exact_selection`, :mod:`sal_core.deep_sal`,
:mod:`sal_core.robust_gradient`) import these from here, never from ``sal_core.algorithms``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from sal_core.history import Round
from sal_core.losses import LossName, Task, pointwise_loss
from sal_core.models import ModelSpec

if TYPE_CHECKING:  # lambda_selection builds on Problem
    from sal_core.lambda_selection import FitSelection

RoundMetrics = Mapping[str, float | Sequence[float]]
"""One outer round's numbers: ``{"risk": r}``, and for SAL ``"w"``, the covariate weights (p,)."""
ProgressCallback = Callable[[int, int, RoundMetrics], bool | None]
"""Called as ``progress(step, total, metrics)`` after each outer round; returning True stops the fit."""


@dataclass
class EnvTensors:
    name: str
    Z: torch.Tensor  # (n_e, p), standardised
    y: torch.Tensor  # (n_e,)


@dataclass
class Problem:
    """Standardised training data on the fit's device, with the task's loss and model family."""

    envs: list[EnvTensors]
    Z: torch.Tensor  # (n, p) pooled
    y: torch.Tensor  # (n,)
    env_index: torch.Tensor  # (n,) int64, row -> environment
    task: Task
    loss_name: LossName
    model_spec: ModelSpec
    generator: torch.Generator
    seed: int
    row_keys: NDArray[np.uint64] | None = None  # (n,) content hash per row (cross_fit.row_keys)

    @property
    def n_features(self) -> int:
        return int(self.Z.shape[1])

    @property
    def n_envs(self) -> int:
        return len(self.envs)

    @property
    def env_counts(self) -> torch.Tensor:
        return torch.bincount(self.env_index, minlength=self.n_envs).to(self.Z.dtype)

    def by_env(
        self, values: torch.Tensor | NDArray[np.floating[Any]] | Sequence[float], scale: float = 1.0
    ) -> dict[str, float]:
        """``{environment name: value × scale}`` of one value per training environment, in ``envs``
        order (a round's ``env_losses``)."""
        listed = values.tolist() if isinstance(values, torch.Tensor | np.ndarray) else values
        return {e.name: float(v) * scale for e, v in zip(self.envs, listed, strict=True)}

    def new_model(self) -> nn.Module:
        if not self.model_spec.is_linear:  # linear models start at zero; only MLPs draw weights
            torch.manual_seed(self.seed)
        return self.model_spec.build(self.n_features).to(device=self.Z.device, dtype=self.Z.dtype)

    def loss(self, output: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """Per-row loss (n,)."""
        return pointwise_loss(self.loss_name, output, y)

    def env_means(self, per_row: torch.Tensor) -> torch.Tensor:
        """Average a per-row quantity within each environment: (n,) -> (E,)."""
        sums = torch.zeros(self.n_envs, dtype=per_row.dtype, device=per_row.device)
        sums = sums.index_add(0, self.env_index, per_row)
        return sums / self.env_counts

    def env_losses(self, model: nn.Module) -> torch.Tensor:
        """Training loss per environment (E,)."""
        return self.env_means(self.loss(model(self.Z), self.y))


@dataclass(frozen=True)
class Certificate:
    """Theorem 1: the worst case found lies at transport cost ``rho_hat`` from the training data,
    and ``worst_case_risk`` = E[s_λ] + λ·ρ̂ bounds the risk over that whole Wasserstein ball."""

    rho_hat: float
    worst_case_risk: float
    lambda_: float


@dataclass
class Solution:
    """What ``_fit`` returns: the trained module (standardised inputs) and what was learned."""

    model: nn.Module
    covariate_weights: torch.Tensor | None = None
    history: Sequence[Round] = field(default_factory=list)  # one per outer round
    certificate: Certificate | None = None
    stopped: bool = False
    selection: FitSelection | None = None  # how a hyper-parameter set to "auto" was chosen


class Reporter:
    """Forwards progress to the user's callback and remembers whether a stop was asked for."""

    def __init__(self, callback: ProgressCallback | None, total: int) -> None:
        self._callback = callback
        self.total = total
        self.stop_requested = False

    def __call__(self, step: int, metrics: RoundMetrics | None = None) -> bool:
        if self._callback is not None and self._callback(step, self.total, dict(metrics or {})):
            self.stop_requested = True
        return self.stop_requested
