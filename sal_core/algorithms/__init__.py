"""The registry of algorithms: adding one is one module here plus its line in ``_MODULES``."""

from __future__ import annotations

import importlib

from sal_core.algorithms.base import (
    Algorithm,
    Certificate,
    FitResult,
    FittedModel,
    Problem,
    Reporter,
    Solution,
)
from sal_core.exceptions import UnknownAlgorithmError

_MODULES = ("erm", "ridge", "lasso", "irm", "wdrl", "sal")


def _load() -> dict[str, type[Algorithm]]:  # type: ignore[type-arg]
    registry: dict[str, type[Algorithm]] = {}  # type: ignore[type-arg]
    for module_name in _MODULES:
        module = importlib.import_module(f"sal_core.algorithms.{module_name}")
        cls = module.ALGORITHM
        registry[cls.name] = cls
    return registry


ALGORITHMS = _load()


def get_algorithm(name: str) -> type[Algorithm]:  # type: ignore[type-arg]
    try:
        return ALGORITHMS[name]
    except KeyError:
        raise UnknownAlgorithmError(
            f"unknown algorithm {name!r}; choose one of {sorted(ALGORITHMS)}", field="algorithm"
        ) from None


__all__ = [
    "ALGORITHMS",
    "Algorithm",
    "Certificate",
    "FitResult",
    "FittedModel",
    "Problem",
    "Reporter",
    "Solution",
    "get_algorithm",
]
