"""``sal datasets upload --resume``: a file sent in parts through ``/datasets/uploads``.

The file's SHA-256 is declared when the upload opens, and each part carries its own
(``Upload-Checksum``), so a part damaged in transit is refused rather than stored. A part whose
connection fails is followed by a ``GET`` of the upload's offset and the rest is sent from there
(``MAX_RETRIES`` failures in a row end the run). The upload's id is remembered in ``state_dir``
under the file's digest and the server's URL, so running the same command again after the
process stopped picks up where the server says the upload stands.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
from pathlib import Path
from typing import Any

import typer

from sal_cli.common import call, client, fail, fail_problem, state

MAX_RETRIES = 5


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(8 << 20):
            digest.update(block)
    return digest.hexdigest()


def _state_file(state_dir: Path | None, sha256: str) -> Path:
    root = state_dir or Path(typer.get_app_dir("sal")) / "uploads"
    root.mkdir(parents=True, exist_ok=True)
    key = hashlib.sha256(f"{state.url}\n{sha256}".encode()).hexdigest()[:32]
    return root / f"{key}.json"


def _find(remembered: Path) -> Any:
    """The remembered upload, if the server still has it."""
    from sal_client.api.datasets import get_upload

    try:
        upload_id = json.loads(remembered.read_text())["upload_id"]
    except (OSError, ValueError, KeyError):
        return None
    with client() as c:
        response = get_upload.sync_detailed(upload_id, client=c)
    return response.parsed if response.status_code == 200 else None


def _offset(upload_id: str) -> int:
    from sal_client.api.datasets import get_upload

    return int(call(get_upload, upload_id).offset)


def _send(upload_id: str, path: Path, offset: int, size: int, part_bytes: int) -> None:
    import httpx
    from sal_client.api.datasets import append_upload
    from sal_client.types import File

    failures = 0
    with path.open("rb") as f:
        while offset < size:
            f.seek(offset)
            part = f.read(min(part_bytes, size - offset))
            checksum = "sha256 " + base64.b64encode(hashlib.sha256(part).digest()).decode()
            try:
                with client() as c:
                    response = append_upload.sync_detailed(
                        upload_id,
                        client=c,
                        body=File(payload=io.BytesIO(part)),
                        upload_offset=offset,
                        upload_checksum=checksum,
                    )
            except httpx.HTTPError as exc:
                failures += 1
                if failures > MAX_RETRIES:
                    fail(f"cannot reach {state.url}: {exc}; run the same command again to resume")
                state.sleep(min(2.0**failures, 30.0))
                offset = _offset(upload_id)
                typer.echo(f"connection lost ({exc}); resuming at byte {offset} of {size}", err=True)
                continue
            if response.status_code == 409:  # not where we thought (a part cut after the server stored it)
                failures += 1
                if failures > MAX_RETRIES:
                    fail_problem(409, response.content)
                state.sleep(min(2.0**failures, 30.0))
                offset = _offset(upload_id)
                continue
            if response.status_code >= 400:
                fail_problem(int(response.status_code), response.content)
            failures = 0
            offset = int(response.parsed.offset)


def upload(
    path: Path,
    target: str,
    environment: str,
    features: list[str] | None,
    name: str | None,
    part_bytes: int,
    state_dir: Path | None,
) -> dict[str, Any]:
    """Upload ``path`` resumably and commit it; returns the dataset as ``POST /datasets`` does."""
    from sal_client.api.datasets import commit_upload, create_upload
    from sal_client.models import UploadCommit, UploadCreate
    from sal_client.types import UNSET

    size = path.stat().st_size
    sha256 = _sha256(path)
    remembered = _state_file(state_dir, sha256)
    upload = _find(remembered)
    if upload is not None:
        typer.echo(f"resuming upload {upload.id} at byte {upload.offset} of {size}", err=True)
    else:
        upload = call(create_upload, body=UploadCreate(size=size, sha256=sha256, filename=path.name))
        remembered.write_text(json.dumps({"upload_id": upload.id, "file": str(path)}))
    _send(upload.id, path, int(upload.offset), size, part_bytes)
    body = UploadCommit(
        target=target,
        environment=environment,
        features=features if features is not None else UNSET,
        name=name if name is not None else UNSET,
    )
    dataset = call(commit_upload, upload.id, body=body)
    remembered.unlink(missing_ok=True)
    return dataset.to_dict()  # type: ignore[no-any-return]
