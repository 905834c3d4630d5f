"""Pointwise losses. Each maps (prediction or logit (n,), target (n,)) to a loss per row (n,)."""

from __future__ import annotations

from typing import Literal

import torch
import torch.nn.functional as F

from sal_core.exceptions import InvalidParameterError

Task = Literal["regression", "classification"]
LossName = Literal["squared", "absolute", "logistic"]

_TASK_LOSSES: dict[str, tuple[str, ...]] = {
    "regression": ("squared", "absolute"),
    "classification": ("logistic",),
}


def resolve_loss(task: str, loss: str | None) -> LossName:
    """The loss to use for ``task``: the default when ``loss`` is None, else a checked choice."""
    if task not in _TASK_LOSSES:
        raise InvalidParameterError(
            f"task must be 'regression' or 'classification', got {task!r}", field="task"
        )
    allowed = _TASK_LOSSES[task]
    if loss is None:
        return allowed[0]  # type: ignore[return-value]
    if loss not in allowed:
        raise InvalidParameterError(
            f"loss {loss!r} does not apply to {task}; use one of {list(allowed)}", field="loss"
        )
    return loss  # type: ignore[return-value]


def pointwise_loss(name: LossName, output: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    if name == "squared":
        return (y - output) ** 2
    if name == "absolute":
        return (y - output).abs()
    # Logistic loss on a logit with labels in {0, 1}; numerically stable form.
    return F.softplus(output) - y * output


def output_derivatives(
    name: LossName, output: torch.Tensor, y: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """ℓ' and ℓ'' in the output per row (n,), in closed form: no second backward pass."""
    out = output.detach()
    if name == "squared":
        return 2.0 * (out - y), torch.full_like(out, 2.0)
    if name == "absolute":
        return torch.sign(out - y), torch.zeros_like(out)
    p = torch.sigmoid(out)
    return p - y, p * (1.0 - p)
