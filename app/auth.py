"""API keys: a random token shown once when it is created; only its sha256 is stored.

A key is 32 random bytes (``secrets.token_urlsafe``), so its sha256 is as unguessable as the key
and needs no salt or slow hash; a request's key is found by the hash of what it presents (an
index lookup, never a comparison of the secret itself).
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

KEY_PREFIX = "sal_"


@dataclass(frozen=True)
class Principal:
    """Who a request acts as. ``key_id`` is None in single-user mode without a key."""

    tenant_id: str
    tenant: str
    key_id: str | None


def new_key() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(32)


def key_sha256(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def display_prefix(key: str) -> str:
    """Enough of a key to recognise it in ``keys list``, far too little to use it."""
    return key[: len(KEY_PREFIX) + 6]
