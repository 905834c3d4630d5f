"""One parametrised contract test over every registered algorithm (the DomainBed habit)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from sal_core import ALGORITHMS, Environment, InvalidDataError, InvalidParameterError, get_algorithm
from sal_core.algorithms.base import FittedModel
from sal_core.exceptions import UnknownAlgorithmError

# Small budgets keep the contract test fast; the numerical tests use the defaults.
FAST = {
    "erm": {"steps": 60},
    "ridge": {},
    "lasso": {},
    "irm": {"steps": 60},
    "wdrl": {"theta_steps": 40},
    "sal": {"rounds": 4, "theta_steps": 10, "ascent_steps": 3},
}
NAMES = sorted(ALGORITHMS)


def _fast(name: str) -> dict[str, object]:
    known = {f.name for f in dataclasses.fields(get_algorithm(name).params_type)}
    return {k: v for k, v in FAST.get(name, {}).items() if k in known}


def _environments(task: str, seed: int = 0, p: int = 4) -> list[Environment]:
    rng = np.random.default_rng(seed)
    envs = []
    for i, (n, slope) in enumerate([(120, 1.0), (60, -1.0)]):
        X = rng.normal(size=(n, p)) * 3.0 + 1.0
        signal = X[:, 0] - 0.5 * X[:, 1] + slope * X[:, 2] * 0.3 + rng.normal(size=n)
        y = (signal > 0.5).astype(float) if task == "classification" else signal
        envs.append(Environment(f"e{i}", X, y))
    return envs


def test_registry_holds_the_six_public_algorithms() -> None:
    assert set(ALGORITHMS) >= {"erm", "wdrl", "sal"}
    with pytest.raises(UnknownAlgorithmError):
        get_algorithm("nope")


@pytest.mark.parametrize("task", ["regression", "classification"])
@pytest.mark.parametrize("name", NAMES)
def test_fit_predict_shapes_and_determinism(name: str, task: str) -> None:
    cls = get_algorithm(name)
    envs = _environments(task)
    first = cls(_fast(name), task=task, seed=3).fit(envs, feature_names=["a", "b", "c", "d"])
    second = cls(_fast(name), task=task, seed=3).fit(envs, feature_names=["a", "b", "c", "d"])
    X_new = np.random.default_rng(9).normal(size=(7, 4))
    pred = first.predict(X_new)
    assert pred.shape == (7,)
    np.testing.assert_array_equal(pred, second.predict(X_new))
    assert first.feature_names == ("a", "b", "c", "d")
    if task == "classification":
        assert set(np.unique(pred)) <= {0.0, 1.0}
        proba = first.model.predict_proba(X_new)
        assert proba.shape == (7,) and np.all((proba >= 0) & (proba <= 1))
    assert first.coefficients is not None and first.coefficients.shape == (4,)
    # Original-unit coefficients reproduce the standardised model's predictions.
    linear = X_new @ first.coefficients_original + first.intercept_original
    np.testing.assert_allclose(linear, first.model.decision_function(X_new), rtol=1e-9, atol=1e-9)
    assert first.history, "every fit records at least one round"


@pytest.mark.parametrize("name", NAMES)
def test_weights_round_trip_through_tensors(name: str) -> None:
    fit = get_algorithm(name)(_fast(name), seed=1).fit(_environments("regression"))
    tensors, metadata = fit.model.to_tensors()
    loaded = FittedModel.from_tensors(tensors, metadata)
    X_new = np.random.default_rng(2).normal(size=(5, 4))
    np.testing.assert_array_equal(loaded.predict(X_new), fit.predict(X_new))


@pytest.mark.parametrize("name", NAMES)
def test_bad_parameters_are_rejected_naming_the_field(name: str) -> None:
    """``check_params`` (what the API runs before it queues a job) and ``fit`` refuse a bad
    parameter naming it; the constructor only stores it (scikit-learn's contract)."""
    cls = get_algorithm(name)
    envs = _environments("regression")

    def rejected(params: dict[str, object]) -> InvalidParameterError:
        with pytest.raises(InvalidParameterError) as checked:
            cls.check_params(params)
        algorithm = cls(params)  # stored, not checked
        assert algorithm.given_params == params
        with pytest.raises(InvalidParameterError) as fitted:
            algorithm.fit(envs)
        assert fitted.value.field == checked.value.field
        return checked.value

    assert rejected({"no_such_param": 1}).field == "params.no_such_param"
    for spec in cls.params_type.describe():
        assert spec.doc, f"{name}.{spec.name} has no documentation"
        if spec.low is not None:
            assert rejected({spec.name: spec.low - 1}).field == f"params.{spec.name}"
        if spec.choices is not None:
            rejected({spec.name: "not-a-choice"})


@pytest.mark.parametrize("name", NAMES)
def test_a_bad_configuration_is_stored_and_refused_by_fit(name: str) -> None:
    cls = get_algorithm(name)
    envs = _environments("regression")
    for kwargs, field in (
        ({"task": "ranking"}, "task"),
        ({"model": {"kind": "tree"}}, "model.kind"),
        ({"seed": 1.5}, "seed"),
        ({"dtype": "float16"}, "dtype"),
    ):
        algorithm = cls(_fast(name), **kwargs)  # type: ignore[arg-type]
        with pytest.raises(InvalidParameterError) as error:
            algorithm.fit(envs)
        assert error.value.field == field, kwargs


@pytest.mark.parametrize("name", NAMES)
def test_bad_data_is_rejected_naming_the_problem(name: str) -> None:
    cls = get_algorithm(name)
    envs = _environments("regression")
    X_nan = envs[0].X.copy()
    X_nan[3, 1] = np.nan
    with pytest.raises(InvalidDataError, match="NaN"):
        cls(_fast(name)).fit([Environment("e0", X_nan, envs[0].y), envs[1]])
    with pytest.raises(InvalidDataError, match="shape"):
        cls(_fast(name)).fit([Environment("e0", envs[0].X, envs[0].y[:-1]), envs[1]])
    with pytest.raises(InvalidDataError, match="at least 2 rows"):
        cls(_fast(name)).fit([Environment("e0", envs[0].X[:1], envs[0].y[:1]), envs[1]])
    with pytest.raises(InvalidDataError, match="0 or 1"):
        cls(_fast(name), task="classification").fit(envs)
    zeros = [Environment(e.name, e.X, np.zeros_like(e.y)) for e in envs]
    with pytest.raises(
        InvalidDataError, match="both labels among the training rows; every one is 0"
    ) as error:
        cls(_fast(name), task="classification").fit(zeros)
    assert error.value.field == "environments"
    if cls.min_environments >= 2:
        with pytest.raises(InvalidDataError, match="at least 2 training environments"):
            cls(_fast(name)).fit(envs[:1])


@pytest.mark.parametrize("name", NAMES)
def test_progress_reports_and_can_stop_the_fit(name: str) -> None:
    seen: list[tuple[int, int]] = []

    def progress(step: int, total: int, metrics: object) -> bool:
        seen.append((step, total))
        return True

    fit = get_algorithm(name)(_fast(name)).fit(_environments("regression"), progress=progress)
    assert seen and seen[0][0] == 1 and seen[0][1] >= 1
    assert len(seen) == 1, "a stop request ends the fit at the next checkpoint"
    assert fit.stopped == (seen[0][1] > 1) or fit.stopped


@pytest.mark.parametrize("name", [n for n in NAMES if n not in ("ridge", "lasso")])
def test_mlp_models_fit(name: str) -> None:
    cls = get_algorithm(name)
    fit = cls(_fast(name), model={"kind": "mlp", "hidden": [8]}, seed=0).fit(_environments("regression"))
    assert fit.coefficients is None
    assert fit.predict(np.zeros((3, 4))).shape == (3,)


@pytest.mark.parametrize("name", NAMES)
def test_init_stores_the_device_and_fit_resolves_it(name: str) -> None:
    """scikit-learn's contract for the device: ``__init__`` keeps what was asked, ``fit`` resolves
    it once (a device this machine lacks fails there, naming the field)."""
    import torch

    algorithm = get_algorithm(name)(_fast(name), device="auto")
    assert algorithm.device == "auto" and algorithm._resolved_device is None  # nothing resolved yet
    fit = algorithm.fit(_environments("regression"))
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert algorithm.device_.type == expected and fit.device == str(algorithm.device_)
    if not torch.cuda.is_available():
        asked = get_algorithm(name)(_fast(name), device="cuda")  # stored, not checked
        with pytest.raises(InvalidParameterError) as error:
            asked.fit(_environments("regression"))
        assert error.value.field == "device"
