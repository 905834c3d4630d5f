"""Errors raised by sal_core.

    SalError
    ├── InvalidDataError        bad environments: NaN/inf, shapes, too few rows or environments, labels
    ├── InvalidParameterError   unknown, mistyped or out-of-range hyper-parameters or options
    └── UnknownAlgorithmError   a name that is not in the registry

Every error names the offending field in ``field`` so callers (the HTTP API) can point at it.
"""

from __future__ import annotations


class SalError(Exception):
    """Base class of every error sal_core raises on purpose."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class InvalidDataError(SalError, ValueError):
    """The environments handed to ``fit`` cannot be learned from as given."""


class InvalidParameterError(SalError, ValueError):
    """A hyper-parameter or option is unknown, of the wrong type, or out of its range."""


class UnknownAlgorithmError(SalError, KeyError):
    """The algorithm name is not registered."""

    def __str__(self) -> str:
        return self.message
