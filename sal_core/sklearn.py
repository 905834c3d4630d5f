"""scikit-learn estimators for every registered algorithm: the optional ``sklearn`` extra.

    pip install 'sal-service[sklearn]'

    >>> from sal_core.sklearn import SALRegressor
    >>> est = SALRegressor().fit(X, y, environment=site)  # one environment label per row
    >>> est.coef_, est.covariate_weights_, est.predict(X_new)

The classes are generated from the algorithm registry (:data:`sal_core.algorithms.ALGORITHMS`): each
algorithm gives a ``<Name>Regressor`` and a ``<Name>Classifier`` whose constructor takes the
algorithm's declared parameters (:mod:`sal_core.params`, the same names and defaults as a REST job's
``params``) plus the model and seed options below, so ``get_params``/``set_params``, ``clone`` and
``GridSearchCV`` see exactly what the algorithm declares. ``fit`` calls the algorithm's public
interface, ``get_algorithm(name)(params, task=..., model=..., seed=...).fit([Environment, ...])``, with
the rows grouped by environment in order of first appearance, as the service groups a dataset's rows:
the same data and parameters give the same fit as a REST job.

Environment labels travel like scikit-learn's ``groups``. With metadata routing on
(``sklearn.set_config(enable_metadata_routing=True)``) and ``est.set_fit_request(environment=True)``,
``Pipeline`` and ``GridSearchCV(cv=LeaveOneGroupOut())`` hand them to ``fit``:
``search.fit(X, y, groups=site, environment=site)``.

Without labels every row is one environment and an :class:`EnvironmentWarning` says so; the algorithms
that need several environments to learn anything (SAL's w, IRM's invariance penalty) refuse instead.

This module imports scikit-learn; ``import sal_core`` never loads it (torch and numpy only).
"""

from __future__ import annotations

import dataclasses
import inspect
import warnings
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from sal_core.algorithms import ALGORITHMS, FitResult, get_algorithm
from sal_core.data import Environment, FloatArray
from sal_core.losses import Task

PREFIXES: Mapping[str, str] = {
    "sal": "SAL",
    "wdrl": "WDRL",
    "irm": "IRM",
    "erm": "ERM",
    "ridge": "Ridge",
    "lasso": "Lasso",
}
"""Class-name prefix per registered algorithm; one registered later gets its name in capitals."""

MODEL_OPTIONS: Mapping[str, Any] = {
    "model": "linear",
    "hidden": (64,),
    "activation": "relu",
    "loss": None,
    "random_state": 0,
    "device": "cpu",
}
"""Constructor options every estimator has besides its algorithm's parameters: the model family
(``"linear"`` or ``"mlp"`` with ``hidden`` widths and ``activation``, as a job's ``model``), the loss
(None: the task's default), the seed (an int; None means 0) and the torch device."""


class EnvironmentWarning(UserWarning):
    """``fit`` got no environment labels, so every row was taken as one environment."""


class SALEstimator(BaseEstimator):  # type: ignore[misc]
    """Base of the generated estimators; subclasses set ``algorithm`` and ``task``."""

    algorithm: ClassVar[str]
    task: ClassVar[Task]
    fit_result_: FitResult
    coef_: FloatArray  # (p,) for a regressor, (1, p) for a classifier; linear models only
    intercept_: float | FloatArray

    def __init__(self, **params: Any) -> None:
        # scikit-learn's contract: store the parameters, validate nothing (fit does). The accepted
        # names and defaults are the generated class's signature (see _estimator_class).
        defaults = _defaults(self.algorithm)
        unknown = sorted(set(params) - set(defaults))
        if unknown:
            raise TypeError(f"{type(self).__name__} got unexpected parameter(s) {unknown}")
        for name, default in defaults.items():
            setattr(self, name, params.get(name, default))

    # ---------------------------------------------------------------------------------- fitting
    def fit(self, X: ArrayLike, y: ArrayLike, environment: ArrayLike | None = None) -> SALEstimator:
        """Fit on rows ``X`` (n, p), targets ``y`` (n,) and one environment label per row.

        ``environment`` is (n,) of any hashable labels (site names, years); rows with the same label
        form one training environment. None: all rows are one environment (with a warning)."""
        X_arr, y_arr = validate_data(
            self,
            X,
            y,
            dtype=np.float64,
            y_numeric=self.task == "regression",
            ensure_min_samples=2,
        )
        y_arr = self._encode_target(y_arr)
        environments = self._environments(X_arr, y_arr, environment)
        cls = get_algorithm(self.algorithm)
        algorithm = cls(
            self._algorithm_params(),
            task=self.task,
            loss=self.loss,
            model=self._model_spec(),
            seed=self._seed(),
            device=self.device,
        )
        names = getattr(self, "feature_names_in_", None)
        fit = algorithm.fit(environments, feature_names=None if names is None else [str(n) for n in names])
        self._set_learned(fit)
        return self

    def _algorithm_params(self) -> dict[str, Any]:
        return {
            f.name: getattr(self, f.name) for f in dataclasses.fields(ALGORITHMS[self.algorithm].params_type)
        }

    def _model_spec(self) -> dict[str, Any]:
        if self.model == "mlp":
            return {"kind": "mlp", "hidden": list(self.hidden), "activation": self.activation}
        return {"kind": self.model}

    def _seed(self) -> int:
        seed = 0 if self.random_state is None else self.random_state
        if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
            raise ValueError(f"random_state must be an int or None, got {seed!r}")
        return int(seed)

    def _encode_target(self, y: FloatArray) -> FloatArray:
        return y

    def _environments(self, X: FloatArray, y: FloatArray, environment: ArrayLike | None) -> list[Environment]:
        n = X.shape[0]
        if environment is None:
            return [self._single_environment(X, y)]
        labels = np.asarray(environment)
        if labels.ndim != 1 or labels.shape[0] != n:
            raise ValueError(
                f"environment must hold one label per row: shape ({n},), got {labels.shape}; "
                "pass the column that names each row's site, year or region"
            )
        uniques, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
        order = np.argsort(first, kind="stable")  # first appearance, as the service groups a dataset
        self.environments_ = uniques[order]
        return [
            # Writable C-ordered copies, as the service's tables hold them: torch's summation order
            # follows the memory layout, and the fit should be the REST job's to the last bits.
            Environment(str(uniques[k]), np.ascontiguousarray(X[inverse == k]), y[inverse == k])
            for k in order
        ]

    def _single_environment(self, X: FloatArray, y: FloatArray) -> Environment:
        name = type(self).__name__
        cls = ALGORITHMS[self.algorithm]
        if cls.min_environments > 1:
            raise ValueError(
                f"{name} needs environment labels: {self.algorithm} learns from the differences between "
                f"at least {cls.min_environments} environments. Call fit(X, y, environment=labels) with "
                "one label per row (in a Pipeline or GridSearchCV: sklearn.set_config("
                "enable_metadata_routing=True) and est.set_fit_request(environment=True))"
            )
        warnings.warn(
            f"{name}.fit got no environment labels, so all {X.shape[0]} rows are one environment: there "
            "is no shift between environments to be robust to (SAL would have nothing to learn w from). "
            "Pass environment=labels, one per row.",
            EnvironmentWarning,
            stacklevel=3,
        )
        self.environments_ = np.asarray(["all"])
        return Environment("all", X.copy(), y.copy())

    def _set_learned(self, fit: FitResult) -> None:
        self.fit_result_ = fit
        self.covariate_weights_ = None if fit.covariate_weights is None else fit.covariate_weights.copy()
        self.certificate_ = fit.certificate
        self.n_iter_ = max(1, len(fit.history))  # outer rounds recorded (1 for a one-shot fit)
        if fit.coefficients_original is not None:
            self._set_coefficients(fit.coefficients_original.copy(), float(fit.intercept_original or 0.0))

    def _set_coefficients(self, coef: FloatArray, intercept: float) -> None:
        self.coef_ = coef
        self.intercept_ = intercept

    # ------------------------------------------------------------------------------- predicting
    def __sklearn_is_fitted__(self) -> bool:
        # Parameters such as lambda_ end in "_", so the default test (any attribute ending in "_")
        # would call an unfitted estimator fitted.
        return hasattr(self, "fit_result_")

    def _validated(self, X: ArrayLike) -> FloatArray:
        check_is_fitted(self)
        out: FloatArray = validate_data(self, X, dtype=np.float64, reset=False)
        return out

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.target_tags.single_output = True
        tags.target_tags.multi_output = False
        return tags


class SALRegressorBase(RegressorMixin, SALEstimator):  # type: ignore[misc]
    """A generated regressor: ``predict`` gives θᵀx + b (linear) or the network's output."""

    task: ClassVar[Task] = "regression"

    def predict(self, X: ArrayLike) -> FloatArray:
        """Predictions (n,) for raw covariates X (n, p), columns as in fit."""
        X_arr = self._validated(X)
        return self.fit_result_.model.predict(X_arr)


class SALClassifierBase(ClassifierMixin, SALEstimator):  # type: ignore[misc]
    """A generated binary classifier: ``classes_`` holds the two labels, the second is class 1."""

    task: ClassVar[Task] = "classification"
    classes_: NDArray[Any]

    def _encode_target(self, y: FloatArray) -> FloatArray:
        check_classification_targets(y)
        kind = type_of_target(y)
        if kind not in ("binary", "unary"):
            raise ValueError(
                f"Only binary classification is supported. The type of the target is {kind}; "
                f"{type(self).__name__} needs labels of exactly 2 classes"
            )
        classes, encoded = np.unique(y, return_inverse=True)
        if classes.shape[0] != 2:
            raise ValueError(
                f"{type(self).__name__} is a binary classifier: y needs exactly 2 classes, got "
                f"{classes.shape[0]} class {classes.tolist()}"
            )
        self.classes_ = classes
        return encoded.astype(np.float64)

    def _set_coefficients(self, coef: FloatArray, intercept: float) -> None:
        self.coef_ = coef.reshape(1, -1)  # scikit-learn's binary linear classifiers: (1, p) and (1,)
        self.intercept_ = np.array([intercept])

    def decision_function(self, X: ArrayLike) -> FloatArray:
        """The model's logit of ``classes_[1]`` per row (n,)."""
        X_arr = self._validated(X)
        return self.fit_result_.model.decision_function(X_arr)

    def predict_proba(self, X: ArrayLike) -> FloatArray:
        """(n, 2): P(classes_[0]) and P(classes_[1]) per row."""
        X_arr = self._validated(X)
        p1 = self.fit_result_.model.predict_proba(X_arr)
        return np.column_stack([1.0 - p1, p1])

    def predict(self, X: ArrayLike) -> NDArray[Any]:
        """The predicted label per row (n,), from ``classes_``."""
        X_arr = self._validated(X)
        labels = self.fit_result_.model.predict(X_arr).astype(np.intp)
        out: NDArray[Any] = self.classes_[labels]
        return out

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags


def _defaults(algorithm: str) -> dict[str, Any]:
    """The constructor's parameters and defaults: the algorithm's declared ones, then the options."""
    params = {f.name: f.default for f in dataclasses.fields(ALGORITHMS[algorithm].params_type)}
    return {**params, **MODEL_OPTIONS}


def _estimator_class(algorithm: str, base: type[SALEstimator], suffix: str) -> type[SALEstimator]:
    prefix = PREFIXES.get(algorithm, algorithm.upper())
    name = f"{prefix}{suffix}"
    signature = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [
            inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY, default=v)
            for k, v in _defaults(algorithm).items()
        ]
    )

    def __init__(self: SALEstimator, **params: Any) -> None:
        SALEstimator.__init__(self, **params)

    __init__.__signature__ = signature  # type: ignore[attr-defined]  # what get_params reads
    __init__.__qualname__ = f"{name}.__init__"
    summary = ALGORITHMS[algorithm].summary
    doc = (
        f"{summary}\n\nscikit-learn {suffix.lower()} over `sal_core`'s {algorithm!r} algorithm; "
        f"parameters: {', '.join(_defaults(algorithm))} (see GET /algorithms for their meaning)."
    )
    namespace = {"algorithm": algorithm, "__init__": __init__, "__doc__": doc, "__module__": __name__}
    cls = type(name, (base,), namespace)
    cls.__qualname__ = name
    return cls


def _generate() -> tuple[dict[str, type[SALRegressorBase]], dict[str, type[SALClassifierBase]]]:
    regressors: dict[str, type[SALRegressorBase]] = {}
    classifiers: dict[str, type[SALClassifierBase]] = {}
    for algorithm in ALGORITHMS:
        reg = _estimator_class(algorithm, SALRegressorBase, "Regressor")
        clf = _estimator_class(algorithm, SALClassifierBase, "Classifier")
        regressors[reg.__name__] = reg
        classifiers[clf.__name__] = clf
    return regressors, classifiers


REGRESSORS, CLASSIFIERS = _generate()
"""Every generated estimator by class name, one regressor and one classifier per registered algorithm."""
globals().update(REGRESSORS)
globals().update(CLASSIFIERS)  # importable (and picklable) by name, algorithms registered later too

SALRegressor = REGRESSORS["SALRegressor"]
SALClassifier = CLASSIFIERS["SALClassifier"]
WDRLRegressor = REGRESSORS["WDRLRegressor"]
WDRLClassifier = CLASSIFIERS["WDRLClassifier"]
IRMRegressor = REGRESSORS["IRMRegressor"]
IRMClassifier = CLASSIFIERS["IRMClassifier"]
ERMRegressor = REGRESSORS["ERMRegressor"]
ERMClassifier = CLASSIFIERS["ERMClassifier"]
RidgeRegressor = REGRESSORS["RidgeRegressor"]
RidgeClassifier = CLASSIFIERS["RidgeClassifier"]
LassoRegressor = REGRESSORS["LassoRegressor"]
LassoClassifier = CLASSIFIERS["LassoClassifier"]

__all__ = [
    "CLASSIFIERS",
    "REGRESSORS",
    "ERMClassifier",
    "ERMRegressor",
    "EnvironmentWarning",
    "IRMClassifier",
    "IRMRegressor",
    "LassoClassifier",
    "LassoRegressor",
    "RidgeClassifier",
    "RidgeRegressor",
    "SALClassifier",
    "SALClassifierBase",
    "SALEstimator",
    "SALRegressor",
    "SALRegressorBase",
    "WDRLClassifier",
    "WDRLRegressor",
]
