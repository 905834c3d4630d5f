"""How the CLI prints: rich tables for people, JSON for scripts, and progress while watching."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

TERMINAL = ("succeeded", "failed", "cancelled")


def console(stderr: bool = False) -> Console:
    out = Console(highlight=False, stderr=stderr)
    if not out.is_terminal:  # pipes and logs: wide enough for a leaderboard, no wrapping in cells
        out = Console(highlight=False, width=160, stderr=stderr)
    return out


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")


def fmt(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, dict | list):
        return json.dumps(value, default=str)
    return str(value)


def table(title: str | None, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    t = Table(title=title, title_justify="left")
    for c in columns:
        t.add_column(c)
    for row in rows:
        t.add_row(*(fmt(v) for v in row))
    console().print(t)


def fields(data: Mapping[str, Any], keys: Sequence[str], title: str | None = None) -> None:
    table(title, ["field", "value"], [[k, data.get(k)] for k in keys if k in data])


def watch(
    poll: Callable[[], dict[str, Any]],
    progress_of: Callable[[dict[str, Any]], tuple[int, int | None, str]],
    label: str,
    interval: float,
    sleep: Callable[[float], None],
) -> dict[str, Any]:
    """Poll until the status is terminal. A live bar on a terminal; elsewhere (pipes, CI, tests) one
    line per change, so logs show progress too. Progress goes to stderr, so stdout holds only the
    document the command prints at the end (``sal --json jobs submit --watch | jq`` stays JSON).
    Returns the last document."""
    out = console(stderr=True)
    doc = poll()
    if out.is_terminal:
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, console=out, transient=False) as bar:
            task = bar.add_task(label, total=None)
            while True:
                step, total, status = progress_of(doc)
                bar.update(task, completed=step, total=total, description=f"{label} {status}")
                if status in TERMINAL:
                    return doc
                sleep(interval)
                doc = poll()
    last: tuple[int, int | None, str] | None = None
    while True:
        step, total, status = progress_of(doc)
        if (step, total, status) != last:
            out.print(f"{label} {status} {step}/{total if total is not None else '?'}")
            last = (step, total, status)
        if status in TERMINAL:
            return doc
        sleep(interval)
        doc = poll()
