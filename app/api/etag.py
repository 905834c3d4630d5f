"""Conditional reads: job, sweep and dataset reads carry an ``ETag``; a request whose
``If-None-Match`` names it gets ``304 Not Modified`` with no body.

A job's tag is the hash of its row as the API shows it *without* the result: the result row is
written once, in the same commit that ends the job (``app.db.repository.finish_job``), so the
status already says whether there is one. An unchanged job is answered without loading or
serialising its result. Sweeps and datasets are small: their tag is the hash of the body.
"""

from __future__ import annotations

import hashlib

from fastapi import Request, Response

__all__ = ["etag_of", "matches", "json_response", "not_modified"]


def etag_of(data: bytes) -> str:
    """A strong entity tag for ``data`` (quoted, as HTTP writes it)."""
    return '"' + hashlib.sha256(data).hexdigest()[:32] + '"'


def matches(request: Request, etag: str) -> bool:
    """Whether the request's ``If-None-Match`` names ``etag`` (weak comparison, as RFC 9110
    asks for If-None-Match; ``*`` matches any)."""
    header = request.headers.get("if-none-match")
    if not header:
        return False
    tags = [t.strip().removeprefix("W/") for t in header.split(",")]
    return "*" in tags or etag in tags


def not_modified(etag: str) -> Response:
    return Response(status_code=304, headers={"ETag": etag})


def json_response(body: bytes | str, etag: str | None = None) -> Response:
    """``body`` (JSON) with its tag: the given one, else the hash of the body."""
    data = body.encode() if isinstance(body, str) else body
    return Response(data, media_type="application/json", headers={"ETag": etag or etag_of(data)})
