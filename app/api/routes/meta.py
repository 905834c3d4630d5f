"""GET /algorithms (from sal_core's registry), /healthz, /readyz and /metrics."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from app import health, metrics
from app.api.deps import OperatorDep, QueueDep, SessionDep, SettingsDep
from app.api.errors import responses
from app.api.schemas import AlgorithmPublic, Health, Readiness
from sal_core import ALGORITHMS

router = APIRouter()


@router.get(
    "/algorithms", operation_id="list_algorithms", response_model=list[AlgorithmPublic], tags=["algorithms"]
)
def list_algorithms() -> list[AlgorithmPublic]:
    """Every registered algorithm with its parameters, defaults, ranges and docs."""
    return [AlgorithmPublic.of(name, cls) for name, cls in sorted(ALGORITHMS.items())]


@router.get("/healthz", operation_id="healthz", response_model=Health, tags=["health"])
def healthz() -> Health:
    """The process is up."""
    return Health(status="ok")


@router.get(
    "/readyz", operation_id="readyz", response_model=Readiness, responses=responses(503), tags=["health"]
)
def readyz(session: SessionDep, queue: QueueDep) -> Readiness:
    """The database and the broker are reachable."""
    health.check_ready(session, queue)
    return Readiness(database="ok", broker="ok")


@router.get("/metrics", include_in_schema=False)
def get_metrics(request: Request, principal: OperatorDep, settings: SettingsDep) -> Response:
    """Prometheus exposition text (app.metrics). Its numbers cover every tenant, so in keys mode
    it needs an operator's key (``operator_tenants``); single-user mode's one user may read it."""
    body = metrics.render(request.app.state.sessionmaker, settings.lease_s)
    return Response(body, media_type=metrics.CONTENT_TYPE_LATEST)
