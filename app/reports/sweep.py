"""The report of a sweep, from its public JSON: the leaderboard and the figures comparing methods."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.reports import figures as F
from app.reports.report import ORACLE_LABEL, Report, ReportTable, params_text, plus_minus


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
    sweep: Mapping[str, Any],
    histories: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
    seed_weights: Mapping[str, Sequence[Mapping[str, float]]] | None = None,
) -> Report:
    """The report of a sweep from its public JSON (``SweepPublic``); ``histories`` are training
    histories {algorithm: history} of selected jobs (first seed) for the training-curve figure;
    ``seed_weights`` {algorithm: [w per seed]} of the selected jobs, shown as median and range."""
    board = sweep.get("leaderboard")
    oracle = bool(sweep.get("oracle"))
    report = Report(
        title=f"Sweep {sweep['id']}: {sweep['selection']} selection{' (ORACLE)' if oracle else ''}, {sweep['status']}",
        data={
            "kind": "sweep",
            "sweep_id": sweep["id"],
            "status": sweep["status"],
            "selection": sweep["selection"],
            "oracle": oracle,
            "progress": sweep["progress"],
            "leaderboard": board,
        },  # fmt: skip
    )
    if oracle:
        report.notes.append(ORACLE_LABEL)
    progress = sweep["progress"]
    report.notes.append(
        f"{progress['done']} of {progress['total']} trials finished ({progress['succeeded']} succeeded, "
        f"{progress['failed']} failed, {progress['cancelled']} cancelled); seeds {sweep['seeds']}."
    )
    if not board:
        report.notes.append("No leaderboard yet: it is computed once every trial has finished.")
        return report
    rows = board["algorithms"]
    label = " (oracle)" if oracle else ""
    report.tables.append(
        ReportTable(
            f"Leaderboard{label}: test error, mean ± std over seeds",
            [
                "rank",
                "algorithm",
                f"selected hyper-parameters{label}",
                "Mean_Error",
                "Std_Error",
                "worst",
                "worst environment",
            ],
            [
                [
                    str(r["rank"]),
                    r["algorithm"],
                    params_text(r.get("searched_params", r["selected_params"])),
                    plus_minus(r["mean_error"]),
                    plus_minus(r["std_error"]),
                    plus_minus(r["worst_error"]),
                    str(r["worst_environment"]),
                ]
                for r in rows
            ],
        )  # fmt: skip
    )
    if rows:
        envs = list(rows[0]["environments"])
        report.tables.append(
            ReportTable(
                f"Test {rows[0]['metric']} per environment (mean ± std over seeds)",
                ["environment", *(r["algorithm"] for r in rows)],
                [[e, *(plus_minus(r["environments"][e]) for r in rows)] for e in envs],
            )
        )
        metric = rows[0]["metric"]
        errors = {r["algorithm"]: {e: v["mean"] for e, v in r["environments"].items()} for r in rows}
        spread = {r["algorithm"]: {e: v["std"] for e, v in r["environments"].items()} for r in rows}
        report.figures["error-by-environment"] = (
            f"Test {metric} per environment by method{label}",
            lambda: F.error_by_environment(
                errors, metric, spread, title=f"Test {metric} per environment{label}"
            ),
        )
    weights = {r["algorithm"]: r["covariate_weights"] for r in rows if r.get("covariate_weights")}
    spreads = {a: median_over_seeds(ws) for a, ws in (seed_weights or {}).items() if ws}
    how = "mean over seeds"
    if spreads:
        weights = {a: {f: m[0] for f, m in ranges.items()} for a, ranges in spreads.items()}
        how = "median over seeds"
        for algorithm, ranges in spreads.items():
            report.tables.append(
                ReportTable(
                    f"{algorithm}: learned w per covariate, median [min, max] over seeds",
                    ["covariate", "median w", "min", "max"],
                    [[f, f"{m:.4g}", f"{lo:.4g}", f"{hi:.4g}"] for f, (m, lo, hi) in ranges.items()],
                )
            )
    if weights:
        report.figures["covariate-weights"] = (
            f"Learned w per covariate ({how})",
            lambda: F.covariate_weights(weights),
        )
    theta = {r["algorithm"]: r["coefficients"] for r in rows if r.get("coefficients")}
    if theta:
        report.figures["coefficients"] = (
            "θ per covariate by method (mean over seeds)",
            lambda: F.coefficients(theta),
        )
    for algorithm, history in (histories or {}).items():
        if F.has_curves(history):
            features = list(weights.get(algorithm) or theta.get(algorithm) or [])
            report.figures["training-curves"] = (
                f"R(θ) and w over rounds ({algorithm}, first seed)",
                lambda h=history, f=features: F.training_curves(h, f),  # type: ignore[misc]
            )
            break
    if board.get("unselected"):
        report.tables.append(
            ReportTable(
                "Not selected", ["algorithm", "reason"], [[k, v] for k, v in board["unselected"].items()]
            )
        )
    return report
