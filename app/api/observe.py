"""What every request leaves behind: a Prometheus count and latency by its route template, not its
path (one series for /jobs/{job_id}, not one per job; app.metrics), and one JSON access line
carrying its request id (app.logs), which is also returned as ``X-Request-ID``."""

from __future__ import annotations

import logging
import time

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app import logs, metrics

log = logging.getLogger("app.api")
# Probes and scrapes come every few seconds; their lines would drown the rest.
QUIET_ROUTES = frozenset({"/healthz", "/readyz", "/metrics"})


class RequestMetrics:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500
        request_id = logs.request_id_from(Headers(scope=scope).get(logs.REQUEST_ID_HEADER))

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                MutableHeaders(scope=message)[logs.REQUEST_ID_HEADER] = request_id
            await send(message)

        with logs.bind(request_id=request_id):
            try:
                await self.app(scope, receive, sending)
            finally:
                seconds = time.perf_counter() - start
                route = getattr(scope.get("route"), "path", "unmatched")
                method = scope["method"]
                metrics.HTTP_REQUESTS.labels(method, route, str(status)).inc()
                metrics.HTTP_SECONDS.labels(method, route).observe(seconds)
                log.log(
                    logging.DEBUG if route in QUIET_ROUTES else logging.INFO,
                    "%s %s %d",
                    method,
                    route,
                    status,
                    extra={
                        "method": method,
                        "route": route,
                        "http_status": status,
                        "duration_ms": round(seconds * 1000, 1),
                    },
                )
