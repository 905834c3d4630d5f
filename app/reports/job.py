"""The report of one job, from its public JSON; the result is read as the typed JobResult."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from app.jobs.result import JobResult
from app.reports import figures as F
from app.reports.report import NO_RESULT_NOTE, PARTIAL_RESULT_NOTE, Report, ReportTable, num
from sal_core.metrics import error_of


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
                        num(summary.mean_error),
                        num(summary.std_error),
                        num(summary.worst_error),
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
                [[e.name, e.split, str(e.n_rows), *(num(e.metrics().get(m)) for m in metrics)] for e in envs],
            )
        )
    if result is not None and result.validation is not None:
        v = result.validation
        report.tables.append(ReportTable("Validation (held out from training)", ["metric", "error", "rows"],
                                         [[v.metric, num(v.error), str(v.n_rows)]]))  # fmt: skip
    if theta:
        report.tables.append(
            ReportTable(
                "Learned parameters per covariate",
                ["covariate", "θ", "w"],
                [[f, num(t), num(w.get(f)) if w else "–"] for f, t in theta.items()],
            )
        )
    if result is not None and result.certificate is not None:
        c = result.certificate
        report.tables.append(ReportTable("Certificate (Theorem 1)", ["ρ̂ (transport budget)", "worst-case risk"],
                                         [[num(c.rho_hat), num(c.worst_case_risk)]]))  # fmt: skip
    selection = None if result is None else result.selection
    if selection:
        report.tables.extend(_selection_tables(selection))
    repro = job.get("reproducibility") or {}
    report.tables.insert(0, _run_table(job, repro))
    report.tables.append(
        ReportTable(
            "Reproducibility",
            ["field", "value"],
            [[k, json.dumps(v) if isinstance(v, dict | list) else num(v)] for k, v in repro.items()],
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


def _run_table(job: Mapping[str, Any], repro: Mapping[str, Any]) -> ReportTable:
    """What the run is: its name, tags and description, and the data it learned from."""
    rows = [
        ["name", str(job.get("name") or "–")],
        ["tags", ", ".join(job.get("tags") or []) or "–"],
        ["description", str(job.get("description") or "–")],
        ["dataset", str(job.get("dataset_id") or "– (deleted)")],
        ["dataset sha256", str(repro.get("dataset_sha256") or "–")],
        ["train environments", ", ".join(job.get("train_environments") or [])],
        ["test environments", ", ".join(job.get("test_environments") or [])],
    ]
    return ReportTable("Run", ["field", "value"], rows)


def _selection_tables(selection: Mapping[str, Any]) -> list[ReportTable]:
    """How an "auto" hyper-parameter was chosen: the rule, each candidate's score, the choice."""
    parameter = str(selection.get("parameter", "parameter"))
    chosen = selection.get("chosen") or {}
    rule = [[k, json.dumps(v) if isinstance(v, dict | list) else num(v)] for k, v in selection.items()
            if k not in ("candidates", "chosen", "covariate_weights")]  # fmt: skip
    tables = [ReportTable(f"Selection of {parameter}", ["field", "value"],
                          [*rule, ["chosen", json.dumps(chosen, default=str)]])]  # fmt: skip
    candidates = [c for c in selection.get("candidates") or [] if isinstance(c, Mapping)]
    if candidates:
        keys = list(dict.fromkeys(k for c in candidates for k in c if not isinstance(c[k], dict | list)))
        tables.append(ReportTable(f"Candidates for {parameter} (the chosen one marked *)", ["", *keys],
                                  [["*" if c == chosen else "", *(num(c.get(k)) for k in keys)] for c in candidates]))  # fmt: skip
    return tables
