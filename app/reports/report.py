"""A report: its data, notes, tables and figures (drawn only when a format needs pictures), and
the number formatting every report shares."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from matplotlib.figure import Figure

ORACLE_LABEL = (
    "ORACLE selection: hyper-parameters chosen on test error (an upper bound, not a fair comparison)"
)


# Shown when a job has no result (queued, running, failed, or cancelled before it ran) and when
# its result is the partial fit of a job cancelled while running, as GET /jobs/{id} shows it.
NO_RESULT_NOTE = "No result yet: the report fills in once the job has succeeded."
PARTIAL_RESULT_NOTE = "Cancelled while running: the result is the partial fit, history up to the stop."


@dataclass(frozen=True)
class ReportTable:
    title: str
    columns: list[str]
    rows: list[list[str]]


@dataclass
class Report:
    title: str
    data: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    tables: list[ReportTable] = field(default_factory=list)
    # name -> (title, a function drawing it): drawn only when a format needs pictures
    figures: dict[str, tuple[str, Callable[[], Figure]]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {**self.data, "title": self.title, "notes": self.notes, "figures": list(self.figures)}


def num(x: Any, digits: int = 4) -> str:
    if x is None:
        return "–"
    if isinstance(x, float):
        return f"{x:.{digits}g}"
    return str(x)


def plus_minus(ms: Mapping[str, float]) -> str:
    return f"{ms['mean']:.4f} ± {ms['std']:.4f}"


def params_text(p: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={num(v)}" for k, v in p.items()) or "defaults"
