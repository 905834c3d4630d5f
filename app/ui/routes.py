"""Routes serving the dashboard's shell and its assets (left out of the OpenAPI document)."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse, RedirectResponse, Response

STATIC = Path(__file__).parent / "static"
# The only files served: a fixed set, so no path from the URL ever reaches the filesystem.
ASSETS = {"app.js": "text/javascript", "charts.js": "text/javascript", "style.css": "text/css"}
# Scripts and styles from this origin only, no inline script; data: and blob: for downloads and
# the SVG patterns the charts use.
HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
        "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}

router = APIRouter(prefix="/ui", include_in_schema=False)


@router.get("")
def shell() -> Response:
    return FileResponse(STATIC / "index.html", media_type="text/html", headers=HEADERS)


@router.get("/")
def shell_slash() -> Response:
    return RedirectResponse("/ui", status_code=308)


@router.get("/static/{name}")
def asset(name: str) -> Response:
    media_type = ASSETS.get(name)
    if media_type is None:
        return Response(status_code=404)
    return FileResponse(STATIC / name, media_type=media_type, headers=HEADERS)
