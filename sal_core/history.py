"""One outer round of a fit, typed: what every algorithm's ``history`` holds.

Before this type, a fit's history came in three dict shapes (ERM: ``env_losses`` as a list; SAL:
``risk``, ``w`` and ``env_losses`` by name; ridge, lasso and IRM: ``objective``, IRM also
per-environment ``penalties``). Every algorithm now records ``Round`` s; :meth:`Round.from_mapping`
reads all the old shapes, so job results stored before the change stay readable.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Round", "as_rounds"]


@dataclass(frozen=True)
class Round:
    """One outer round.

    ``risk`` is the quantity the algorithm minimises, in the label's units (squared for squared
    loss): SAL's stability risk, ridge's and lasso's penalised objective, IRM's penalised objective,
    ERM's pooled training loss. ``env_losses`` is the training loss per environment name; ``w`` the
    covariate weights (p,) used in this round (SAL); ``penalty`` IRM's mean invariance penalty.
    """

    round: int
    risk: float
    env_losses: dict[str, float]
    w: list[float] | None = None
    penalty: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-able; non-finite numbers become None (JSON has no NaN or infinity)."""
        return {
            "round": self.round,
            "risk": _finite(self.risk),
            "env_losses": {k: _finite(v) for k, v in self.env_losses.items()},
            "w": None if self.w is None else [_finite(v) for v in self.w],
            "penalty": _finite(self.penalty),
        }

    @classmethod
    def from_mapping(cls, row: Mapping[str, Any], env_names: Sequence[str] = (), index: int = 0) -> Round:
        """Read any shape a history row has had. ``env_names`` name a list of ``env_losses``
        (the training environments, in order); ``index`` numbers a row without ``round``."""
        raw = row.get("env_losses") or {}
        if isinstance(raw, Mapping):
            env_losses = {str(k): _float(v) for k, v in raw.items()}
        else:
            values = list(raw)
            names = (
                list(env_names) if len(env_names) == len(values) else [f"env_{i}" for i in range(len(values))]
            )
            env_losses = {n: _float(v) for n, v in zip(names, values, strict=True)}
        risk = row.get("risk", row.get("objective"))
        if risk is None and env_losses:
            # ERM's old rows stored no objective: the mean over environments stands in for it.
            risk = sum(env_losses.values()) / len(env_losses)
        penalty = row.get("penalty")
        penalties = row.get("penalties")
        if penalty is None and penalties:
            penalty = sum(_float(v) for v in penalties) / len(penalties)
        w = row.get("w")
        return cls(
            round=int(row.get("round", index + 1)),
            risk=_float(risk),
            env_losses=env_losses,
            w=None if w is None else [_float(v) for v in w],
            penalty=None if penalty is None else _float(penalty),
        )


def as_rounds(history: Iterable[Round | Mapping[str, Any]], env_names: Sequence[str] = ()) -> list[Round]:
    """A history of ``Round`` s or old-shape dicts, as ``Round`` s."""
    return [
        h if isinstance(h, Round) else Round.from_mapping(h, env_names, index=i)
        for i, h in enumerate(history)
    ]


def _float(value: Any) -> float:
    return math.nan if value is None else float(value)


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None
