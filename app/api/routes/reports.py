"""GET /jobs/{id}/report and /sweeps/{id}/report: JSON, Markdown or HTML with figures."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import JSONResponse

from app import reports
from app.api.deps import PrincipalDep, SessionDep
from app.api.errors import responses
from app.api.etag import etag_of, matches, not_modified
from app.api.public import job_public, sweep_public
from app.jobs import service as jobs_service
from app.sweeps import service as sweeps_service

router = APIRouter(tags=["reports"])

Format = Annotated[Literal["json", "markdown", "html"], Query(description="json (default), markdown or html")]
FigureFormat = Annotated[
    Literal["png", "svg"], Query(description="html: embed figures as base64 PNG or inline SVG")
]

REPORT_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The report: JSON data, or a Markdown or self-contained HTML document with figures",
        "content": {
            "application/json": {"schema": {"type": "object", "additionalProperties": True}},
            "text/markdown": {"schema": {"type": "string"}},
            "text/html": {"schema": {"type": "string"}},
        },
    },
    **responses(401, 404, 422),
}


def _render(
    request: Request, shown: Any, report: reports.Report, format: str, figures: Literal["png", "svg"]
) -> Response:
    """JSON, or a Markdown/HTML document drawn once per ETag (the hash of the data ``shown``)."""
    if format == "json":
        return JSONResponse(report.to_json())
    tag = etag_of(json.dumps([shown, format, figures], sort_keys=True, default=str).encode())
    if matches(request, tag):
        return not_modified(tag)
    renderer: reports.Renderer = request.app.state.renderer
    if format == "markdown":
        text = renderer.render(tag, lambda: reports.to_markdown(report))
        return Response(text, media_type="text/markdown; charset=utf-8", headers={"ETag": tag})
    text = renderer.render(tag, lambda: reports.to_html(report, figures))
    return Response(text, media_type="text/html; charset=utf-8", headers={"ETag": tag})


@router.get(
    "/jobs/{job_id}/report",
    operation_id="get_job_report",
    response_class=Response,
    responses=REPORT_RESPONSES,
)
def get_job_report(
    job_id: str,
    request: Request,
    session: SessionDep,
    principal: PrincipalDep,
    format: Format = "json",
    figures: FigureFormat = "png",
) -> Response:
    """Per-environment error, learned w and θ per covariate, R(θ) and w over rounds, and the
    reproducibility record. Shows the result GET /jobs/{id} shows: a job cancelled while running
    reports its partial fit (and says so)."""
    job = jobs_service.get_job(session, job_id, principal.tenant_id)
    # The same result GET /jobs/{id} shows: a job cancelled while running reports its partial fit.
    public = job_public(job, jobs_service.result_of(session, job)).model_dump(mode="json")
    return _render(request, public, reports.job_report(public), format, figures)


@router.get(
    "/sweeps/{sweep_id}/report",
    operation_id="get_sweep_report",
    response_class=Response,
    responses=REPORT_RESPONSES,
)
def get_sweep_report(
    sweep_id: str,
    request: Request,
    session: SessionDep,
    principal: PrincipalDep,
    format: Format = "json",
    figures: FigureFormat = "png",
) -> Response:
    """The leaderboard (labelled when selection is oracle), per-environment test error by method,
    w and θ per covariate of the selected models, and R(θ) and w over rounds."""
    public = sweep_public(*sweeps_service.get_sweep(session, sweep_id, principal.tenant_id)).model_dump(
        mode="json"
    )
    histories: dict[str, Any] = {}
    rows = (public.get("leaderboard") or {}).get("algorithms", [])
    for row in sorted(rows, key=lambda r: r["algorithm"] != "sal"):
        if row.get("covariate_weights") and row["jobs"]:
            result = jobs_service.stored_result(session, row["jobs"][0])  # the sweep's own job: same tenant
            histories[row["algorithm"]] = [] if result is None else [r.model_dump() for r in result.history]
            break
    # w per seed of each selected configuration (the sweep's own jobs), shown as median and range.
    seed_weights = {
        row["algorithm"]: [
            r.covariate_weights
            for r in jobs_service.stored_results(session, row["jobs"]).values()
            if r.covariate_weights
        ]
        for row in rows
        if row.get("covariate_weights") and row.get("jobs")
    }
    report = reports.sweep_report(public, histories, seed_weights)
    return _render(request, [public, histories, seed_weights], report, format, figures)
