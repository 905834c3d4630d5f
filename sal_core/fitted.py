"""A trained model with its standardisation: everything needed to predict on raw covariates."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from sal_core.data import FloatArray, Standardizer
from sal_core.losses import Task
from sal_core.models import ModelSpec


@dataclass(frozen=True)
class FittedModel:
    """A trained model with its standardisation: everything needed to predict on raw covariates."""

    task: Task
    model_spec: ModelSpec
    feature_names: tuple[str, ...]
    standardizer: Standardizer
    state: dict[str, torch.Tensor]
    covariate_weights: FloatArray | None = None

    def module(self) -> nn.Module:
        net = self.model_spec.build(len(self.feature_names)).to(torch.float64)
        net.load_state_dict({k: v.to(torch.float64) for k, v in self.state.items()})
        return net.eval()

    def decision_function(self, X: FloatArray) -> FloatArray:
        """Prediction (regression) or logit (classification) per row: (n, p) -> (n,)."""
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != len(self.feature_names):
            raise ValueError(f"X must have shape (n, {len(self.feature_names)}), got {X.shape}")
        z = torch.from_numpy(self.standardizer.transform(X))
        with torch.no_grad():
            out: FloatArray = self.module()(z).numpy()
        return out

    def predict_proba(self, X: FloatArray) -> FloatArray:
        """P(y = 1) per row (classification only)."""
        if self.task != "classification":
            raise ValueError("predict_proba applies to classification models only")
        return 1.0 / (1.0 + np.exp(-self.decision_function(X)))

    def predict(self, X: FloatArray) -> FloatArray:
        """Prediction (regression) or label in {0, 1} (classification) per row."""
        out = self.decision_function(X)
        if self.task == "classification":
            return (out >= 0.0).astype(np.float64)
        return out

    def linear_coefficients(self) -> tuple[FloatArray, float] | None:
        """(θ, b) on standardised covariates for a linear model, else None."""
        if not self.model_spec.is_linear:
            return None
        return self.state["weight"].double().numpy().copy(), float(self.state["bias"])

    def to_tensors(self) -> tuple[dict[str, torch.Tensor], dict[str, str]]:
        """Flat tensors and string metadata, the layout of the safetensors download."""
        import json

        tensors = {f"model.{k}": v.contiguous() for k, v in self.state.items()}
        tensors["standardizer.mean"] = torch.from_numpy(self.standardizer.mean.copy())
        tensors["standardizer.scale"] = torch.from_numpy(self.standardizer.scale.copy())
        if self.covariate_weights is not None:
            tensors["covariate_weights"] = torch.from_numpy(
                np.asarray(self.covariate_weights, dtype=np.float64)
            )
        metadata = {
            "task": self.task,
            "model": json.dumps(self.model_spec.to_dict()),
            "feature_names": json.dumps(list(self.feature_names)),
        }
        return tensors, metadata

    @classmethod
    def from_tensors(cls, tensors: Mapping[str, torch.Tensor], metadata: Mapping[str, str]) -> FittedModel:
        import json

        state = {k[len("model.") :]: v for k, v in tensors.items() if k.startswith("model.")}
        w = tensors.get("covariate_weights")
        return cls(
            task=metadata["task"],  # type: ignore[arg-type]
            model_spec=ModelSpec.from_mapping(json.loads(metadata["model"])),
            feature_names=tuple(json.loads(metadata["feature_names"])),
            standardizer=Standardizer(
                mean=tensors["standardizer.mean"].double().numpy(),
                scale=tensors["standardizer.scale"].double().numpy(),
            ),
            state=dict(state),
            covariate_weights=None if w is None else w.double().numpy(),
        )
