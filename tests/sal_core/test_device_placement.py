"""Every tensor a fit makes lies on the fit's device, checked without a GPU.

On a GPU, a tensor made without ``device=`` lands on the CPU, and the first operation that mixes it
with the fit's tensors fails. That is how SAL at defaults failed on CUDA from 2026-11-28 to 2026-12-04
(the constant prediction every candidate is compared with, ``lambda_selection.constant_model``),
unseen because no session had a GPU. Here the default device is torch's meta device (tensors
without data) while the fit runs on the CPU: a tensor made without ``device=`` then lands on meta,
and mixing it with the fit's CPU tensors fails the same way. Modules are built where the library
builds them, then moved (``Problem.new_model``), so ``ModelSpec.build`` runs on the CPU here, as
it does before every move to a GPU.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
import torch
from torch import nn

from sal_core import exact_batch as eb
from sal_core import exact_torch as et
from sal_core import get_algorithm
from sal_core import lambda_selection as ls
from sal_core.models import ModelSpec
from sal_core.synthetic import selection_bias

MLP = {"kind": "mlp", "hidden": [16], "activation": "relu"}
LINEAR = {"kind": "linear"}
CASES = [
    *[(name, LINEAR, "regression") for name in ("erm", "irm", "wdrl", "sal", "ridge", "lasso")],
    *[(name, LINEAR, "classification") for name in ("erm", "irm", "wdrl", "sal")],
    ("erm", MLP, "regression"),
    ("sal", MLP, "regression"),
    ("sal", MLP, "classification"),
]


@pytest.fixture
def stray_tensors_on_meta(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    build = ModelSpec.build

    def build_on_the_cpu(self: ModelSpec, n_features: int) -> nn.Module:
        with torch.device("cpu"):
            return build(self, n_features)

    monkeypatch.setattr(ModelSpec, "build", build_on_the_cpu)
    torch.set_default_device("meta")
    try:
        yield
    finally:
        torch.set_default_device(None)


def _train(task: str) -> list:  # type: ignore[type-arg]
    return selection_bias(r=1.7, n=300, p=6, seed=0, n_test=2, test_rs=(2.0,), task=task).train


@pytest.mark.parametrize(("algorithm", "model", "task"), CASES)
@pytest.mark.usefixtures("stray_tensors_on_meta")
def test_a_fit_makes_its_tensors_on_its_device(algorithm: str, model: dict[str, object], task: str) -> None:
    fit = get_algorithm(algorithm)(model=model, task=task, seed=0, device="cpu").fit(_train(task))
    X = np.concatenate([e.X for e in _train(task)])
    assert np.isfinite(fit.model.decision_function(X)).all()


@pytest.mark.usefixtures("stray_tensors_on_meta")
def test_the_check_catches_a_tensor_made_without_a_device(monkeypatch: pytest.MonkeyPatch) -> None:
    """The constant prediction as it was before 2026-12-04: the fit fails here as it did on CUDA."""
    monkeypatch.setattr(
        ls, "constant_model", lambda value: lambda Z: torch.full(Z.shape[:1], value, dtype=Z.dtype)
    )
    with pytest.raises((RuntimeError, NotImplementedError)):
        get_algorithm("sal")(model=MLP, seed=0, device="cpu").fit(_train("regression"))


@pytest.mark.usefixtures("stray_tensors_on_meta")
def test_the_torch_w_paths_make_their_tensors_on_their_device() -> None:
    rng = np.random.default_rng(0)
    b, e, p, n = 3, 2, 12, 200
    X = rng.normal(size=(e, n, p))
    y = X[:, :, :6].sum(2) + rng.normal(size=(e, n))
    env_gram = np.einsum("eni,enj->eij", X, X) / n
    env_cross = np.einsum("eni,en->ei", X, y) / n
    env_yy = (y * y).mean(1)
    m = eb.BatchMoments(
        np.repeat(env_gram.mean(0)[None], b, 0), np.repeat(env_cross.mean(0)[None], b, 0),
        np.full(b, env_yy.mean()), np.repeat(env_gram[None], b, 0), np.repeat(env_cross[None], b, 0),
        np.repeat(env_yy[None], b, 0),
    )  # fmt: skip
    settings = eb.PathSettings(rounds=20, lr=0.1, w_max=1e4, alpha=0.5, stability="range")
    lam = np.array([1e-3, 1e-2, 1e-1]) * float(env_yy.mean())
    out = et.run_paths(m, lam, np.ones((b, p)), settings, device=torch.device("cpu"), record=True)
    assert np.isfinite(out.w).all() and out.risks.shape == (20, b)
