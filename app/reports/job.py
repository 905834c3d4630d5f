"""The report of one job, from the typed job (``JobPublic``, its result a ``JobResult``): one short
function per section, each taking the typed block it shows."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from app.jobs.result import (
    CertificatePublic,
    EnvironmentResult,
    JobResult,
    ReferenceComparison,
    Selection,
    Summary,
    ValidationResult,
    WEvidence,
)
from app.jobs.schemas import JobPublic
from app.reports import figures as F
from app.reports.report import NO_RESULT_NOTE, PARTIAL_RESULT_NOTE, Report, ReportTable, num
from sal_core.metrics import error_of


def job_report(job: JobPublic) -> Report:
    """The report of one job: its run, test summary, per-environment metrics, validation, θ and w,
    certificate, λ selection and reproducibility record, with figures."""
    result = job.result
    repro = {} if job.reproducibility is None else job.reproducibility.model_dump(mode="json")
    report = Report(
        title=f"Job {job.id}: {job.algorithm} ({job.task}), {job.status}",
        data=_data(job, result),
    )
    if job.error is not None:
        report.notes.append(f"Error: {job.error.type}: {job.error.message}")
    if result is None:
        report.notes.append(NO_RESULT_NOTE)
    elif job.status == "cancelled":
        report.notes.append(PARTIAL_RESULT_NOTE)
    report.tables.append(_run_table(job, repro))
    if result is not None:
        report.tables.extend(_result_tables(result))
    report.tables.append(
        ReportTable(
            "Reproducibility",
            ["field", "value"],
            [[k, json.dumps(v) if isinstance(v, dict | list) else num(v)] for k, v in repro.items()],
        )
    )
    if result is not None:
        report.figures.update(_figures(job.algorithm, result))
    return report


def _data(job: JobPublic, result: JobResult | None) -> dict[str, Any]:
    """The report's JSON: the job's identity and parameters, and its result's blocks."""

    def dumped(block: Any) -> Any:
        return None if block is None else block.model_dump()

    return {
        "kind": "job",
        "job_id": job.id,
        "status": job.status,
        "algorithm": job.algorithm,
        "task": job.task,
        "params": job.params,
        "reproducibility": None
        if job.reproducibility is None
        else job.reproducibility.model_dump(mode="json"),
        "summary": dumped(None if result is None else result.summary),
        "environments": [] if result is None else [e.model_dump() for e in result.environments],
        "validation": dumped(None if result is None else result.validation),
        "coefficients": None if result is None else result.coefficients,
        "intercept": None if result is None else result.intercept,
        "covariate_weights": None if result is None else result.covariate_weights,
        "certificate": dumped(None if result is None else result.certificate),
        "reference": dumped(None if result is None else result.reference),
        "history": [] if result is None else [r.model_dump() for r in result.history],
    }


def _result_tables(result: JobResult) -> list[ReportTable]:
    tables = []
    if result.summary is not None:
        tables.append(_summary_table(result.summary))
    if result.reference is not None:
        tables.append(_reference_table(result.reference))
    if result.environments:
        tables.append(_environments_table(result.environments))
    if result.validation is not None:
        tables.append(_validation_table(result.validation))
    if result.coefficients:
        tables.append(_parameters_table(result.coefficients, result.covariate_weights, _w_evidence(result)))
    if result.certificate is not None:
        tables.append(_certificate_table(result.certificate))
    if result.selection:
        tables.extend(_selection_tables(result.selection))
    return tables


def _summary_table(s: Summary) -> ReportTable:
    return ReportTable(
        "Test summary",
        ["metric", "Mean_Error", "Std_Error", "worst", "worst environment"],
        [[s.metric, num(s.mean_error), num(s.std_error), num(s.worst_error), str(s.worst_environment)]],
    )


def _reference_table(r: ReferenceComparison) -> ReportTable:
    """The job against ERM on the same test rows, with the verdict its paired standard error allows."""
    if abs(r.difference) <= 2 * r.standard_error:
        verdict = "within noise (≤ 2 standard errors)"
    else:
        verdict = f"{'better' if r.difference < 0 else 'worse'} than {r.algorithm.upper()}"
    return ReportTable(
        f"Against {r.algorithm.upper()} on the same test rows",
        [
            "metric",
            f"{r.algorithm.upper()} Mean_Error",
            "difference (this job − reference)",
            "standard error",
            "verdict",
        ],
        [[r.metric, num(r.mean_error), num(r.difference), num(r.standard_error), verdict]],
    )


def _environments_table(envs: list[EnvironmentResult]) -> ReportTable:
    metrics = list(envs[0].metrics())
    return ReportTable(
        "Per-environment metrics",
        ["environment", "split", "rows", *metrics],
        [[e.name, e.split, str(e.n_rows), *(num(e.metrics().get(m)) for m in metrics)] for e in envs],
    )


def _validation_table(v: ValidationResult) -> ReportTable:
    return ReportTable(
        "Validation (held out from training)",
        ["metric", "error", "rows"],
        [[v.metric, num(v.error), str(v.n_rows)]],
    )


def _parameters_table(
    theta: Mapping[str, float], w: Mapping[str, float] | None, evidence: WEvidence | None
) -> ReportTable:
    """θ and w per covariate; with SAL's evidence for w (``lambda_="auto"``), w's range over the fold
    fits and whether the data determine w at all (issue 18: a w at the cap on a covariate y does not
    depend on is no evidence of stability)."""
    if evidence is None:
        return ReportTable(
            "Learned parameters per covariate",
            ["covariate", "θ", "w"],
            [[f, num(t), num(w.get(f)) if w else "–"] for f, t in theta.items()],
        )
    low, high, determined = evidence.low, evidence.high, evidence.determined
    return ReportTable(
        "Learned parameters per covariate",
        ["covariate", "θ", "w", "w over folds", "w determined by the data"],
        [
            [
                f,
                num(t),
                num(w.get(f)) if w else "–",
                f"{num(low[i])} – {num(high[i])}",
                "yes" if determined[i] else "no",
            ]
            for i, (f, t) in enumerate(theta.items())
        ],
    )


def _w_evidence(result: JobResult) -> WEvidence | None:
    """``selection.covariate_weights`` with w's range and determined flags, or None; an MLP's sits
    one level down, under the linear path that learned its w (``Selection.w_evidence``)."""
    evidence = None if result.selection is None else result.selection.w_evidence()
    n = len(result.coefficients or {})
    if evidence is None or any(len(v) != n for v in (evidence.low, evidence.high, evidence.determined)):
        return None
    return evidence


def _certificate_table(c: CertificatePublic) -> ReportTable:
    return ReportTable(
        "Certificate (Theorem 1)",
        ["ρ̂ (transport budget)", "worst-case risk"],
        [[num(c.rho_hat), num(c.worst_case_risk)]],
    )


def _figures(name: str, result: JobResult) -> dict[str, tuple[str, Any]]:
    """The figures of a result: error per environment, w and θ per covariate, the training curves."""
    figures: dict[str, tuple[str, Any]] = {}
    envs, summary, w, theta = (
        result.environments,
        result.summary,
        result.covariate_weights,
        result.coefficients,
    )
    if envs and summary is not None:
        metric = summary.metric
        errors = {
            e.name + (" (train)" if e.split == "train" else ""): error_of(e.metrics(), metric) for e in envs
        }
        figures["error-by-environment"] = (
            "Error per environment",
            lambda: F.error_by_environment({name: errors}, metric, title=f"{metric} per environment"),
        )
    if w:
        weights = w
        figures["covariate-weights"] = (
            "Learned w per covariate",
            lambda: F.covariate_weights({name: weights}),
        )
    if theta:
        coefficients = theta
        figures["coefficients"] = ("θ per covariate", lambda: F.coefficients({name: coefficients}))
    history = [r.model_dump() for r in result.history]
    if F.has_curves(history):
        features = list(theta or w or [])
        figures["training-curves"] = ("R(θ) and w over rounds", lambda: F.training_curves(history, features))
    return figures


def _run_table(job: JobPublic, repro: Mapping[str, Any]) -> ReportTable:
    """What the run is: its name, tags and description, and the data it learned from."""
    rows = [
        ["name", str(job.name or "–")],
        ["tags", ", ".join(job.tags) or "–"],
        ["description", str(job.description or "–")],
        ["dataset", str(job.dataset_id or "– (deleted)")],
        ["dataset sha256", str(repro.get("dataset_sha256") or "–")],
        ["train environments", ", ".join(job.train_environments)],
        ["test environments", ", ".join(job.test_environments)],
    ]
    return ReportTable("Run", ["field", "value"], rows)


def _selection_tables(selection: Selection) -> list[ReportTable]:
    """How an "auto" hyper-parameter was chosen: the rule, each candidate's score, the choice; every
    field as stored (an old result's retired fields too)."""
    parameter = selection.parameter or "parameter"
    chosen = {} if selection.chosen is None else selection.chosen.model_dump(mode="json")
    rule = [[k, json.dumps(v) if isinstance(v, dict | list) else num(v)]
            for k, v in selection.model_dump(mode="json", exclude={"candidates", "chosen", "covariate_weights"}).items()]  # fmt: skip
    tables = [ReportTable(f"Selection of {parameter}", ["field", "value"],
                          [*rule, ["chosen", json.dumps(chosen, default=str)]])]  # fmt: skip
    candidates = [c.model_dump(mode="json") for c in selection.candidates or []]
    if candidates:
        keys = list(dict.fromkeys(k for c in candidates for k in c if not isinstance(c[k], dict | list)))
        tables.append(ReportTable(f"Candidates for {parameter} (the chosen one marked *)", ["", *keys],
                                  [["*" if c == chosen else "", *(num(c.get(k)) for k in keys)] for c in candidates]))  # fmt: skip
    return tables
