"""``sal sweeps``: hyper-parameter sweeps with model selection."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from sal_cli import output
from sal_cli.common import call, fetch_report, finish, show, state

app = typer.Typer(help="Hyper-parameter sweeps with model selection.", no_args_is_help=True)


def _sweep_table(sweep: dict[str, Any]) -> None:
    p = sweep["progress"]
    output.fields({**sweep, "progress": f"{p['done']}/{p['total']} done ({p['succeeded']} succeeded, {p['failed']} failed)"},
                  ("id", "status", "selection", "dataset_id", "seeds", "progress"), title="sweep")  # fmt: skip
    board = sweep.get("leaderboard")
    if not board:
        return
    label = " (ORACLE: selected on test error)" if board["oracle"] else ""
    pm = lambda ms: f"{ms['mean']:.4f} ± {ms['std']:.4f}"  # noqa: E731
    output.table(
        f"leaderboard{label}",
        ["rank", "algorithm", "selected", "Mean_Error", "Std_Error", "worst", "worst env"],
        [[r["rank"], r["algorithm"], _searched(r), pm(r["mean_error"]), pm(r["std_error"]), pm(r["worst_error"]),
          r["worst_environment"]] for r in board["algorithms"]],
    )  # fmt: skip
    for name, reason in board.get("unselected", {}).items():
        typer.echo(f"{name}: {reason}")


def _searched(row: dict[str, Any]) -> str:
    searched = row.get("searched_params") or {}
    return ", ".join(f"{k}={output.fmt(v)}" for k, v in searched.items()) or "defaults"


def _get_sweep(sweep_id: str) -> dict[str, Any]:
    from sal_client.api.sweeps import get_sweep

    return call(get_sweep, sweep_id).to_dict()  # type: ignore[no-any-return]


def _watch_sweep(sweep_id: str) -> dict[str, Any]:
    def progress(doc: dict[str, Any]) -> tuple[int, int | None, str]:
        return doc["progress"]["done"], doc["progress"]["total"], doc["status"]

    return output.watch(
        lambda: _get_sweep(sweep_id), progress, f"sweep {sweep_id}", state.interval, state.sleep
    )


@app.command("submit")
def sweeps_submit(
    body: Annotated[
        Path, typer.Argument(help="The POST /sweeps body as a JSON file ('-': stdin).", allow_dash=True)
    ],
    watch: Annotated[
        bool, typer.Option("--watch", help="Follow the sweep until its leaderboard is ready.")
    ] = False,
) -> None:
    """Submit a sweep (see POST /sweeps for the body)."""
    from sal_client.api.sweeps import create_sweep
    from sal_client.models import SweepCreate

    text = sys.stdin.read() if str(body) == "-" else body.read_text()
    sweep = call(create_sweep, body=SweepCreate.from_dict(json.loads(text))).to_dict()
    if watch:
        finish(_watch_sweep(sweep["id"]), _sweep_table)
    else:
        show(sweep, _sweep_table)


@app.command("get")
def sweeps_get(sweep_id: str) -> None:
    """Show a sweep's progress and, when done, its leaderboard."""
    show(_get_sweep(sweep_id), _sweep_table)


@app.command("watch")
def sweeps_watch(sweep_id: str) -> None:
    """Follow a sweep until every trial has finished, then show the leaderboard."""
    finish(_watch_sweep(sweep_id), _sweep_table)


@app.command("cancel")
def sweeps_cancel(sweep_id: str) -> None:
    """Cancel a sweep and its unfinished trials."""
    from sal_client.api.sweeps import cancel_sweep

    show(call(cancel_sweep, sweep_id).to_dict(), _sweep_table)


@app.command("report")
def sweepsfetch_report(
    sweep_id: str,
    format: Annotated[str, typer.Option(help="json, markdown or html.")] = "markdown",
    out: Annotated[Path | None, typer.Option("--output", "-o")] = None,
) -> None:
    """A sweep's report: leaderboard, per-environment errors and figures."""
    fetch_report(f"/sweeps/{sweep_id}/report", format, out)
