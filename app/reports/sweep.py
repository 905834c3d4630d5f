"""The report of a sweep, from the typed sweep (``SweepPublic``): the leaderboard and the figures
comparing methods, one short function per section."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.jobs.result import RoundResult
from app.reports import figures as F
from app.reports.report import ORACLE_LABEL, Report, ReportTable, params_text, plus_minus
from app.sweeps.schemas import LeaderboardRow, MeanStd, SweepPublic


def median_over_seeds(per_seed: Sequence[Mapping[str, float]]) -> dict[str, tuple[float, float, float]]:
    """{covariate: (median, min, max)} of w over seeds: w spans decades (a seed at the cap 10⁴
    and two near 1 average to 3,000, which reads as stable), so the middle seed is shown."""
    features = list(per_seed[0]) if per_seed else []
    out = {}
    for f in features:
        values = sorted(float(w[f]) for w in per_seed if w.get(f) is not None)
        if values:
            mid = len(values) // 2
            median = values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2
            out[f] = (median, values[0], values[-1])
    return out


def sweep_report(
    sweep: SweepPublic,
    histories: Mapping[str, Sequence[RoundResult]] | None = None,
    seed_weights: Mapping[str, Sequence[Mapping[str, float]]] | None = None,
) -> Report:
    """The report of a sweep (``SweepPublic``); ``histories`` are training histories {algorithm:
    rounds} of selected jobs (first seed) for the training-curve figure; ``seed_weights``
    {algorithm: [w per seed]} of the selected jobs, shown as median and range."""
    board = sweep.leaderboard
    label = " (oracle)" if sweep.oracle else ""
    report = Report(
        title=f"Sweep {sweep.id}: {sweep.selection} selection{' (ORACLE)' if sweep.oracle else ''}, {sweep.status}",
        data={
            "kind": "sweep",
            "sweep_id": sweep.id,
            "status": sweep.status,
            "selection": sweep.selection,
            "oracle": sweep.oracle,
            "progress": sweep.progress.model_dump(mode="json"),
            "leaderboard": None if board is None else board.model_dump(mode="json"),
        },  # fmt: skip
    )
    if sweep.oracle:
        report.notes.append(ORACLE_LABEL)
    p = sweep.progress
    report.notes.append(
        f"{p.done} of {p.total} trials finished ({p.succeeded} succeeded, {p.failed} failed, "
        f"{p.cancelled} cancelled); seeds {sweep.seeds}."
    )
    if not board:
        report.notes.append("No leaderboard yet: it is computed once every trial has finished.")
        return report
    rows = board.algorithms
    report.tables.append(_leaderboard_table(rows, label))
    if rows:
        report.tables.append(_environments_table(rows))
        report.figures.update(_error_figure(rows, label))
    weights, how = _weights(rows, seed_weights or {}, report)
    if weights:
        report.figures["covariate-weights"] = (
            f"Learned w per covariate ({how})",
            lambda: F.covariate_weights(weights),
        )
    theta = {r.algorithm: r.coefficients for r in rows if r.coefficients}
    if theta:
        report.figures["coefficients"] = (
            "θ per covariate by method (mean over seeds)",
            lambda: F.coefficients(theta),
        )
    for algorithm, history in (histories or {}).items():
        rounds = [r.model_dump() for r in history]
        if F.has_curves(rounds):
            features = list(weights.get(algorithm) or theta.get(algorithm) or [])
            report.figures["training-curves"] = (
                f"R(θ) and w over rounds ({algorithm}, first seed)",
                lambda h=rounds, f=features: F.training_curves(h, f),  # type: ignore[misc]
            )
            break
    if board.unselected:
        report.tables.append(
            ReportTable(
                "Not selected", ["algorithm", "reason"], [[k, v] for k, v in board.unselected.items()]
            )
        )
    return report


def _pm(ms: MeanStd) -> str:
    return plus_minus(ms.model_dump())


def _leaderboard_table(rows: Sequence[LeaderboardRow], label: str) -> ReportTable:
    return ReportTable(
        f"Leaderboard{label}: test error, mean ± std over seeds",
        ["rank", "algorithm", f"selected hyper-parameters{label}", "Mean_Error", "Std_Error", "worst",
         "worst environment"],
        [
            [str(r.rank), r.algorithm, params_text(r.searched_params), _pm(r.mean_error), _pm(r.std_error),
             _pm(r.worst_error), str(r.worst_environment)]
            for r in rows
        ],
    )  # fmt: skip


def _environments_table(rows: Sequence[LeaderboardRow]) -> ReportTable:
    envs = list(rows[0].environments)
    return ReportTable(
        f"Test {rows[0].metric} per environment (mean ± std over seeds)",
        ["environment", *(r.algorithm for r in rows)],
        [[e, *(_pm(r.environments[e]) for r in rows)] for e in envs],
    )


def _error_figure(rows: Sequence[LeaderboardRow], label: str) -> dict[str, tuple[str, Any]]:
    metric = rows[0].metric
    errors = {r.algorithm: {e: v.mean for e, v in r.environments.items()} for r in rows}
    spread = {r.algorithm: {e: v.std for e, v in r.environments.items()} for r in rows}
    return {
        "error-by-environment": (
            f"Test {metric} per environment by method{label}",
            lambda: F.error_by_environment(
                errors, metric, spread, title=f"Test {metric} per environment{label}"
            ),
        )
    }


def _weights(
    rows: Sequence[LeaderboardRow], seed_weights: Mapping[str, Sequence[Mapping[str, float]]], report: Report
) -> tuple[dict[str, dict[str, float]], str]:
    """w per covariate by method for the figure: the median over seeds where the seeds' w are
    known (each method's range then gets a table in ``report``), else the leaderboard's mean."""
    weights = {r.algorithm: dict(r.covariate_weights) for r in rows if r.covariate_weights}
    spreads = {a: median_over_seeds(ws) for a, ws in seed_weights.items() if ws}
    if not spreads:
        return weights, "mean over seeds"
    for algorithm, ranges in spreads.items():
        report.tables.append(
            ReportTable(
                f"{algorithm}: learned w per covariate, median [min, max] over seeds",
                ["covariate", "median w", "min", "max"],
                [[f, f"{m:.4g}", f"{lo:.4g}", f"{hi:.4g}"] for f, (m, lo, hi) in ranges.items()],
            )
        )
    return {a: {f: m[0] for f, m in ranges.items()} for a, ranges in spreads.items()}, "median over seeds"
