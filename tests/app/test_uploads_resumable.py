"""Resumable uploads (/datasets/uploads) against the API served by uvicorn on a loopback port, so a
part can really be cut off: a raw socket sends half a part and closes."""

from __future__ import annotations

import base64
import contextlib
import datetime as dt
import hashlib
import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.datasets import resumable
from app.settings import Settings
from tests.app import factories as f
from tests.conftest import bearer, free_port, make_api_key

pytestmark = pytest.mark.services


class Served:
    def __init__(
        self, settings: Settings, app: object, base: str, names: dict[str, str], keys: dict[str, str]
    ) -> None:
        self.settings, self.app, self.base, self.names, self.keys = settings, app, base, names, keys

    def client(self, tenant: str) -> httpx.Client:
        return httpx.Client(base_url=self.base, headers=bearer(self.keys[tenant]), timeout=60)


@pytest.fixture
def served(stub_settings: Settings, tmp_path: Path) -> Iterator[Served]:
    import uvicorn

    from app.main import create_app

    settings = stub_settings.model_copy(
        update={
            "auth": "keys",
            "upload_sessions_dir": tmp_path / "uploads",
            "dataset_store": "local",
            "storage_dir": tmp_path / "objects",
            "upload_chunk_bytes": 64 * 1024,
        }
    )
    app = create_app(settings, queue=f.RecordingQueue(settings, None))
    suffix = str(time.time_ns())
    names = {t: f"resumable-{t}-{suffix}" for t in ("a", "b")}
    keys = {t: make_api_key(app.state.engine, name) for t, name in names.items()}
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    try:
        yield Served(settings, app, f"http://127.0.0.1:{port}", names, keys)
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        app.state.engine.dispose()  # type: ignore[attr-defined]


def _file() -> bytes:
    return f.csv_bytes(f.frame(seed=19, n_per_env=2000))


def _open(client: httpx.Client, data: bytes, **extra: object) -> dict[str, object]:
    response = client.post("/datasets/uploads", json={"size": len(data), "filename": "big.csv", **extra})
    assert response.status_code == 201, response.text
    assert response.headers["Upload-Offset"] == "0"
    return response.json()  # type: ignore[no-any-return]


def _patch(client: httpx.Client, upload_id: str, offset: int, part: bytes, **headers: str) -> httpx.Response:
    return client.patch(
        f"/datasets/uploads/{upload_id}",
        content=part,
        headers={"Upload-Offset": str(offset), "Content-Type": "application/octet-stream", **headers},
    )


def _offset(client: httpx.Client, upload_id: str) -> int:
    response = client.head(f"/datasets/uploads/{upload_id}")
    assert response.status_code == 200, response.text
    return int(response.headers["Upload-Offset"])


def _send_half_and_cut(served: Served, upload_id: str, data: bytes, half: int) -> None:
    """Declare the whole file as one part, send half of it, wait until the service holds that
    half, then drop the connection."""
    host, port = served.base.removeprefix("http://").split(":")
    head = (
        f"PATCH /datasets/uploads/{upload_id} HTTP/1.1\r\nHost: {host}\r\n"
        f"Authorization: Bearer {served.keys['a']}\r\nUpload-Offset: 0\r\n"
        f"Content-Type: application/octet-stream\r\nContent-Length: {len(data)}\r\n\r\n"
    ).encode()
    with socket.create_connection((host, int(port))) as sock, served.client("a") as client:
        sock.sendall(head + data[:half])
        deadline = time.monotonic() + 30
        while _offset(client, upload_id) < half:
            assert time.monotonic() < deadline, "the service never held the half that was sent"
            time.sleep(0.05)
        sock.shutdown(socket.SHUT_RDWR)


def test_a_part_cut_off_halfway_resumes_from_the_reported_offset(served: Served) -> None:
    data = _file()
    half = len(data) // 2
    with served.client("a") as client:
        upload = _open(client, data, sha256=hashlib.sha256(data).hexdigest())
        uid = str(upload["id"])
        _send_half_and_cut(served, uid, data, half)
        offset = _offset(client, uid)
        assert offset == half  # what arrived before the cut is kept
        f.assert_problem(
            client.post(f"/datasets/uploads/{uid}/commit", json={"target": "y", "environment": "env"}),
            409,
            "offset",
        )
        deadline = time.monotonic() + 30
        while (rest := _patch(client, uid, offset, data[offset:])).status_code == 409:
            # the cut request may still hold the upload for a moment
            assert "busy" in rest.text and time.monotonic() < deadline, rest.text
            time.sleep(0.05)
        assert rest.status_code == 200, rest.text
        assert rest.json()["offset"] == len(data) == int(rest.headers["Upload-Offset"])

        # a wrong column is a 422 naming it, as POST /datasets says it; the upload stays to commit again
        f.assert_problem(
            client.post(f"/datasets/uploads/{uid}/commit", json={"target": "nope", "environment": "env"}),
            422,
        )
        assert _offset(client, uid) == len(data)
        committed = client.post(f"/datasets/uploads/{uid}/commit", json={"target": "y", "environment": "env"})
        assert committed.status_code == 201, committed.text
        # committed: the bytes are gone, the record says where they went, a repeated commit (its
        # answer lost) returns the dataset again, and nothing more can be appended
        record = client.get(f"/datasets/uploads/{uid}").json()
        assert record["dataset_id"] == committed.json()["id"] and record["offset"] == len(data)
        again = client.post(f"/datasets/uploads/{uid}/commit", json={"target": "y", "environment": "env"})
        assert again.status_code == 200 and again.json()["id"] == committed.json()["id"]
        f.assert_problem(_patch(client, uid, len(data), b"x"), 409, "Upload-Offset")
        one_shot = client.post(
            "/datasets",
            files={"file": ("big.csv", data, "text/csv")},
            data={"target": "y", "environment": "env"},
        )
        assert one_shot.status_code == 200, one_shot.text  # the same content: already stored
    resumed, whole = committed.json(), one_shot.json()
    assert resumed["id"] == whole["id"] and resumed["sha256"] == whole["sha256"]
    assert {k: v for k, v in resumed.items() if k != "warnings"} == {
        k: v for k, v in whole.items() if k != "warnings"
    }
    assert resumed["n_rows"] == 6000 and resumed["name"] == "big.csv"
    assert list((served.settings.upload_sessions_dir or Path()).rglob("data")) == []


def test_a_wrong_offset_is_a_409_naming_it_and_changes_nothing(served: Served) -> None:
    data = _file()
    with served.client("a") as client:
        uid = str(_open(client, data)["id"])
        assert _patch(client, uid, 0, data[:1000]).json()["offset"] == 1000
        for wrong in (0, 999, 1001):
            body = f.assert_problem(
                _patch(client, uid, wrong, data[wrong : wrong + 10]), 409, "Upload-Offset"
            )
            assert "expected 1000" in str(body["errors"])
        f.assert_problem(_patch(client, uid, 1000, data[1000:] + b"x"), 413, "body")  # past the size
        assert _offset(client, uid) == 1000
        f.assert_problem(client.post("/datasets/uploads", json={"size": 0}), 422, "size")
        big = served.settings.max_upload_bytes + 1
        f.assert_problem(client.post("/datasets/uploads", json={"size": big}), 413, "size")


def test_a_checksum_mismatch_is_refused_and_stores_nothing(served: Served) -> None:
    data = _file()
    with served.client("a") as client:
        before = client.get("/datasets").json()["items"]
        uid = str(_open(client, data, sha256=hashlib.sha256(data + b"other").hexdigest())["id"])
        # a part whose own digest differs is dropped: the offset stays
        wrong = base64.b64encode(hashlib.sha256(b"not this part").digest()).decode()
        f.assert_problem(
            _patch(client, uid, 0, data, **{"Upload-Checksum": f"sha256 {wrong}"}), 422, "Upload-Checksum"
        )
        assert _offset(client, uid) == 0
        right = base64.b64encode(hashlib.sha256(data).digest()).decode()
        assert _patch(client, uid, 0, data, **{"Upload-Checksum": f"sha256 {right}"}).status_code == 200
        # the whole file's digest is not the one declared: refused, the upload removed
        commit = client.post(f"/datasets/uploads/{uid}/commit", json={"target": "y", "environment": "env"})
        f.assert_problem(commit, 422, "sha256")
        assert client.get(f"/datasets/uploads/{uid}").status_code == 404
        assert client.get("/datasets").json()["items"] == before
    assert not any((served.settings.storage_dir or Path()).rglob("*.parquet"))
    assert list((served.settings.upload_sessions_dir or Path()).rglob("data")) == []


def test_another_tenant_can_neither_see_nor_append_to_an_upload(served: Served) -> None:
    data = _file()
    with served.client("a") as owner, served.client("b") as other:
        uid = str(_open(owner, data)["id"])
        assert _patch(owner, uid, 0, data[:100]).status_code == 200
        f.assert_problem(other.get(f"/datasets/uploads/{uid}"), 404)
        assert other.head(f"/datasets/uploads/{uid}").status_code == 404
        f.assert_problem(_patch(other, uid, 100, data[100:]), 404)
        f.assert_problem(
            other.post(f"/datasets/uploads/{uid}/commit", json={"target": "y", "environment": "env"}), 404
        )
        f.assert_problem(other.delete(f"/datasets/uploads/{uid}"), 404)
        assert _offset(owner, uid) == 100
        assert owner.delete(f"/datasets/uploads/{uid}").status_code == 204
        f.assert_problem(owner.get(f"/datasets/uploads/{uid}"), 404)


def test_an_abandoned_upload_expires_and_its_bytes_are_removed(served: Served) -> None:
    data = _file()
    with served.client("a") as client:
        uid = str(_open(client, data)["id"])
        assert _patch(client, uid, 0, data[:500]).status_code == 200
        staged = list((served.settings.upload_sessions_dir or Path()).rglob(f"{uid}/data"))
        assert len(staged) == 1
        later = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=served.settings.upload_session_ttl_s + 1)
        assert resumable.sweep(served.settings, later) == 1
        assert not staged[0].exists()
        f.assert_problem(client.get(f"/datasets/uploads/{uid}"), 404)
        # and a tenant may hold only so many open
        opened = [_open(client, data) for _ in range(served.settings.max_upload_sessions_per_tenant)]
        f.assert_problem(client.post("/datasets/uploads", json={"size": len(data)}), 409)
        for upload in opened:
            assert client.delete(f"/datasets/uploads/{upload['id']}").status_code == 204


def test_sal_datasets_upload_resume_continues_a_stopped_upload(
    served: Served, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from sal_cli import resume
    from sal_cli.common import state
    from sal_cli.main import app

    data = _file()
    half = len(data) // 2
    csv = tmp_path / "big.csv"
    csv.write_bytes(data)
    sha256 = hashlib.sha256(data).hexdigest()
    # an earlier run stopped after sending half: the upload open on the server, its id remembered
    with served.client("a") as client:
        uid = str(_open(client, data, sha256=sha256)["id"])
        assert _patch(client, uid, 0, data[:half]).status_code == 200
    monkeypatch.setattr(state, "url", served.base)
    remembered = resume._state_file(tmp_path / "state", sha256)
    remembered.write_text(json.dumps({"upload_id": uid}))
    args = ["--url", served.base, "--api-key", served.keys["a"], "--json", "datasets", "upload", str(csv),
            "--target", "y", "--environment", "env", "--resume", "--part-mb", "0.01",
            "--state-dir", str(tmp_path / "state")]  # fmt: skip
    result = CliRunner().invoke(app, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert f"resuming upload {uid} at byte {half} of {len(data)}" in result.stderr
    assert not remembered.exists()
    resumed = json.loads(result.stdout)
    with served.client("a") as client:
        one_shot = client.post(
            "/datasets",
            files={"file": ("big.csv", data, "text/csv")},
            data={"target": "y", "environment": "env"},
        )
    assert one_shot.status_code == 200 and one_shot.json()["id"] == resumed["id"]


def test_erasing_a_tenant_removes_its_uploads(served: Served) -> None:
    from app.tenants.service import erase_tenant

    data = _file()
    with served.client("b") as client:
        uid = str(_open(client, data)["id"])
        assert _patch(client, uid, 0, data[:500]).status_code == 200
    root = served.settings.upload_sessions_dir or Path()
    assert len(list(root.rglob(f"{uid}/data"))) == 1
    with served.app.state.sessionmaker() as session:  # type: ignore[attr-defined]
        erase_tenant(session, served.names["b"], served.settings)
    assert list(root.rglob(f"{uid}")) == []


class CuttingProxy:
    """A loopback TCP proxy to the service that drops the first connection sending a PATCH after
    ``cut_after`` bytes of it, as a network would."""

    def __init__(self, upstream: str, cut_after: int) -> None:
        host, port = upstream.removeprefix("http://").split(":")
        self.upstream = (host, int(port))
        self.cut_after = cut_after
        self.cuts = 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.base = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                down, _ = self.listener.accept()
            except OSError:
                return
            up = socket.create_connection(self.upstream)
            threading.Thread(target=self._pump, args=(down, up, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(up, down, False), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, upward: bool) -> None:
        sent, cutting = 0, False
        try:
            while piece := src.recv(65536):
                if upward and sent == 0 and piece.startswith(b"PATCH") and self.cuts == 0:
                    cutting = True
                    self.cuts += 1
                if cutting and sent + len(piece) > self.cut_after:
                    dst.sendall(piece[: self.cut_after - sent])
                    break
                dst.sendall(piece)
                sent += len(piece)
        except OSError:
            pass
        for s in (src, dst):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()

    def close(self) -> None:
        self.listener.close()


def test_sal_datasets_upload_resume_rides_out_a_dropped_connection(
    served: Served, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from sal_cli.common import state
    from sal_cli.main import app

    data = _file()
    csv = tmp_path / "big.csv"
    csv.write_bytes(data)
    proxy = CuttingProxy(served.base, cut_after=len(data) // 3)
    monkeypatch.setattr(state, "sleep", lambda _s: None)
    try:
        args = ["--url", proxy.base, "--api-key", served.keys["a"], "--json", "datasets", "upload", str(csv),
                "--target", "y", "--environment", "env", "--resume", "--state-dir", str(tmp_path / "state")]  # fmt: skip
        result = CliRunner().invoke(app, args, catch_exceptions=False)
    finally:
        proxy.close()
    assert result.exit_code == 0, result.output
    assert proxy.cuts == 1 and "connection lost" in result.stderr, result.stderr
    resumed = json.loads(result.stdout)
    with served.client("a") as client:
        one_shot = client.post(
            "/datasets",
            files={"file": ("big.csv", data, "text/csv")},
            data={"target": "y", "environment": "env"},
        )
    assert one_shot.status_code == 200 and one_shot.json()["id"] == resumed["id"]
