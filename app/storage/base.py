"""One interface over where dataset bytes live: objects by key, read whole or by byte range.

    StorageError                  anything the store could not do
     ├── ObjectNotFound           no object under the key (or no bucket)
     ├── AccessDenied             the store refused the credentials or the request
     └── StoreUnavailable         the store could not be reached

Keys are relative, '/'-separated paths of ``[A-Za-z0-9._=-]`` parts (no '..'), the same on every
store, so a dataset's key does not depend on where it lives. Messages never carry credentials.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

__all__ = [
    "AccessDenied",
    "ObjectInfo",
    "ObjectNotFound",
    "ObjectStore",
    "RangeFile",
    "StorageError",
    "StoreUnavailable",
    "check_key",
]

_KEY_PART = re.compile(r"[A-Za-z0-9._=-]+")


class StorageError(Exception):
    """The store could not do what was asked; the message names the key, never a credential."""


class ObjectNotFound(StorageError):
    pass


class AccessDenied(StorageError):
    pass


class StoreUnavailable(StorageError):
    pass


@dataclass(frozen=True)
class ObjectInfo:
    key: str
    size: int


def check_key(key: str) -> str:
    """``key`` if it is a relative path of safe parts, else ValueError."""
    parts = key.split("/")
    if not key or any(p in ("", ".", "..") or not _KEY_PART.fullmatch(p) for p in parts):
        raise ValueError(f"invalid object key {key!r}")
    return key


@runtime_checkable
class ObjectStore(Protocol):
    """Where objects live: a local directory (:mod:`app.storage.local`) or an S3 bucket
    (:mod:`app.storage.s3`). ``put`` replaces atomically: a reader sees the old or the new object,
    never part of one."""

    kind: str

    @property
    def identity(self) -> str:
        """Where the objects live (a local root; an endpoint, bucket and prefix), no credential:
        two stores with one identity hold the same objects."""
        ...

    def put(self, key: str, data: bytes) -> None: ...

    def put_file(self, key: str, path: Path) -> None:
        """``put`` of a file's bytes, read from disk in parts (never whole in memory)."""
        ...

    def get(self, key: str) -> bytes: ...

    def get_range(self, key: str, start: int, length: int) -> bytes:
        """Bytes ``[start, start + length)``, fewer at the end of the object."""
        ...

    def size(self, key: str) -> int:
        """The object's length in bytes; :class:`ObjectNotFound` when there is none."""
        ...

    def exists(self, key: str) -> bool: ...

    def list(self, prefix: str) -> list[ObjectInfo]:
        """Objects whose key starts with ``prefix``, by key."""
        ...

    def delete(self, key: str) -> None:
        """Remove the object; nothing happens when there is none."""
        ...


class RangeFile(io.RawIOBase):
    """A read-only, seekable file over one object that fetches only the ranges read, so a Parquet
    reader decodes a footer (schema, row counts) without downloading the rows."""

    def __init__(self, store: ObjectStore, key: str) -> None:
        super().__init__()
        self._store = store
        self._key = key
        self._size = store.size(key)
        self._pos = 0
        self.ranges_read = 0  # how many requests reached the store (tests check the footer path)

    @property
    def name(self) -> str:
        return self._key

    @property
    def size(self) -> int:
        return self._size

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos, io.SEEK_END: self._size}[whence]
        self._pos = max(0, base + offset)
        return self._pos

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        n = min(len(buffer), self._size - self._pos)
        if n <= 0:
            return 0
        chunk = self._store.get_range(self._key, self._pos, n)
        self.ranges_read += 1
        buffer[: len(chunk)] = chunk
        self._pos += len(chunk)
        return len(chunk)
