"""Metric formulas against values worked out by hand, and the paper's Mean_Error / Std_Error."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from sal_core import Environment, Standardizer, get_algorithm
from sal_core.exceptions import InvalidDataError, InvalidParameterError
from sal_core.metrics import (
    Summary,
    classification_metrics,
    environment_metrics,
    error_of,
    evaluate,
    paired_difference,
    regression_metrics,
    summarize,
    summary_metric,
)


def test_regression_metrics_by_hand() -> None:
    # Residuals 1, -2, 0, 3: squares 1, 4, 0, 9 (mean 3.5); absolutes 1, 2, 0, 3 (mean 1.5).
    m = regression_metrics([1.0, 0.0, 2.0, 5.0], [0.0, 2.0, 2.0, 2.0])
    assert m == pytest.approx({"mse": 3.5, "rmse": math.sqrt(3.5), "mae": 1.5})


def test_classification_metrics_by_hand() -> None:
    y = [1.0, 0.0, 1.0, 0.0]
    p = [0.9, 0.2, 0.4, 0.5]
    m = classification_metrics(y, p)
    log_loss = -(math.log(0.9) + math.log(0.8) + math.log(0.4) + math.log(0.5)) / 4
    # p >= 0.5 predicts 1: predictions 1, 0, 0, 1 -> rows 1 and 2 right.
    assert m["log_loss"] == pytest.approx(log_loss)
    assert m["accuracy"] == pytest.approx(0.5)
    assert m["confidence"] == pytest.approx((0.9 + 0.8 + 0.6 + 0.5) / 4)


def test_log_loss_is_finite_for_a_certain_mistake() -> None:
    m = classification_metrics([1.0, 0.0], [0.0, 0.0])
    assert math.isfinite(m["log_loss"]) and m["log_loss"] > 10
    assert m["accuracy"] == 0.5 and m["confidence"] == 1.0


def test_metric_inputs_are_checked() -> None:
    with pytest.raises(InvalidDataError, match="rows"):
        regression_metrics([1.0, 2.0], [1.0])
    with pytest.raises(InvalidDataError, match="0 or 1"):
        classification_metrics([2.0], [0.5])
    with pytest.raises(InvalidDataError, match=r"\[0, 1\]"):
        classification_metrics([1.0], [1.5])


def test_summarize_uses_the_sample_standard_deviation() -> None:
    s = summarize({"a": 1.0, "b": 2.0, "c": 4.0}, "rmse")
    # Mean 7/3; squared deviations 16/9, 1/9, 25/9 sum to 42/9; divided by |E| - 1 = 2.
    assert s == Summary("rmse", pytest.approx(7 / 3), pytest.approx(math.sqrt(21 / 9)), 4.0, "c")
    assert s.std_error != pytest.approx(np.std([1.0, 2.0, 4.0]))  # not the population std
    assert summarize({"only": 0.3}, "rmse").std_error == 0.0
    with pytest.raises(InvalidDataError):
        summarize({}, "rmse")


def test_summary_metric_and_error_of() -> None:
    assert summary_metric("regression") == "rmse"
    assert summary_metric("classification") == "error_rate"
    assert error_of({"accuracy": 0.8, "log_loss": 0.4}, "error_rate") == pytest.approx(0.2)
    assert error_of({"mse": 2.0, "rmse": 1.4}, "mse") == 2.0
    with pytest.raises(InvalidParameterError):
        error_of({"mse": 2.0}, "rmse")
    with pytest.raises(InvalidParameterError):
        error_of({"accuracy": 0.8}, "accuracy")
    with pytest.raises(InvalidParameterError):
        summary_metric("ranking")


def _envs(task: str) -> list[Environment]:
    rng = np.random.default_rng(0)
    envs = []
    for name, shift in (("a", 0.0), ("b", 2.0), ("c", -1.0)):
        X = rng.normal(shift, 1.0, (50, 2))
        signal = X[:, 0] - X[:, 1] + rng.normal(0.0, 0.5, 50)
        envs.append(Environment(name, X, (signal > 0).astype(float) if task == "classification" else signal))
    return envs


def test_evaluate_regression_matches_the_formulas() -> None:
    envs = _envs("regression")
    fit = get_algorithm("erm")().fit(envs[:2])
    per_env, summary = evaluate(fit.model, envs)
    assert list(per_env) == ["a", "b", "c"]
    rmse = [math.sqrt(np.mean((fit.predict(e.X) - e.y) ** 2)) for e in envs]
    assert [per_env[e.name]["rmse"] for e in envs] == pytest.approx(rmse)
    assert summary.metric == "rmse"
    assert summary.mean_error == pytest.approx(np.mean(rmse))
    assert summary.std_error == pytest.approx(np.std(rmse, ddof=1))
    assert summary.worst_environment == envs[int(np.argmax(rmse))].name
    _, mae = evaluate(fit.model, envs, metric="mae")
    assert mae.metric == "mae" and mae.mean_error != summary.mean_error


def test_evaluate_classification_reports_error_rate() -> None:
    envs = _envs("classification")
    fit = get_algorithm("erm")({"steps": 200}, task="classification").fit(envs[:2])
    per_env, summary = evaluate(fit.model, envs)
    assert set(per_env["a"]) == {"log_loss", "accuracy", "confidence"}
    errors = [1.0 - np.mean(fit.predict(e.X) == e.y) for e in envs]
    assert summary.metric == "error_rate"
    assert summary.mean_error == pytest.approx(np.mean(errors))
    assert environment_metrics(fit.model, envs[0]) == per_env["a"]


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_standardizer_from_device_tensors_matches_numpy(dtype: torch.dtype) -> None:
    """fit() standardises where the rows are (fit_tensors); the statistics are numpy's to rounding,
    accumulated in float64 even for float32 rows, and a constant covariate keeps scale 1."""
    rng = np.random.default_rng(0)
    Xs = [rng.normal(3.0, 2.0, (1000, 5)), rng.normal(-1.0, 5.0, (300, 5))]
    for X in Xs:
        X[:, 2] = 7.0
    reference = Standardizer.fit(np.concatenate(Xs))
    got = Standardizer.fit_tensors([torch.as_tensor(X, dtype=dtype) for X in Xs])
    tol = 1e-12 if dtype == torch.float64 else 1e-6
    np.testing.assert_allclose(got.mean, reference.mean, rtol=tol, atol=tol)
    np.testing.assert_allclose(got.scale, reference.scale, rtol=tol)
    assert got.scale[2] == 1.0


def _mean_error(model: object, envs: list[Environment]) -> float:
    return evaluate(model, envs)[1].mean_error  # type: ignore[arg-type]


@pytest.mark.parametrize("task", ["regression", "classification"])
def test_the_paired_difference_is_the_mean_errors_difference_with_a_bootstrap_sized_error(task: str) -> None:
    """``paired_difference`` gives exactly Mean_Error(SAL) − Mean_Error(ERM) over the environments, and a
    standard error that a bootstrap over each environment's rows reproduces within 15%; a model
    against itself differs by 0 ± 0."""
    from sal_core.synthetic import selection_bias

    s = selection_bias(n=600, task=task, seed=3, n_test=400)
    sal = get_algorithm("sal")({"lambda_": 0.01}, task=task, seed=0).fit(s.train).model
    erm = get_algorithm("erm")(task=task, seed=0).fit(s.train).model
    found = paired_difference(sal, erm, s.test)
    assert found.metric == summary_metric(task)
    assert found.difference == pytest.approx(_mean_error(sal, s.test) - _mean_error(erm, s.test), abs=1e-12)
    assert found.standard_error > 0
    assert found.reference_error == pytest.approx(_mean_error(erm, s.test), abs=1e-12)
    rng = np.random.default_rng(0)
    draws = []
    for _ in range(400):
        rows = [
            Environment(e.name, e.X[i], e.y[i]) for e in s.test for i in [rng.integers(0, e.n_rows, e.n_rows)]
        ]
        draws.append(_mean_error(sal, rows) - _mean_error(erm, rows))
    assert float(np.std(draws)) == pytest.approx(found.standard_error, rel=0.15)
    same = paired_difference(erm, erm, s.test)
    assert (same.difference, same.standard_error) == (0.0, 0.0)


def test_a_paired_difference_needs_one_task_and_some_environments() -> None:
    from sal_core.synthetic import selection_bias

    reg = selection_bias(n=300, seed=1, n_test=100)
    clf = selection_bias(n=300, task="classification", seed=1, n_test=100)
    a = get_algorithm("erm")(seed=0).fit(reg.train).model
    b = get_algorithm("erm")(task="classification", seed=0).fit(clf.train).model
    with pytest.raises(InvalidParameterError, match="classification"):
        paired_difference(a, b, reg.test)
    with pytest.raises(InvalidDataError, match="no environments"):
        paired_difference(a, a, [])


def test_a_paired_rmse_difference_holds_where_a_model_predicts_an_environment_exactly() -> None:
    """An environment where a model's residuals are all 0 (a target constant there, fitted exactly)
    adds nothing to that model's share of the noise, instead of dividing by its RMSE of 0: the
    comparison stays finite, equal to the Mean_Errors' difference, with the other environments'
    noise alone (before, such an environment overflowed to NaN and the job lost its reference)."""
    from sal_core.metrics import paired_rmse_difference

    rng = np.random.default_rng(0)
    r, s = rng.normal(0.0, 1.0, 50), rng.normal(0.0, 1.2, 50)  # residuals in a noisy environment

    def sums(res: np.ndarray, ref: np.ndarray) -> list[float]:
        return [
            res.size,
            (res**2).sum(),
            (res**4).sum(),
            (ref**2).sum(),
            (ref**4).sum(),
            (res**2 * ref**2).sum(),
        ]

    noisy = sums(r, s)
    exact_both = sums(np.zeros(30), np.zeros(30))
    exact_one = sums(np.zeros(30), rng.normal(0.0, 0.5, 30))
    alone = paired_rmse_difference(*(np.array([v]) for v in noisy))
    for exact in (exact_both, exact_one):
        found = paired_rmse_difference(*(np.array(c) for c in zip(noisy, exact, strict=True)))
        rmse = [
            np.sqrt(noisy[1] / 50) - np.sqrt(noisy[3] / 50),
            np.sqrt(exact[1] / 30) - np.sqrt(exact[3] / 30),
        ]
        assert np.isfinite([found.difference, found.standard_error, found.reference_error]).all()
        assert found.difference == pytest.approx(np.mean(rmse), abs=1e-12)
        assert found.standard_error >= alone.standard_error / 2 - 1e-15
    both = paired_rmse_difference(*(np.array(c) for c in zip(noisy, exact_both, strict=True)))
    assert both.standard_error == pytest.approx(alone.standard_error / 2, rel=1e-12)
