"""The ASGI application: ``create_app(settings)`` for tests, ``app`` for uvicorn."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI

from app import logs
from app.api import errors
from app.api.bodies import JsonBodyGate
from app.api.errors import Problem
from app.api.observe import RequestMetrics
from app.api.ratelimit import RateGate, RateLimits
from app.api.routes import admin, datasets, events, exports, jobs, meta, reports, reruns, sweeps, uploads
from app.api.security import BrowserEdge
from app.cache import LRUCache
from app.datasets.schemas import DatasetCreate, DatasetUpload
from app.datasets.uploads import UploadGate
from app.db.session import engine_for, make_sessionmaker
from app.jobs.schemas import JobEventData, WeightsJSON
from app.jobs.watch import JobWatcher, StreamSlots
from app.queue import JobQueue, make_celery
from app.reports import Renderer
from app.settings import Settings, get_settings, is_loopback
from app.ui import router as ui_router
from sal_core import FittedModel

log = logging.getLogger("app")
SINGLE_USER_BANNER = (
    "SINGLE-USER MODE: no API key is needed; every request acts as tenant 'default'. "
    "Set SAL_AUTH=keys (and create keys with `python -m app.admin keys create --tenant NAME`) "
    "before anyone else can reach this address."
)


def create_app(settings: Settings | None = None, *, queue: JobQueue | None = None) -> FastAPI:
    settings = settings or get_settings()
    announce_auth(settings)
    app = FastAPI(
        title="sal-service",
        version="0.1.0",
        summary="Distributionally robust learning on multi-environment tabular data.",
        separate_input_output_schemas=False,
        docs_url=None,  # served below, with its scripts pinned to one version
        redoc_url=None,
    )
    engine = engine_for(settings)  # the per-process pool bound (SAL_DB_POOL_SIZE, SAL_DB_MAX_OVERFLOW)
    app.state.settings = settings
    app.state.engine = engine
    app.state.sessionmaker = make_sessionmaker(engine)
    app.state.queue = queue or JobQueue(make_celery(settings), settings)
    app.state.models = LRUCache[str, FittedModel](settings.model_cache_size)
    app.state.watcher = JobWatcher(app.state.sessionmaker, settings.events_poll_s)
    app.state.limits = RateLimits(settings)
    app.state.stream_slots = StreamSlots(settings.max_streams_per_tenant)
    app.state.renderer = Renderer(settings.report_cache_size, settings.max_concurrent_renders)
    app.state.uploads = UploadGate(settings, app.state.sessionmaker)
    errors.install(app)
    app.add_middleware(JsonBodyGate, max_bytes=settings.max_json_body_bytes)
    app.add_middleware(RateGate)  # a refused tenant's next 429s, before routing (app.api.ratelimit)
    app.add_middleware(BrowserEdge, settings=settings)
    app.add_middleware(RequestMetrics)
    app.include_router(uploads.router)
    app.include_router(datasets.router)
    app.include_router(jobs.router)
    app.include_router(events.router)
    app.include_router(meta.router)
    app.include_router(reruns.router)
    app.include_router(exports.router)
    app.include_router(sweeps.router)
    app.include_router(reports.router)
    app.include_router(admin.router)
    app.include_router(ui_router)
    _pinned_docs(app)

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            from fastapi.openapi.utils import get_openapi

            schema = get_openapi(title=app.title, version=app.version, summary=app.summary, routes=app.routes)
            components = schema.setdefault("components", {}).setdefault("schemas", {})
            # The upload body is parsed by hand (two content types) and problems are documented by
            # reference, and an event stream's data by name, so their schemas are added here.
            for model in (DatasetUpload, DatasetCreate, Problem, WeightsJSON, JobEventData):
                extra = model.model_json_schema(ref_template="#/components/schemas/{model}")
                components.update(extra.pop("$defs", {}))
                components[model.__name__] = extra
            _problems_for_validation_errors(schema)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    return app


DOCS_ASSETS = "/docs-assets"  # Swagger UI 5 and ReDoc as the fastapi-offline package ships them


def _pinned_docs(app: FastAPI) -> None:
    """/docs and /redoc as FastAPI serves them, but from assets installed with the service (no
    CDN: they work on a machine without internet, at the version the lock file pins), under the
    Content-Security-Policy of app.api.security."""
    from importlib.resources import files

    from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
    from fastapi.responses import HTMLResponse
    from fastapi.staticfiles import StaticFiles

    assets = files("fastapi_offline") / "static"
    app.mount(DOCS_ASSETS, StaticFiles(directory=str(assets)), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url="/openapi.json",
            title=f"{app.title} - Swagger UI",
            swagger_js_url=f"{DOCS_ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{DOCS_ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{DOCS_ASSETS}/favicon.png",
        )

    @app.get("/redoc", include_in_schema=False)
    async def redoc() -> HTMLResponse:
        return get_redoc_html(
            openapi_url="/openapi.json",
            title=f"{app.title} - ReDoc",
            redoc_js_url=f"{DOCS_ASSETS}/redoc.standalone.js",
            redoc_favicon_url=f"{DOCS_ASSETS}/favicon.png",
            with_google_fonts=False,
        )


def announce_auth(settings: Settings) -> None:
    """Say loudly how requests are authenticated, once per app."""
    if not settings.single_user:
        log.info(
            "API keys required (Authorization: Bearer <key>); create one with `python -m app.admin keys create --tenant NAME`"
        )
    elif is_loopback(settings.host):
        log.warning(SINGLE_USER_BANNER)
    else:
        log.warning(
            "%s It is bound to the non-loopback address %s (forced by SAL_AUTH=single-user).",
            SINGLE_USER_BANNER,
            settings.host,
        )


def _problems_for_validation_errors(schema: dict[str, Any]) -> None:
    """Request validation errors are rendered as problem+json (see app.api.errors): say so in the
    document instead of FastAPI's default HTTPValidationError."""
    problem = errors.responses(422)[422]
    for path in schema.get("paths", {}).values():
        for operation in path.values():
            if "422" in operation.get("responses", {}):
                operation["responses"]["422"] = problem
    components = schema.get("components", {}).get("schemas", {})
    for name in ("HTTPValidationError", "ValidationError"):
        components.pop(name, None)


def __getattr__(name: str) -> Any:
    # `uvicorn app.main:app` builds the app on first access, not at import. The address uvicorn
    # binds is unknown here, so "auto" means keys: single-user mode only when asked for by name
    # (SAL_AUTH=single-user) or through `python -m app.embedded` on a loopback address.
    if name == "app":
        settings = get_settings()
        if settings.auth == "auto":
            settings = settings.model_copy(update={"auth": "keys"})
        logs.configure(logging.INFO)  # after uvicorn's own logging setup, so JSON replaces it
        return create_app(settings)
    raise AttributeError(name)
