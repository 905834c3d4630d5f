"""One gate for JSON request bodies, before FastAPI parses them: a size limit, and one rule for
values no database stores and no parameter means.

    body over max_json_body_bytes                 -> 413 (Content-Length, or counted as it streams)
    not JSON                                      -> 422 on "body", with the line and column
    NaN, Infinity, or a number beyond float range -> 422 naming the field ("params.rounds")
    a string with a NUL character                 -> 422 naming the field (the same on SQLite
                                                     and PostgreSQL, which cannot store one)

``POST /datasets`` reads its own body (multipart or JSON, up to max_upload_bytes) and is not
gated here; its table parser applies the same rules to names and values.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.errors import FieldError, PayloadTooLarge, UnprocessableEntity, problem_response

# Parsing a body this large or larger goes to a thread, off the event loop.
_THREAD_ABOVE = 64 * 1024


def _bad_values(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """(field, message) for each non-finite number and each string with a NUL, depth first."""
    if isinstance(value, float) and not math.isfinite(value):
        yield path or "body", "must be a finite number (at most about 1.8e308 in magnitude)"
    elif isinstance(value, str) and "\x00" in value:
        yield path or "body", "must not contain the NUL character (\\u0000)"
    elif isinstance(value, dict):
        for key, item in value.items():
            if "\x00" in key:
                yield path or "body", "keys must not contain the NUL character (\\u0000)"
            yield from _bad_values(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _bad_values(item, f"{path}[{i}]")


def check_json(body: bytes, max_errors: int = 20) -> list[FieldError]:
    """The problems with a JSON body under the rules above (at most ``max_errors``); [] if none."""
    try:
        parsed = json.loads(body)  # NaN and Infinity parse, to be named by field below
    except json.JSONDecodeError as exc:
        return [
            FieldError(
                field="body", message=f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
            )
        ]
    except (ValueError, RecursionError) as exc:  # an integer of over 4300 digits, deep nesting
        return [FieldError(field="body", message=f"invalid JSON: {str(exc)[:200]}")]
    errors: list[FieldError] = []
    for field, message in _bad_values(parsed):
        errors.append(FieldError(field=field, message=message))
        if len(errors) >= max_errors:
            break
    return errors


class JsonBodyGate:
    """Pure ASGI middleware: buffers a JSON body up to ``max_bytes``, checks it, and hands it on."""

    def __init__(self, app: ASGIApp, max_bytes: int, exempt_paths: tuple[str, ...] = ("/datasets",)) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.exempt_paths = exempt_paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("POST", "PUT", "PATCH"):
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        content_type = headers.get(b"content-type", b"").decode("latin-1").lower()
        if "json" not in content_type or scope["path"].rstrip("/") in self.exempt_paths:
            await self.app(scope, receive, send)
            return
        too_large = PayloadTooLarge(
            f"JSON bodies are limited to {self.max_bytes} bytes (max_json_body_bytes)"
        )
        declared = headers.get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.max_bytes:
            await self._problem(too_large, scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await self._problem(too_large, scope, receive, send)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        errors = await run_in_threadpool(check_json, body) if size >= _THREAD_ABOVE else check_json(body)
        if errors:
            detail = "; ".join(f"{e.field}: {e.message}" for e in errors)
            problem = UnprocessableEntity(detail[:2000], errors=[(e.field, e.message) for e in errors])
            await self._problem(problem, scope, receive, send)
            return

        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    @staticmethod
    async def _problem(
        error: PayloadTooLarge | UnprocessableEntity, scope: Scope, receive: Receive, send: Send
    ) -> None:
        response = problem_response(error.status, error.title, error.slug, error.detail, error.errors)
        await response(scope, receive, send)
