"""GET /algorithms (from sal_core's registry), /healthz, /readyz and /metrics."""

from __future__ import annotations

import logging

from fastapi import APIRouter, Request, Response
from sqlalchemy import text

from app import metrics
from app.api.deps import OperatorDep, QueueDep, SessionDep, SettingsDep
from app.api.errors import ServiceUnavailable, responses
from app.api.schemas import AlgorithmPublic, Health, ParamPublic, Readiness
from sal_core import ALGORITHMS

log = logging.getLogger(__name__)
router = APIRouter()


@router.get(
    "/algorithms", operation_id="list_algorithms", response_model=list[AlgorithmPublic], tags=["algorithms"]
)
def list_algorithms() -> list[AlgorithmPublic]:
    """Every registered algorithm with its parameters, defaults, ranges and docs."""
    return [
        AlgorithmPublic(
            name=name,
            summary=cls.summary,
            min_environments=cls.min_environments,
            linear_only=cls.linear_only,
            params=[
                ParamPublic(
                    name=s.name,
                    type=s.type,
                    default=s.default,
                    doc=s.doc,
                    low=s.low,
                    high=s.high,
                    choices=None if s.choices is None else list(s.choices),
                    grid=None if s.grid is None else list(s.grid),
                )
                for s in cls.params_type.describe()
            ],
        )
        for name, cls in sorted(ALGORITHMS.items())
    ]


@router.get("/healthz", operation_id="healthz", response_model=Health, tags=["health"])
def healthz() -> Health:
    """The process is up."""
    return Health(status="ok")


@router.get(
    "/readyz", operation_id="readyz", response_model=Readiness, responses=responses(503), tags=["health"]
)
def readyz(session: SessionDep, queue: QueueDep) -> Readiness:
    """The database and the broker are reachable."""
    try:
        session.execute(text("SELECT 1"))
    except Exception as exc:
        log.warning("readyz: database unreachable: %s", exc)
        raise ServiceUnavailable("the database is unreachable") from None
    try:
        queue.ping()
    except Exception as exc:
        log.warning("readyz: broker unreachable: %s", exc)
        raise ServiceUnavailable("the broker is unreachable") from None
    return Readiness(database="ok", broker="ok")


@router.get("/metrics", include_in_schema=False)
def get_metrics(request: Request, principal: OperatorDep, settings: SettingsDep) -> Response:
    """Prometheus exposition text (app.metrics). Its numbers cover every tenant, so in keys mode
    it needs an operator's key (``operator_tenants``); single-user mode's one user may read it."""
    body = metrics.render(request.app.state.sessionmaker, settings.lease_s)
    return Response(body, media_type=metrics.CONTENT_TYPE_LATEST)
