"""Typed, validated hyper-parameters declared once with their ranges, docs and search grids.

Every algorithm declares a frozen dataclass of parameters whose fields are made with :func:`param`.
The metadata drives validation (``from_mapping``), the service's ``GET /algorithms`` listing
(``describe``) and sweeps (``grid``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, TypeVar, get_args, get_type_hints

from sal_core.exceptions import InvalidParameterError

P = TypeVar("P", bound="Params")

AUTO = "auto"
"""A parameter typed ``float | str`` or ``int | str`` takes a number or this word: the algorithm
then chooses the value itself (and says how in its result)."""


def param(
    default: Any,
    *,
    doc: str,
    low: float | None = None,
    high: float | None = None,
    low_inclusive: bool = True,
    choices: Sequence[Any] | None = None,
    grid: Sequence[Any] | None = None,
) -> Any:
    """Declare a hyper-parameter: its default, meaning, valid range and default search grid."""
    meta = {
        "doc": doc,
        "low": low,
        "high": high,
        "low_inclusive": low_inclusive,
        "choices": tuple(choices) if choices is not None else None,
        "grid": tuple(grid) if grid is not None else None,
    }
    return dataclasses.field(default=default, metadata=meta)


@dataclasses.dataclass(frozen=True)
class ParamSpec:
    """What a client needs to know about one hyper-parameter."""

    name: str
    type: str
    default: Any
    doc: str
    low: float | None
    high: float | None
    choices: tuple[Any, ...] | None
    grid: tuple[Any, ...] | None


@dataclasses.dataclass(frozen=True)
class Params:
    """Base of every algorithm's parameter dataclass. Subclasses add fields made by :func:`param`."""

    _type_names: ClassVar[dict[Any, str]] = {
        int: "integer",
        float: "number",
        str: "string",
        bool: "boolean",
        float | str: "number or 'auto'",
        int | str: "integer or 'auto'",
    }
    retired: ClassVar[frozenset[str]] = frozenset()
    """Parameters an earlier release had: accepted and ignored, so stored jobs still rerun."""

    def __post_init__(self) -> None:
        hints = get_type_hints(type(self))
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            expected = hints[f.name]
            object.__setattr__(self, f.name, _coerce(f.name, value, expected))
            _check_range(f, getattr(self, f.name))

    @classmethod
    def from_mapping(cls: type[P], values: Mapping[str, Any] | None) -> P:
        """Build validated parameters; unknown keys are rejected, missing keys take defaults."""
        values = {k: v for k, v in (values or {}).items() if k not in cls.retired}
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise InvalidParameterError(
                f"unknown parameter(s) {unknown}; valid parameters are {sorted(known)}",
                field=f"params.{unknown[0]}",
            )
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    @classmethod
    def describe(cls) -> list[ParamSpec]:
        hints = get_type_hints(cls)
        specs = []
        for f in dataclasses.fields(cls):
            m = f.metadata
            specs.append(
                ParamSpec(
                    name=f.name,
                    type=cls._type_names.get(hints[f.name], str(hints[f.name])),
                    default=f.default,
                    doc=m.get("doc", ""),
                    low=m.get("low"),
                    high=m.get("high"),
                    choices=m.get("choices"),
                    grid=m.get("grid"),
                )
            )
        return specs

    @classmethod
    def search_space(cls) -> dict[str, tuple[Any, ...]]:
        """The default grid of every parameter that declares one (the paper's grids)."""
        return {s.name: s.grid for s in cls.describe() if s.grid is not None}


def _coerce(name: str, value: Any, expected: Any) -> Any:
    where = f"params.{name}"
    args = get_args(expected)
    if len(args) == 2 and str in args:  # a number or "auto"
        if value == AUTO:
            return AUTO
        number = next(a for a in args if a is not str)
        if isinstance(value, str):
            kind = "an integer" if number is int else "a number"
            raise InvalidParameterError(f"{name} must be {kind} or 'auto', got {value!r}", field=where)
        return _coerce(name, value, number)
    if expected is bool:
        if isinstance(value, bool):
            return value
        raise InvalidParameterError(f"{name} must be true or false, got {value!r}", field=where)
    if expected is int:
        if isinstance(value, bool) or not isinstance(value, int | float) or float(value) != int(value):
            raise InvalidParameterError(f"{name} must be an integer, got {value!r}", field=where)
        return int(value)
    if expected is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise InvalidParameterError(f"{name} must be a number, got {value!r}", field=where)
        if not math.isfinite(value):
            raise InvalidParameterError(f"{name} must be finite, got {value!r}", field=where)
        return float(value)
    if expected is str:
        if not isinstance(value, str):
            raise InvalidParameterError(f"{name} must be a string, got {value!r}", field=where)
        return value
    return value


def _check_range(f: dataclasses.Field[Any], value: Any) -> None:
    m = f.metadata
    where = f"params.{f.name}"
    if value == AUTO and m.get("choices") is None:
        return
    choices = m.get("choices")
    if choices is not None and value not in choices:
        raise InvalidParameterError(f"{f.name} must be one of {list(choices)}, got {value!r}", field=where)
    low, high = m.get("low"), m.get("high")
    if low is not None:
        too_low = value < low if m.get("low_inclusive", True) else value <= low
        if too_low:
            op = ">=" if m.get("low_inclusive", True) else ">"
            raise InvalidParameterError(f"{f.name} must be {op} {low}, got {value!r}", field=where)
    if high is not None and value > high:
        raise InvalidParameterError(f"{f.name} must be <= {high}, got {value!r}", field=where)
