"""Resumable uploads: one file sent in parts, over as many connections as it takes, then parsed
once into a dataset exactly as ``POST /datasets`` parses a file.

The protocol is tus 1.0's core (creation, ``Upload-Offset``, HEAD to learn the offset after a cut,
checksum, expiration, termination), with GCS resumable uploads' final step made explicit:

    POST   /datasets/uploads              {size, sha256?, filename?} -> 201, an upload at offset 0
    PATCH  /datasets/uploads/{id}         Upload-Offset: n (must equal the stored offset, else 409)
                                          [Upload-Checksum: sha256 <base64 of the part's digest>]
    HEAD   /datasets/uploads/{id}         Upload-Offset / Upload-Length: where to resume
    POST   /datasets/uploads/{id}/commit  {target, environment, features?, name?} -> the dataset
    DELETE /datasets/uploads/{id}         abandon it

Where the bytes live: ``upload_sessions_dir/<tenant digest>/<id>/`` holds ``data`` (the bytes
received, in order: its size *is* the offset, so nothing else has to agree with it after a
crash), ``meta.json`` (written whole, then renamed) and ``lock`` (``flock``: one request at a time
appends to or commits an upload, across the API processes of a machine; API replicas on several
machines need this directory shared, or requests routed by upload id).

A part whose connection drops keeps the bytes that arrived (tus: the server stores what it
received), unless it carried ``Upload-Checksum``: a part that cannot be checked is dropped whole,
as is one whose digest differs. A committed upload's bytes are removed at once; its record stays
(``dataset_id``), so a commit repeated because its answer was lost returns the dataset. An upload
not touched for ``upload_session_ttl_s`` expires: it is a 404 from then on, and its directory is
removed by the next request that opens an upload (or reads an expired one).
"""

from __future__ import annotations

import base64
import datetime as dt
import fcntl
import hashlib
import json
import os
import re
import shutil
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import BinaryIO

from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect

from app.errors import Conflict, NotFound, PayloadTooLarge, UnprocessableEntity
from app.settings import Settings

__all__ = [
    "Upload",
    "append",
    "commit_file",
    "delete",
    "erase_tenant",
    "get",
    "locked",
    "committed",
    "open_upload",
    "sweep",
]

_ID = re.compile(r"^[0-9a-f]{32}$")
_HASH_BLOCK = 8 * 1024 * 1024


@dataclass
class Upload:
    """One upload's record (``meta.json``) and its offset (the size of ``data``)."""

    id: str
    tenant_id: str
    size: int
    sha256: str | None
    filename: str | None
    created_at: str
    expires_at: str
    offset: int = 0
    dataset_id: str | None = None  # once committed: its bytes are gone, a repeated commit finds this


def root(settings: Settings) -> Path:
    return settings.upload_sessions_dir or settings.data_dir / "uploads"


def _tenant_dir(settings: Settings, tenant_id: str) -> Path:
    # tenant ids are any text: a digest makes a safe directory name and one tenant's per directory
    return root(settings) / hashlib.sha256(tenant_id.encode()).hexdigest()[:32]


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _write_meta(path: Path, upload: Upload) -> None:
    record = asdict(upload)
    if upload.dataset_id is None:
        record.pop("offset")  # the size of data is the offset until the commit removes data
    tmp = path / "meta.json.tmp"
    tmp.write_text(json.dumps(record))
    os.replace(tmp, path / "meta.json")


def _read(path: Path) -> Upload | None:
    try:
        record = json.loads((path / "meta.json").read_text())
        if "offset" not in record:
            record["offset"] = (path / "data").stat().st_size
        return Upload(**record)
    except (OSError, ValueError, TypeError):
        return None


def _expired(upload: Upload, now: dt.datetime) -> bool:
    return dt.datetime.fromisoformat(upload.expires_at) <= now


def _try_lock(path: Path) -> int | None:
    fd = os.open(path / "lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def _unlock(fd: int) -> None:
    fcntl.flock(fd, fcntl.LOCK_UN)
    os.close(fd)


def sweep(settings: Settings, now: dt.datetime | None = None) -> int:
    """Remove every expired upload no request holds; returns how many."""
    now = now or _now()
    removed = 0
    base = root(settings)
    if not base.is_dir():
        return 0
    for tenant in base.iterdir():
        for path in tenant.iterdir() if tenant.is_dir() else ():
            upload = _read(path)
            if upload is not None and not _expired(upload, now):
                continue
            fd = _try_lock(path) if path.is_dir() else None
            if fd is None:
                continue  # in use (or not a directory): its request finishes it
            try:
                if upload is None or _expired(upload, now):
                    shutil.rmtree(path, ignore_errors=True)
                    removed += 1
            finally:
                _unlock(fd)
    return removed


def open_upload(
    settings: Settings, tenant_id: str, size: int, sha256: str | None, filename: str | None
) -> Upload:
    """A new, empty upload of ``size`` bytes. The same limits as ``POST /datasets``: at most
    max_upload_bytes, and at most max_upload_sessions_per_tenant open at once."""
    if size > settings.max_upload_bytes:
        raise PayloadTooLarge(
            f"uploads are limited to {settings.max_upload_bytes} bytes",
            errors=[("size", f"{size} bytes; uploads are limited to {settings.max_upload_bytes}")],
        )
    now = _now()
    sweep(settings, now)
    tenant = _tenant_dir(settings, tenant_id)
    tenant.mkdir(parents=True, exist_ok=True)
    open_now = sum(1 for p in tenant.iterdir() if (u := _read(p)) is not None and u.dataset_id is None)
    if open_now >= settings.max_upload_sessions_per_tenant:
        raise Conflict(
            f"{open_now} uploads are open; commit or delete one "
            f"(max_upload_sessions_per_tenant={settings.max_upload_sessions_per_tenant})"
        )
    upload = Upload(
        id=uuid.uuid4().hex,
        tenant_id=tenant_id,
        size=size,
        sha256=sha256.lower() if sha256 else None,
        filename=filename,
        created_at=now.isoformat(),
        expires_at=(now + dt.timedelta(seconds=settings.upload_session_ttl_s)).isoformat(),
    )
    path = tenant / upload.id
    path.mkdir()
    (path / "data").touch()
    _write_meta(path, upload)
    return upload


def _path(settings: Settings, tenant_id: str, upload_id: str) -> Path:
    if not _ID.match(upload_id):
        raise NotFound(f"upload {upload_id!r} not found")
    return _tenant_dir(settings, tenant_id) / upload_id


def get(settings: Settings, tenant_id: str, upload_id: str) -> Upload:
    """The tenant's upload; another tenant's, an expired or an unknown one is a 404."""
    path = _path(settings, tenant_id, upload_id)
    upload = _read(path)
    if upload is None or upload.tenant_id != tenant_id:
        raise NotFound(f"upload {upload_id!r} not found")
    if _expired(upload, _now()):
        sweep(settings)
        raise NotFound(f"upload {upload_id!r} not found (expired at {upload.expires_at})")
    return upload


@contextmanager
def locked(settings: Settings, tenant_id: str, upload_id: str, field: str) -> Iterator[Upload]:
    """The upload, held by this request alone (another one appending or committing: a 409)."""
    get(settings, tenant_id, upload_id)
    path = _path(settings, tenant_id, upload_id)
    fd = _try_lock(path)
    if fd is None:
        raise Conflict(
            "another request is appending to or committing this upload; retry when it ends",
            errors=[(field, "this upload is busy")],
        )
    try:
        again = _read(path)  # what the request before this one left
        if again is None:
            raise NotFound(f"upload {upload_id!r} not found")
        yield again
    finally:
        _unlock(fd)


def _checksum(header: str | None) -> bytes | None:
    if header is None:
        return None
    algorithm, _, value = header.strip().partition(" ")
    if algorithm.lower() != "sha256":
        raise UnprocessableEntity.on("Upload-Checksum", "use 'sha256 <base64 digest>' (tus checksum)")
    try:
        digest = base64.b64decode(value.strip(), validate=True)
    except ValueError:
        digest = b""
    if len(digest) != 32:
        raise UnprocessableEntity.on("Upload-Checksum", "not a base64 SHA-256 digest")
    return digest


async def append(
    settings: Settings,
    tenant_id: str,
    upload_id: str,
    offset: int,
    body: AsyncIterator[bytes],
    checksum: str | None = None,
    declared_length: int | None = None,
) -> Upload | None:
    """Append a part at ``offset`` (which must be where the upload stands). Returns the upload
    after it, or None when the client went away mid-part (what arrived is kept, see the module)."""
    expected = _checksum(checksum)
    with locked(settings, tenant_id, upload_id, "Upload-Offset") as upload:
        if upload.dataset_id is not None:
            raise Conflict(
                f"the upload was committed into dataset {upload.dataset_id}",
                errors=[("Upload-Offset", "the upload is committed")],
            )
        if offset != upload.offset:
            raise Conflict(
                f"Upload-Offset is {offset}, but the upload holds {upload.offset} bytes: "
                "resume from the offset HEAD reports",
                errors=[("Upload-Offset", f"expected {upload.offset}")],
            )
        room = upload.size - upload.offset
        if declared_length is not None and declared_length > room:
            raise PayloadTooLarge(
                f"this part is {declared_length} bytes; {room} are left of the declared size {upload.size}",
                errors=[("body", f"at most {room} bytes")],
            )
        path = _path(settings, tenant_id, upload_id)
        digest = hashlib.sha256()
        written = 0
        cut = False
        with open(path / "data", "r+b") as data:
            data.seek(offset)
            try:
                async for piece in body:
                    written += len(piece)
                    if written > room:
                        await run_in_threadpool(data.truncate, offset)
                        raise PayloadTooLarge(
                            f"the part runs past the declared size {upload.size}",
                            errors=[("body", f"at most {room} bytes")],
                        )
                    digest.update(piece)
                    await run_in_threadpool(data.write, piece)
            except ClientDisconnect:
                cut = True
            if expected is not None and (cut or digest.digest() != expected):
                await run_in_threadpool(data.truncate, offset)
                if not cut:
                    raise UnprocessableEntity.on(
                        "Upload-Checksum", "the part's SHA-256 differs; it was dropped, send it again"
                    )
            data.flush()
            os.fsync(data.fileno())
        upload.expires_at = (_now() + dt.timedelta(seconds=settings.upload_session_ttl_s)).isoformat()
        _write_meta(path, upload)
        after = _read(path)
    return None if cut else after


def _file_sha256(file: BinaryIO) -> str:
    digest = hashlib.sha256()
    while block := file.read(_HASH_BLOCK):
        digest.update(block)
    file.seek(0)
    return digest.hexdigest()


def commit_file(settings: Settings, upload: Upload) -> BinaryIO:
    """The whole file, open for parsing, once every byte is in and matches the declared
    ``sha256`` (else a 409, or a 422 that removes the upload: its bytes are not the file's)."""
    if upload.offset != upload.size:
        raise Conflict(
            f"the upload holds {upload.offset} of {upload.size} bytes; send the rest first",
            errors=[("offset", f"{upload.offset} of {upload.size}")],
        )
    path = _path(settings, upload.tenant_id, upload.id)
    file = open(path / "data", "rb")  # noqa: SIM115 -- the caller closes it
    if upload.sha256 is not None and _file_sha256(file) != upload.sha256:
        file.close()
        shutil.rmtree(path, ignore_errors=True)
        raise UnprocessableEntity.on(
            "sha256", "the uploaded bytes do not have the declared SHA-256; the upload was removed"
        )
    return file


def delete(settings: Settings, tenant_id: str, upload_id: str) -> None:
    """Remove the upload (after a commit, or abandoned)."""
    with locked(settings, tenant_id, upload_id, "upload_id"):
        shutil.rmtree(_path(settings, tenant_id, upload_id), ignore_errors=True)


def committed(settings: Settings, upload: Upload, dataset_id: str) -> None:
    """Mark an upload this request holds (:func:`locked`) committed into ``dataset_id`` and remove
    its bytes. The record stays until it expires, so a commit repeated (its answer lost) finds the
    dataset rather than a 404."""
    path = _path(settings, upload.tenant_id, upload.id)
    upload.dataset_id = dataset_id
    upload.expires_at = (_now() + dt.timedelta(seconds=settings.upload_session_ttl_s)).isoformat()
    _write_meta(path, upload)
    (path / "data").unlink(missing_ok=True)


def erase_tenant(settings: Settings, tenant_id: str) -> int:
    """Remove every upload of the tenant (its erasure); returns how many there were."""
    tenant = _tenant_dir(settings, tenant_id)
    count = sum(1 for p in tenant.iterdir() if p.is_dir()) if tenant.is_dir() else 0
    shutil.rmtree(tenant, ignore_errors=True)
    return count
