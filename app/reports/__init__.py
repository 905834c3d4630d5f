"""Reports of jobs and sweeps (JSON, Markdown, HTML with matplotlib figures); pure functions."""

from app.reports.render import Report, job_report, sweep_report, to_html, to_markdown

__all__ = ["Report", "job_report", "sweep_report", "to_html", "to_markdown"]
