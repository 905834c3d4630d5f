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
from app.reports import service as reports_service

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
    shown, report = reports_service.job_report_of(session, job_id, principal.tenant_id)
    return _render(request, shown, report, format, figures)


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
    shown, report = reports_service.sweep_report_of(session, sweep_id, principal.tenant_id)
    return _render(request, shown, report, format, figures)
