"""Errors the service raises on purpose, each carrying its HTTP status, so a service (below the
routes) can raise them; ``app.api.errors`` renders them as RFC 9457 problem+json.

    ApiError                 status 500 unless a subclass says otherwise
    ├── BadRequest           400
    ├── Unauthorized         401  (with WWW-Authenticate: Bearer)
    ├── NotFound             404  (also another tenant's ids: no existence leak)
    ├── Conflict             409
    ├── PayloadTooLarge      413
    ├── UnprocessableEntity  422  (carries errors=[{field, message}])
    ├── TooManyRequests      429  (with Retry-After)
    └── ServiceUnavailable   503
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

__all__ = [
    "ApiError",
    "BadRequest",
    "Conflict",
    "FieldError",
    "NotFound",
    "PayloadTooLarge",
    "ServiceUnavailable",
    "TooManyRequests",
    "Unauthorized",
    "UnprocessableEntity",
]


class FieldError(BaseModel):
    field: str
    message: str


class ApiError(Exception):
    status: int = 500
    title: str = "Internal Server Error"
    slug: str = "internal"

    def __init__(
        self, detail: str, *, errors: Sequence[tuple[str, str]] = (), headers: dict[str, str] | None = None
    ):
        super().__init__(detail)
        self.detail = detail
        self.errors = [FieldError(field=f, message=m) for f, m in errors]
        self.headers = headers


class BadRequest(ApiError):
    status, title, slug = 400, "Bad Request", "bad-request"


class Unauthorized(ApiError):
    status, title, slug = 401, "Unauthorized", "unauthorized"

    def __init__(self, detail: str, *, invalid: bool = False) -> None:
        challenge = 'Bearer realm="sal"' + (', error="invalid_token"' if invalid else "")
        super().__init__(detail, headers={"WWW-Authenticate": challenge})


class NotFound(ApiError):
    status, title, slug = 404, "Not Found", "not-found"


class Conflict(ApiError):
    status, title, slug = 409, "Conflict", "conflict"


class PayloadTooLarge(ApiError):
    status, title, slug = 413, "Payload Too Large", "payload-too-large"


class UnprocessableEntity(ApiError):
    status, title, slug = 422, "Unprocessable Content", "validation"

    @classmethod
    def on(cls, field: str, message: str) -> UnprocessableEntity:
        return cls(message, errors=[(field, message)])


class TooManyRequests(ApiError):
    status, title, slug = 429, "Too Many Requests", "too-many-requests"

    def __init__(self, detail: str, *, retry_after_s: int) -> None:
        super().__init__(detail, headers={"Retry-After": str(retry_after_s)})


class ServiceUnavailable(ApiError):
    status, title, slug = 503, "Service Unavailable", "unavailable"
