"""Reports of a job or a sweep as JSON, Markdown or HTML: pure functions from their public JSON.

:func:`job_report` and :func:`sweep_report` build a :class:`Report` (the data, its tables and its
figures); :func:`to_markdown` and :func:`to_html` render one. HTML is a single self-contained page:
figures are embedded as base64 PNG (``<img>``) or inline SVG, each in ``<figure id="fig-NAME">``.
Markdown embeds the PNGs as data URIs.
"""

from __future__ import annotations

import base64
import html
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from matplotlib.figure import Figure

from app.jobs.result import JobResult
from app.reports import figures as F
from sal_core.metrics import error_of

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


def _num(x: Any, digits: int = 4) -> str:
    if x is None:
        return "–"
    if isinstance(x, float):
        return f"{x:.{digits}g}"
    return str(x)


def _pm(ms: Mapping[str, float]) -> str:
    return f"{ms['mean']:.4f} ± {ms['std']:.4f}"


def _params(p: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={_num(v)}" for k, v in p.items()) or "defaults"


# --- jobs -------------------------------------------------------------------------------------


def job_report(job: Mapping[str, Any]) -> Report:
    """The report of one job from its public JSON (``JobPublic``); its result is read as the typed
    :class:`~app.jobs.result.JobResult`."""
    stored = job.get("result")
    result = None if stored is None else JobResult.model_validate(stored)
    summary = None if result is None else result.summary
    envs = [] if result is None else result.environments
    theta = None if result is None else result.coefficients
    w = None if result is None else result.covariate_weights
    history = [] if result is None else [r.model_dump() for r in result.history]

    def dumped(block: Any) -> Any:
        return None if block is None else block.model_dump()

    report = Report(
        title=f"Job {job['id']}: {job['algorithm']} ({job['task']}), {job['status']}",
        data={
            "kind": "job",
            "job_id": job["id"],
            "status": job["status"],
            "algorithm": job["algorithm"],
            "task": job["task"],
            "params": job["params"],
            "reproducibility": job.get("reproducibility"),
            "summary": dumped(summary),
            "environments": [e.model_dump() for e in envs],
            "validation": dumped(None if result is None else result.validation),
            "coefficients": theta,
            "intercept": None if result is None else result.intercept,
            "covariate_weights": w,
            "certificate": dumped(None if result is None else result.certificate),
            "history": history,
        },
    )
    if job.get("error"):
        report.notes.append(f"Error: {job['error']['type']}: {job['error']['message']}")
    if result is None:
        report.notes.append(NO_RESULT_NOTE)
    elif job["status"] == "cancelled":
        report.notes.append(PARTIAL_RESULT_NOTE)
    if summary is not None:
        report.tables.append(
            ReportTable(
                "Test summary",
                ["metric", "Mean_Error", "Std_Error", "worst", "worst environment"],
                [
                    [
                        summary.metric,
                        _num(summary.mean_error),
                        _num(summary.std_error),
                        _num(summary.worst_error),
                        str(summary.worst_environment),
                    ]
                ],
            )  # fmt: skip
        )
    if envs:
        metrics = list(envs[0].metrics())
        report.tables.append(
            ReportTable(
                "Per-environment metrics",
                ["environment", "split", "rows", *metrics],
                [
                    [e.name, e.split, str(e.n_rows), *(_num(e.metrics().get(m)) for m in metrics)]
                    for e in envs
                ],
            )
        )
    if result is not None and result.validation is not None:
        v = result.validation
        report.tables.append(ReportTable("Validation (held out from training)", ["metric", "error", "rows"],
                                         [[v.metric, _num(v.error), str(v.n_rows)]]))  # fmt: skip
    if theta:
        report.tables.append(
            ReportTable(
                "Learned parameters per covariate",
                ["covariate", "θ", "w"],
                [[f, _num(t), _num(w.get(f)) if w else "–"] for f, t in theta.items()],
            )
        )
    repro = job.get("reproducibility") or {}
    report.tables.append(
        ReportTable(
            "Reproducibility",
            ["field", "value"],
            [[k, json.dumps(v) if isinstance(v, dict | list) else _num(v)] for k, v in repro.items()],
        )
    )
    name = job["algorithm"]
    if envs and summary is not None:
        metric = summary.metric
        errors = {
            e.name + (" (train)" if e.split == "train" else ""): error_of(e.metrics(), metric) for e in envs
        }
        report.figures["error-by-environment"] = (
            "Error per environment",
            lambda: F.error_by_environment({name: errors}, metric, title=f"{metric} per environment"),
        )
    if w:
        weights = w
        report.figures["covariate-weights"] = (
            "Learned w per covariate",
            lambda: F.covariate_weights({name: weights}),
        )
    if theta:
        coefficients = theta
        report.figures["coefficients"] = ("θ per covariate", lambda: F.coefficients({name: coefficients}))
    if F.has_curves(history):
        features = list(theta or w or [])
        report.figures["training-curves"] = (
            "R(θ) and w over rounds",
            lambda: F.training_curves(history, features),
        )
    return report


# --- sweeps -----------------------------------------------------------------------------------


def sweep_report(
    sweep: Mapping[str, Any], histories: Mapping[str, Sequence[Mapping[str, Any]]] | None = None
) -> Report:
    """The report of a sweep from its public JSON (``SweepPublic``); ``histories`` are training
    histories {algorithm: history} of selected jobs (first seed) for the training-curve figure."""
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
                    _params(r.get("searched_params", r["selected_params"])),
                    _pm(r["mean_error"]),
                    _pm(r["std_error"]),
                    _pm(r["worst_error"]),
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
                [[e, *(_pm(r["environments"][e]) for r in rows)] for e in envs],
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
    if weights:
        report.figures["covariate-weights"] = (
            "Learned w per covariate (mean over seeds)",
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


# --- rendering --------------------------------------------------------------------------------


def draw(report: Report) -> dict[str, tuple[str, Figure]]:
    return {name: (title, make()) for name, (title, make) in report.figures.items()}


def to_markdown(report: Report) -> str:
    out = [f"# {report.title}", ""]
    out += [f"> {note}" for note in report.notes]
    for table in report.tables:
        out += ["", f"## {table.title}", "", "| " + " | ".join(table.columns) + " |",
                "|" + "---|" * len(table.columns)]  # fmt: skip
        out += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in table.rows]
    for name, (title, fig) in draw(report).items():
        png = base64.b64encode(F.to_png(fig)).decode()
        out += ["", f"## {title}", "", f"![{name}](data:image/png;base64,{png})"]
    return "\n".join(out) + "\n"


_CSS = """body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:1000px;color:#222}
table{border-collapse:collapse;margin:.5rem 0 1.5rem}th,td{border:1px solid #ccc;padding:.25rem .6rem;
font-size:.85rem;text-align:left}th{background:#f2f2f2}.note{background:#fff4e5;border-left:4px solid #f28e2b;
padding:.4rem .8rem}figure{margin:1rem 0}figcaption{font-size:.9rem;color:#555}img,svg{max-width:100%;height:auto}"""


def to_html(report: Report, figure_format: Literal["png", "svg"] = "png") -> str:
    e = html.escape
    parts = [f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{e(report.title)}</title>",
             f"<style>{_CSS}</style></head><body><h1>{e(report.title)}</h1>"]  # fmt: skip
    parts += [f"<p class=note>{e(note)}</p>" for note in report.notes]
    for table in report.tables:
        head = "".join(f"<th>{e(c)}</th>" for c in table.columns)
        body = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>" for row in table.rows)
        parts.append(
            f"<h2>{e(table.title)}</h2><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
        )
    for name, (title, fig) in draw(report).items():
        if figure_format == "svg":
            picture = F.to_svg(fig)
        else:
            png = base64.b64encode(F.to_png(fig)).decode()
            picture = f'<img alt="{e(title)}" src="data:image/png;base64,{png}">'
        parts.append(
            f'<figure id="fig-{e(name)}" class=figure>{picture}<figcaption>{e(title)}</figcaption></figure>'
        )
    parts.append("</body></html>")
    return "".join(parts)
