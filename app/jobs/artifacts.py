"""A fitted model as bytes: safetensors (tensors + string metadata), never pickle.

Load a downloaded file with::

    from safetensors import safe_open
    from sal_core import FittedModel

    with safe_open("model.safetensors", framework="pt") as f:
        model = FittedModel.from_tensors({k: f.get_tensor(k) for k in f.keys()}, f.metadata())
    model.predict(X)  # X: (n, p) in the dataset's original units, columns in feature_names order
"""

from __future__ import annotations

import json
from typing import Any

from safetensors.torch import load as st_load
from safetensors.torch import save as st_save

from app.jobs.result import JobResult
from sal_core import FittedModel

FORMAT_VERSION = "1"


def pack(model: FittedModel, metadata: dict[str, str]) -> bytes:
    tensors, meta = model.to_tensors()
    return st_save(tensors, metadata={**meta, **metadata, "format_version": FORMAT_VERSION})


def metadata_of(data: bytes) -> dict[str, str]:
    n = int.from_bytes(data[:8], "little")
    return dict(json.loads(data[8 : 8 + n]).get("__metadata__", {}))


def unpack(data: bytes) -> FittedModel:
    return FittedModel.from_tensors(st_load(data), metadata_of(data))


def to_json(model: FittedModel, metadata: dict[str, str], result: JobResult | None) -> dict[str, Any]:
    """The same model as plain JSON: parameters, standardisation and what was learned."""
    return {
        "format_version": FORMAT_VERSION,
        "job_id": metadata.get("job_id"),
        "algorithm": metadata.get("algorithm"),
        "task": model.task,
        "model": model.model_spec.to_dict(),
        "feature_names": list(model.feature_names),
        "standardizer": {
            "mean": model.standardizer.mean.tolist(),
            "scale": model.standardizer.scale.tolist(),
        },
        "state": {k: v.tolist() for k, v in model.state.items()},
        "coefficients": None if result is None else result.coefficients,
        "intercept": None if result is None else result.intercept,
        "covariate_weights": None if result is None else result.covariate_weights,
    }
