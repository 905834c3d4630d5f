"""The browser-facing edge: which hosts the API answers, which origins may change state, and the
headers that keep its HTML pages (reports, /docs) from running or framing anything foreign.

    Host not allowed (allowed_hosts; single-user: loopback   -> 400: a DNS-rebinding page reaches
    names and the bound host only)                                 127.0.0.1 under its own name
    POST/PUT/PATCH/DELETE whose Origin is another site, or    -> 403: a page elsewhere cannot make
    Sec-Fetch-Site cross-site/same-site without an Origin          the browser write (no-cors forms)
    every response                                            -> X-Content-Type-Options: nosniff
    HTML reports, /docs and /redoc                            -> a Content-Security-Policy (no frames;
                                                                 reports: no script at all)

Requests without Origin or Sec-Fetch-Site (curl, the CLI, httpx) are not browsers' cross-site
requests and pass. A page of the API's own origin (the dashboard) passes.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.errors import ApiError, problem_response
from app.settings import Settings, is_loopback

__all__ = ["BrowserEdge", "DOCS_CSP", "Forbidden", "REPORT_CSP", "allowed_hosts"]


class Forbidden(ApiError):
    status, title, slug = 403, "Forbidden", "forbidden"


UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# Starlette's TestClient sends this Host; it is no name a public DNS answers, so no rebinding page has it.
_LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1", "testserver")

# A report is self-contained: inline CSS and SVG, data: images, no script at all.
REPORT_CSP = (
    "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'"
)
# /docs and /redoc: Swagger UI and ReDoc from the service's own /docs-assets (app.main), each page's
# one inline bootstrap script; images may come from FastAPI's and ReDoc's logos only.
DOCS_CSP = (
    "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: https://fastapi.tiangolo.com https://cdn.redoc.ly; font-src 'self' data:; "
    "worker-src blob:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
_CSP_PATHS = ("/docs", "/redoc")


def allowed_hosts(settings: Settings) -> list[str] | None:
    """Host names the API answers; None: any."""
    if settings.allowed_hosts:
        return [h.lower() for h in settings.allowed_hosts]
    if not settings.single_user:
        return None
    names = list(_LOOPBACK_NAMES)
    if not is_loopback(settings.host) and settings.host not in ("0.0.0.0", "::"):
        names.append(settings.host.lower())
    return names


def _host_name(host: str) -> str:
    """``example.com:8000`` -> ``example.com``; ``[::1]:8000`` -> ``::1``."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


class BrowserEdge:
    """Pure ASGI middleware applying the table above."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.hosts = allowed_hosts(settings)
        self.origins = {o.rstrip("/").lower() for o in settings.allowed_origins}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        host = headers.get("host", "")
        if self.hosts is not None and "*" not in self.hosts and _host_name(host) not in self.hosts:
            response = problem_response(
                400,
                "Bad Request",
                "untrusted-host",
                f"this service does not answer to the host {host[:100]!r} (SAL_ALLOWED_HOSTS)",
            )
            await response(scope, receive, send)
            return
        if scope["method"] in UNSAFE_METHODS and self._cross_origin(headers, host):
            response = problem_response(
                403,
                "Forbidden",
                "cross-origin",
                "state-changing requests from another origin are refused (SAL_ALLOWED_ORIGINS)",
            )
            await response(scope, receive, send)
            return
        csp = REPORT_CSP if scope["path"].endswith("/report") else None
        if scope["path"] in _CSP_PATHS:
            csp = DOCS_CSP

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                out = MutableHeaders(scope=message)
                out.setdefault("X-Content-Type-Options", "nosniff")
                if csp is not None and out.get("content-type", "").startswith("text/html"):
                    out["Content-Security-Policy"] = csp
                    out["X-Frame-Options"] = "DENY"
                    out["Referrer-Policy"] = "no-referrer"
            await send(message)

        await self.app(scope, receive, sending)

    def _cross_origin(self, headers: Headers, host: str) -> bool:
        origin = headers.get("origin")
        if origin is not None:
            if origin.rstrip("/").lower() in self.origins:
                return False
            parts = urlsplit(origin)
            # The scheme may differ behind a TLS proxy; the host and port may not.
            return origin == "null" or parts.netloc.lower() != host.strip().lower()
        return headers.get("sec-fetch-site", "").lower() in ("cross-site", "same-site")
