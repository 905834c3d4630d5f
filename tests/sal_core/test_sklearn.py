"""sal_core.sklearn: the generated estimators against scikit-learn's own contract and tools.

check_estimator runs for real on every generated estimator. SAL and IRM need at least two
environments, and none of check_estimator's checks passes environment labels, so for those two the
test asserts that every check that fails does so only because fit refuses rows without labels.
"""

from __future__ import annotations

import dataclasses
import pickle
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, LeaveOneGroupOut
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import check_estimator

from sal_core import ALGORITHMS, Environment, get_algorithm
from sal_core import sklearn as sal_sklearn
from sal_core.sklearn import (
    CLASSIFIERS,
    REGRESSORS,
    EnvironmentWarning,
    LassoRegressor,
    RidgeRegressor,
    SALClassifier,
    SALRegressor,
    WDRLClassifier,
)

ENV_LABELS_ERROR = "needs environment labels"


def table(seed: int = 0, n_per_env: int = 60, binary: bool = False) -> pd.DataFrame:
    """Four sites: y depends on x1, x2 stably; x3 tracks y with a sign and strength that change by site."""
    rng = np.random.default_rng(seed)
    parts = []
    for k, (site, tie) in enumerate((("north", 2.0), ("south", 1.0), ("east", -0.5), ("west", 1.5))):
        x1, x2 = rng.normal(size=(2, n_per_env))
        y = x1 - 0.5 * x2 + 0.1 * k + rng.normal(scale=0.3, size=n_per_env)
        x3 = tie * y + rng.normal(scale=0.5, size=n_per_env)
        if binary:
            y = (y > 0).astype(float)
        parts.append(pd.DataFrame({"site": site, "x1": x1, "x2": x2, "x3": x3, "y": y}))
    return pd.concat(parts, ignore_index=True)


def split(df: pd.DataFrame) -> tuple[pd.DataFrame, pd.Series, pd.Series]:
    return df[["x1", "x2", "x3"]], df["y"], df["site"]


def test_every_registered_algorithm_has_a_regressor_and_a_classifier() -> None:
    assert len(REGRESSORS) == len(CLASSIFIERS) == len(ALGORITHMS)
    for cls in [*REGRESSORS.values(), *CLASSIFIERS.values()]:
        assert getattr(sal_sklearn, cls.__name__) is cls  # importable by name, so picklable
        declared = {f.name: f.default for f in dataclasses.fields(ALGORITHMS[cls.algorithm].params_type)}
        params = cls().get_params()
        assert {k: params[k] for k in declared} == declared
        assert set(params) == set(declared) | set(sal_sklearn.MODEL_OPTIONS)


def _run_checks(estimator: Any) -> list[dict[str, Any]]:
    with warnings.catch_warnings():
        # check_estimator's checks never pass environment labels: one environment each time.
        warnings.simplefilter("ignore", EnvironmentWarning)
        return list(check_estimator(estimator, on_fail=None, on_skip=None))


# Fewer optimiser steps where the default fit takes seconds (check_estimator fits ~40 times).
FAST: dict[str, dict[str, Any]] = {
    "ERMClassifier": {"steps": 200},
    "WDRLClassifier": {"theta_steps": 100, "lambda_": 0.1},
}
ONE_ENVIRONMENT_OK = sorted(
    name
    for name, cls in {**REGRESSORS, **CLASSIFIERS}.items()
    if ALGORITHMS[cls.algorithm].min_environments == 1
)
NEEDS_ENVIRONMENTS = sorted(
    name for name, cls in REGRESSORS.items() if ALGORITHMS[cls.algorithm].min_environments > 1
)


@pytest.mark.parametrize("name", ONE_ENVIRONMENT_OK)
def test_check_estimator_passes(name: str) -> None:
    estimator = getattr(sal_sklearn, name)(**FAST.get(name, {}))
    results = _run_checks(estimator)
    failed = [(r["check_name"], repr(r["exception"])[:400]) for r in results if r["status"] == "failed"]
    assert failed == []
    assert sum(r["status"] == "passed" for r in results) >= 50


def _messages(exc: BaseException | None) -> str:
    """The exception's message and those it was raised from (two checks wrap fit's ValueError)."""
    out = []
    while exc is not None:
        out.append(str(exc))
        exc = exc.__cause__ or exc.__context__
    return "\n".join(out)


@pytest.mark.parametrize("name", NEEDS_ENVIRONMENTS)
def test_check_estimator_fails_only_for_missing_environment_labels(name: str) -> None:
    """The checks that cannot hold for SAL and IRM: every one that fits, because a fit without
    environment labels is refused (they learn from differences between environments)."""
    results = _run_checks(getattr(sal_sklearn, name)())
    failed = [r for r in results if r["status"] == "failed"]
    assert failed, "SAL/IRM refuse a fit without labels, so some checks must fail"
    for r in failed:
        assert ENV_LABELS_ERROR in _messages(r["exception"]), (r["check_name"], r["exception"])
    passed = {r["check_name"] for r in results if r["status"] == "passed"}
    assert {"check_estimators_unfitted", "check_get_params_invariance", "check_set_params"} <= passed


def test_sal_fits_like_sal_core_and_keeps_feature_names() -> None:
    X, y, site = split(table())
    est = SALRegressor(random_state=3).fit(X, y, environment=site)
    envs = [
        Environment(s, np.array(X[site == s], order="C"), y[site == s].to_numpy(copy=True))
        for s in ("north", "south", "east", "west")
    ]
    direct = get_algorithm("sal")(seed=3).fit(envs, feature_names=["x1", "x2", "x3"])
    assert direct.coefficients_original is not None and direct.covariate_weights is not None
    np.testing.assert_allclose(est.coef_, direct.coefficients_original, rtol=1e-12, atol=0)
    assert est.intercept_ == pytest.approx(direct.intercept_original, rel=1e-12)
    np.testing.assert_allclose(est.covariate_weights_, direct.covariate_weights, rtol=1e-12)
    assert list(est.feature_names_in_) == ["x1", "x2", "x3"]
    assert est.fit_result_.feature_names == ("x1", "x2", "x3")
    assert list(est.environments_) == ["north", "south", "east", "west"]  # first appearance
    assert est.n_features_in_ == 3
    assert est.certificate_ is not None
    np.testing.assert_allclose(est.predict(X), direct.predict(X.to_numpy()), rtol=1e-12)
    with pytest.raises(ValueError, match="feature names"):
        est.predict(X[["x2", "x1", "x3"]])
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(again.predict(X), est.predict(X))
    assert clone(est).get_params() == est.get_params()


def test_without_labels_one_environment_and_a_warning() -> None:
    X, y, _ = split(table())
    with pytest.warns(EnvironmentWarning, match="one environment"):
        est = RidgeRegressor().fit(X, y)
    assert list(est.environments_) == ["all"]
    with pytest.raises(ValueError, match=ENV_LABELS_ERROR):
        SALRegressor().fit(X, y)
    with pytest.raises(ValueError, match="one label per row"):
        SALRegressor().fit(X, y, environment=np.zeros(3))


def test_bad_parameters_are_refused_at_fit_naming_the_parameter() -> None:
    X, y, site = split(table())
    bad = LassoRegressor(lambda_=-1.0)  # stored as given: __init__ validates nothing
    assert bad.get_params()["lambda_"] == -1.0
    with pytest.raises(ValueError, match="lambda_ must be >= 0"):
        bad.fit(X, y, environment=site)


def test_grid_search_over_environments_in_a_pipeline() -> None:
    X, y, site = split(table())
    with sklearn.config_context(enable_metadata_routing=True):
        pipe = make_pipeline(StandardScaler(), SALRegressor().set_fit_request(environment=True))
        search = GridSearchCV(
            pipe,
            {"salregressor__alpha": [0.0, 0.5]},
            cv=LeaveOneGroupOut(),
            error_score="raise",  # a fold whose SAL got no labels raises instead of scoring NaN
        )
        search.fit(X, y, groups=site, environment=site)
    assert len(search.cv_results_["split0_test_score"]) == 2
    assert {f"split{k}_test_score" for k in range(4)} <= set(search.cv_results_)
    best = search.best_estimator_[-1]
    assert list(best.environments_) == ["north", "south", "east", "west"]
    assert best.covariate_weights_.shape == (3,)
    assert search.best_params_["salregressor__alpha"] in (0.0, 0.5)


def test_classifiers_keep_their_labels_and_give_probabilities() -> None:
    X, y, site = split(table(binary=True, n_per_env=40))
    labels = np.where(y > 0, "yes", "no")
    clf = WDRLClassifier(theta_steps=100, lambda_=0.1).fit(X, labels, environment=site)
    assert list(clf.classes_) == ["no", "yes"]
    assert clf.coef_.shape == (1, 3) and clf.intercept_.shape == (1,)
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(clf.predict(X), np.where(proba[:, 1] >= 0.5, "yes", "no"))
    assert clf.score(X, labels) > 0.8
    with pytest.raises(ValueError, match="Only binary classification"):
        SALClassifier().fit(X, np.arange(len(X)) % 3, environment=site)


def test_an_mlp_has_no_coefficients_but_predicts() -> None:
    X, y, site = split(table(n_per_env=30))
    est = sal_sklearn.ERMRegressor(model="mlp", hidden=(8,), steps=50).fit(X, y, environment=site)
    assert not hasattr(est, "coef_")
    assert est.predict(X).shape == (len(X),)
