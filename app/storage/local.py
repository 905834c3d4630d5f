"""The embedded default: objects as files under one directory (``SAL_DATA_DIR/objects``)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from app.storage.base import ObjectInfo, ObjectNotFound, check_key

__all__ = ["LocalStore"]

_COPY_BYTES = 1024 * 1024


class LocalStore:
    """Objects as files under ``root``; a key is a relative path below it. ``put`` writes a temporary
    file beside the target, fsyncs it and renames it over the target (atomic on POSIX)."""

    kind = "local"

    def __init__(self, root: Path) -> None:
        self.root = root

    @property
    def identity(self) -> str:
        return f"local:{self.root.resolve()}"

    def _path(self, key: str) -> Path:
        return self.root / check_key(key)

    def put(self, key: str, data: bytes) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".put-")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def put_file(self, key: str, path: Path) -> None:
        target = self._path(key)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".put-")
        try:
            with os.fdopen(fd, "wb") as f, path.open("rb") as source:
                shutil.copyfileobj(source, f, _COPY_BYTES)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def get(self, key: str) -> bytes:
        try:
            return self._path(key).read_bytes()
        except FileNotFoundError:
            raise ObjectNotFound(f"no object {key!r} in the local store") from None

    def get_range(self, key: str, start: int, length: int) -> bytes:
        try:
            with self._path(key).open("rb") as f:
                f.seek(start)
                return f.read(length)
        except FileNotFoundError:
            raise ObjectNotFound(f"no object {key!r} in the local store") from None

    def size(self, key: str) -> int:
        try:
            return self._path(key).stat().st_size
        except FileNotFoundError:
            raise ObjectNotFound(f"no object {key!r} in the local store") from None

    def exists(self, key: str) -> bool:
        return self._path(key).is_file()

    def list(self, prefix: str) -> list[ObjectInfo]:
        # only below the prefix's directory: a chunked fit lists its own parts many times
        base = self.root / prefix.rsplit("/", 1)[0] if "/" in prefix else self.root
        if not base.is_dir():
            return []
        found = []
        for path in base.rglob("*"):
            key = path.relative_to(self.root).as_posix()
            if path.is_file() and not path.name.startswith(".put-") and key.startswith(prefix):
                found.append(ObjectInfo(key, path.stat().st_size))
        return sorted(found, key=lambda o: o.key)

    def delete(self, key: str) -> None:
        self._path(key).unlink(missing_ok=True)
