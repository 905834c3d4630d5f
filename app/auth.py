"""API keys: a random token shown once when it is created; only its sha256 is stored.

Each key carries scopes, and each request needs one (``needed_scope``):

    read    GET, HEAD and OPTIONS outside /admin, and POST /jobs/{id}/predict (it changes nothing)
    write   every other method outside /admin (upload, submit, cancel, tag, delete...)
    admin   /admin (keys, tenants) and /metrics; held only by keys of an operator tenant
            (Settings.operator_tenants), so an operator's right is a deployment setting first

A key made before scopes (NULL) keeps what it had: all three, ``admin`` still only counting for an
operator tenant's key.

A key is 32 random bytes (``secrets.token_urlsafe``), so its sha256 is as unguessable as the key
and needs no salt or slow hash; a request's key is found by the hash of what it presents (an
index lookup, never a comparison of the secret itself).
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass, field
from typing import Literal

KEY_PREFIX = "sal_"
Scope = Literal["read", "write", "admin"]
SCOPES: tuple[Scope, ...] = ("read", "write", "admin")
ALL_SCOPES = frozenset(SCOPES)
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_READ_POSTS = re.compile(r"^/jobs/[^/]+/predict$")


@dataclass(frozen=True)
class Principal:
    """Who a request acts as. ``key_id`` is None in single-user mode without a key."""

    tenant_id: str
    tenant: str
    key_id: str | None
    scopes: frozenset[str] = field(default=ALL_SCOPES)


def new_key() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(32)


def key_sha256(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def display_prefix(key: str) -> str:
    """Enough of a key to recognise it in ``keys list``, far too little to use it."""
    return key[: len(KEY_PREFIX) + 6]


def needed_scope(method: str, path: str) -> Scope:
    """The scope a request needs (the table above)."""
    if path == "/metrics" or path == "/admin" or path.startswith("/admin/"):
        return "admin"
    if method.upper() in _SAFE_METHODS or (method.upper() == "POST" and _READ_POSTS.match(path)):
        return "read"
    return "write"


def parse_scopes(stored: str | None) -> frozenset[str]:
    """A key's scopes from its column (space-separated); NULL: every scope (a key made before them)."""
    return ALL_SCOPES if stored is None else frozenset(stored.split())


def format_scopes(scopes: frozenset[str] | set[str] | list[str]) -> str:
    """The column's value, in SCOPES order."""
    return " ".join(s for s in SCOPES if s in scopes)
