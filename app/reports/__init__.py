"""Reports of jobs and sweeps (JSON, Markdown, HTML with matplotlib figures); pure functions from
their public JSON: ``job`` and ``sweep`` build a Report, ``render`` turns one into a document."""

from app.reports.job import job_report
from app.reports.render import Renderer, to_html, to_markdown
from app.reports.report import Report
from app.reports.sweep import sweep_report

__all__ = ["Renderer", "Report", "job_report", "sweep_report", "to_html", "to_markdown"]
