"""sal_core: Stable Adversarial Learning and its baselines for multi-environment tabular data.

A pure library: torch, numpy and the standard library only.

    >>> from sal_core import Environment, get_algorithm
    >>> fit = get_algorithm("sal")(task="regression", seed=0).fit([env_a, env_b])
    >>> fit.covariate_weights, fit.coefficients_original, fit.model.predict(X_new)
"""

from sal_core.algorithms import ALGORITHMS, Algorithm, Certificate, FitResult, FittedModel, get_algorithm
from sal_core.data import Environment, Standardizer
from sal_core.exceptions import InvalidDataError, InvalidParameterError, SalError, UnknownAlgorithmError
from sal_core.metrics import Summary, evaluate
from sal_core.models import ModelSpec
from sal_core.params import Params, ParamSpec

__all__ = [
    "ALGORITHMS",
    "Algorithm",
    "Certificate",
    "Environment",
    "FitResult",
    "FittedModel",
    "InvalidDataError",
    "InvalidParameterError",
    "ModelSpec",
    "ParamSpec",
    "Params",
    "SalError",
    "Standardizer",
    "Summary",
    "UnknownAlgorithmError",
    "evaluate",
    "get_algorithm",
]
