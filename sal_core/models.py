"""Model families: a linear model with intercept and a multi-layer perceptron."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import torch
from torch import nn

from sal_core.exceptions import InvalidParameterError

ModelKind = Literal["linear", "mlp"]
Activation = Literal["relu", "tanh", "gelu"]
_ACTIVATIONS: dict[str, type[nn.Module]] = {"relu": nn.ReLU, "tanh": nn.Tanh, "gelu": nn.GELU}
# Bounds on an MLP: wider or deeper nets are beyond what these tabular fits need, and a width of
# 10^12 would only fail later, allocating in the worker.
MAX_HIDDEN_WIDTH = 4096
MAX_HIDDEN_LAYERS = 16


@dataclass(frozen=True)
class ModelSpec:
    """Which function class to fit. ``hidden`` and ``activation`` apply to ``kind="mlp"`` only."""

    kind: ModelKind = "linear"
    hidden: tuple[int, ...] = (64,)
    activation: Activation = "relu"

    def __post_init__(self) -> None:
        if self.kind not in ("linear", "mlp"):
            raise InvalidParameterError(
                f"model kind must be 'linear' or 'mlp', got {self.kind!r}", field="model.kind"
            )
        hidden = tuple(self.hidden)
        if self.kind == "mlp" and (
            not hidden or any(not isinstance(h, int) or isinstance(h, bool) or h < 1 for h in hidden)
        ):
            raise InvalidParameterError(
                "model.hidden must be a non-empty list of positive integers", field="model.hidden"
            )
        if self.kind == "mlp" and (len(hidden) > MAX_HIDDEN_LAYERS or max(hidden) > MAX_HIDDEN_WIDTH):
            raise InvalidParameterError(
                f"model.hidden allows at most {MAX_HIDDEN_LAYERS} layers of at most {MAX_HIDDEN_WIDTH} units",
                field="model.hidden",
            )
        if self.activation not in _ACTIVATIONS:
            raise InvalidParameterError(
                f"activation must be one of {sorted(_ACTIVATIONS)}", field="model.activation"
            )
        object.__setattr__(self, "hidden", hidden)

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any] | None) -> ModelSpec:
        values = dict(values or {})
        unknown = sorted(set(values) - {"kind", "hidden", "activation"})
        if unknown:
            raise InvalidParameterError(f"unknown model option(s) {unknown}", field=f"model.{unknown[0]}")
        if "hidden" in values:
            if not isinstance(values["hidden"], list | tuple):
                raise InvalidParameterError("model.hidden must be a list", field="model.hidden")
            values["hidden"] = tuple(values["hidden"])
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        if self.kind == "linear":
            return {"kind": "linear"}
        return {"kind": "mlp", "hidden": list(self.hidden), "activation": self.activation}

    @property
    def is_linear(self) -> bool:
        return self.kind == "linear"

    def build(self, n_features: int) -> nn.Module:
        """A fresh module mapping (n, p) inputs to (n,) outputs (prediction or logit)."""
        if self.kind == "linear":
            return LinearModel(n_features)
        layers: list[nn.Module] = []
        width = n_features
        for h in self.hidden:
            layers += [nn.Linear(width, h), _ACTIVATIONS[self.activation]()]
            width = h
        layers.append(nn.Linear(width, 1))
        return _Squeeze(nn.Sequential(*layers))


class LinearModel(nn.Module):
    """θᵀz + b. Starts at zero so fits do not depend on initialisation."""

    def __init__(self, n_features: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(n_features))
        self.bias = nn.Parameter(torch.zeros(()))

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        return z @ self.weight + self.bias


class _Squeeze(nn.Module):
    def __init__(self, net: nn.Module) -> None:
        super().__init__()
        self.net = net

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.net(z).squeeze(-1)
        return out
