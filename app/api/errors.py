"""One handler renders every error as RFC 9457 problem+json. The errors raised on purpose (the
tree below) live in ``app.errors``, where services raise them; they are re-exported here.

    ApiError                 status 500 unless a subclass says otherwise
    ├── BadRequest           400
    ├── Unauthorized         401  (with WWW-Authenticate: Bearer)
    ├── NotFound             404  (also another tenant's ids: no existence leak)
    ├── Conflict             409
    ├── PayloadTooLarge      413
    ├── UnprocessableEntity  422  (carries errors=[{field, message}])
    ├── TooManyRequests      429  (with Retry-After)
    └── ServiceUnavailable   503

sal_core's errors (which name their field) and FastAPI's request validation errors become 422s
of the same shape, so a client handles one kind of error body. A lost database connection is a
503 with Retry-After: the engine reconnects on the next request once the database is back.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from sqlalchemy.exc import DataError, DBAPIError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.errors import (
    ApiError,
    BadRequest,
    Conflict,
    FieldError,
    NotFound,
    PayloadTooLarge,
    ServiceUnavailable,
    TooManyRequests,
    Unauthorized,
    UnprocessableEntity,
)
from sal_core import SalError

__all__ = [
    "ApiError",
    "BadRequest",
    "Conflict",
    "FieldError",
    "NotFound",
    "PayloadTooLarge",
    "Problem",
    "ServiceUnavailable",
    "TooManyRequests",
    "Unauthorized",
    "UnprocessableEntity",
    "install",
    "problem_response",
    "responses",
]

log = logging.getLogger(__name__)

PROBLEM_JSON = "application/problem+json"


class Problem(BaseModel):
    """RFC 9457 problem details, plus ``errors`` naming each bad field."""

    type: str
    title: str
    status: int
    detail: str
    errors: list[FieldError] = []


def problem_type(slug: str) -> str:
    return f"/problems/{slug}"


def problem_response(
    status: int,
    title: str,
    slug: str,
    detail: str,
    errors: Sequence[FieldError] = (),
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    body = Problem(type=problem_type(slug), title=title, status=status, detail=detail, errors=list(errors))
    return JSONResponse(body.model_dump(), status_code=status, media_type=PROBLEM_JSON, headers=headers)


def _field_of(loc: Sequence[Any]) -> str:
    parts = list(loc)
    if parts and parts[0] in ("body", "query", "path", "header", "cookie", "form"):
        parts = parts[1:]
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "body"


MAX_LISTED_ERRORS = 20  # a problem lists this many bad fields at most, whatever the body


def _validation_errors(exc: RequestValidationError) -> list[FieldError]:
    return [
        FieldError(field=_field_of(e.get("loc", ())), message=str(e.get("msg", "invalid"))[:500])
        for e in list(exc.errors())[:MAX_LISTED_ERRORS]
    ]


def install(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def _api_error(_: Request, exc: ApiError) -> JSONResponse:
        return problem_response(exc.status, exc.title, exc.slug, exc.detail, exc.errors, exc.headers)

    @app.exception_handler(SalError)
    async def _sal_error(_: Request, exc: SalError) -> JSONResponse:
        field = exc.field or "body"
        return problem_response(
            422,
            UnprocessableEntity.title,
            "validation",
            exc.message,
            [FieldError(field=field, message=exc.message)],
        )

    @app.exception_handler(RequestValidationError)
    async def _request_validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        errors = _validation_errors(exc)
        detail = "; ".join(f"{e.field}: {e.message}" for e in errors) or "invalid request"
        return problem_response(422, UnprocessableEntity.title, "validation", detail, errors)

    async def _database_unavailable(request: Request, exc: Exception) -> JSONResponse:
        log.warning("database unavailable on %s %s: %s", request.method, request.url.path, exc)
        return problem_response(
            503, ServiceUnavailable.title, ServiceUnavailable.slug, "the database is unavailable; retry shortly",
            headers={"Retry-After": "1"},
        )  # fmt: skip

    for lost in (OperationalError, InterfaceError, PoolTimeoutError):
        app.add_exception_handler(lost, _database_unavailable)

    @app.exception_handler(DBAPIError)
    async def _dbapi_error(request: Request, exc: DBAPIError) -> JSONResponse:
        if exc.connection_invalidated:
            return await _database_unavailable(request, exc)
        log.exception("database error on %s %s", request.method, request.url.path)
        return problem_response(500, ApiError.title, ApiError.slug, "an unexpected error occurred")

    @app.exception_handler(DataError)
    async def _data_error(request: Request, exc: DataError) -> JSONResponse:
        # SQLSTATE class 22: a value the database cannot store or compare (a NUL character in a
        # text parameter, a number out of range) is the request's fault, not the server's.
        # The database's own words stay in the log: a tenant is never shown SQL or which database.
        log.info("rejected a value on %s %s: %s", request.method, request.url.path, exc.orig)
        message = "a value in the request cannot be stored (out of range, or a character that is not allowed)"
        return problem_response(
            422,
            UnprocessableEntity.title,
            "validation",
            message,
            [FieldError(field="request", message=message)],
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 400:
            # The framework's "could not parse the body" (JSON that is not UTF-8, a malformed
            # multipart form): a 422 naming the body, like every other bad input.
            message = str(exc.detail)
            errors = [FieldError(field="body", message=message)]
            return problem_response(422, UnprocessableEntity.title, "validation", f"body: {message}", errors)
        title = {404: "Not Found", 405: "Method Not Allowed"}.get(exc.status_code, "HTTP Error")
        return problem_response(
            exc.status_code,
            title,
            title.lower().replace(" ", "-"),
            str(exc.detail),
            headers=getattr(exc, "headers", None),
        )

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return problem_response(500, ApiError.title, ApiError.slug, "an unexpected error occurred")


def responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI entries for the problem responses an operation can give. An operation that takes a
    key (401) can also meet one whose scopes do not cover it (403, app.auth.needed_scope)."""
    if 401 in statuses and 403 not in statuses:
        statuses = (*statuses, 403)
    described = {
        400: "Bad request",
        401: "Missing or invalid API key",
        403: "The key's scopes do not allow this (or it is not an operator's)",
        404: "Not found",
        409: "Conflict with the resource's state",
        413: "Upload too large",
        422: "Invalid input; `errors` names each bad field",
        429: "Too many active jobs; see Retry-After",
        503: "A dependency is unavailable",
    }
    return {
        s: {
            "description": described[s],
            "content": {PROBLEM_JSON: {"schema": {"$ref": "#/components/schemas/Problem"}}},
        }
        for s in sorted(statuses)
    }
