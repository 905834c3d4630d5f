"""Rendering a :class:`~app.reports.report.Report` (built by ``app.reports.job`` or
``app.reports.sweep``): :func:`to_markdown` and :func:`to_html`. HTML is a single self-contained page:
figures are embedded as base64 PNG (``<img>``) or inline SVG, each in ``<figure id="fig-NAME">``.
Markdown embeds the PNGs as data URIs.
"""

from __future__ import annotations

import base64
import html
import threading
from collections.abc import Callable
from typing import Literal

from matplotlib.figure import Figure

from app.cache import LRUCache
from app.errors import ServiceUnavailable
from app.reports import figures as F
from app.reports.report import Report


def draw(report: Report) -> dict[str, tuple[str, Figure]]:
    return {name: (title, make()) for name, (title, make) in report.figures.items()}


def md(text: str) -> str:
    """Stored text (names of environments, features, datasets) as Markdown shows it literally: HTML
    escaped (a CommonMark renderer passes raw HTML through), on one line, pipes escaped. ``_`` and
    ``*`` stay: names like Mean_Error read the same either way."""
    return html.escape(" ".join(str(text).splitlines()), quote=False).replace("|", "\\|")


def to_markdown(report: Report) -> str:
    out = [f"# {md(report.title)}", ""]
    out += [f"> {md(note)}" for note in report.notes]
    for table in report.tables:
        out += ["", f"## {md(table.title)}", "", "| " + " | ".join(md(c) for c in table.columns) + " |",
                "|" + "---|" * len(table.columns)]  # fmt: skip
        out += ["| " + " | ".join(md(cell) for cell in row) + " |" for row in table.rows]
    for name, (title, fig) in draw(report).items():
        png = base64.b64encode(F.to_png(fig)).decode()
        out += ["", f"## {md(title)}", "", f"![{md(name)}](data:image/png;base64,{png})"]
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


class Renderer:
    """Markdown and HTML documents by key (the report's ETag: the hash of the data it shows, its
    format and figure format), so an unchanged report is drawn once; at most ``concurrency``
    renders run at once in this process (a render costs about a second of CPU), others wait up to
    ``wait_s`` and then get a 503."""

    def __init__(self, cache_size: int, concurrency: int, wait_s: float = 30.0) -> None:
        self._cache = LRUCache[str, str](cache_size)
        self._slots = threading.BoundedSemaphore(concurrency)
        self._wait_s = wait_s

    def render(self, key: str, draw_document: Callable[[], str]) -> str:
        """The cached document under ``key``, else ``draw_document()`` (blocking: call it from a
        worker thread, as the sync report routes run)."""
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        if not self._slots.acquire(timeout=self._wait_s):
            raise ServiceUnavailable(
                "every report renderer is busy; retry shortly", headers={"Retry-After": "5"}
            )
        try:
            cached = self._cache.get(key)  # drawn by another request while this one waited
            if cached is None:
                cached = draw_document()
                self._cache.put(key, cached)
            return cached
        finally:
            self._slots.release()
