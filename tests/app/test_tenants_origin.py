"""The embedded default's browser edge (issue 24): cross-origin writes and foreign Host headers are
refused, HTML pages carry a Content-Security-Policy, and Markdown reports escape stored names."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.db import migrate
from app.main import create_app
from app.reports import Report, to_markdown
from app.reports.report import ReportTable
from app.settings import Settings
from tests.app import factories as f


@pytest.fixture
def embedded_app(tmp_path: Path) -> Iterator[FastAPI]:
    """The embedded default: SQLite, single-user on 127.0.0.1."""
    settings = Settings(data_dir=tmp_path, broker_url="memory://")
    migrate.upgrade(settings.database_url)
    app = create_app(settings, queue=f.RecordingQueue(settings, None))
    app.state.queue.engine = app.state.engine
    yield app
    app.state.engine.dispose()


def _datasets(app: FastAPI) -> int:
    with TestClient(app) as c:
        return len(c.get("/datasets").json()["items"])


def test_a_cross_origin_multipart_write_is_refused(embedded_app: FastAPI) -> None:
    files = {"file": ("x.csv", f.csv_bytes(f.frame(seed=2401)), "text/csv")}
    fields = {"target": "y", "environment": "env"}
    with TestClient(embedded_app, base_url="http://127.0.0.1:8000") as c:
        for headers in (
            {"Origin": "https://evil.example"},
            {"Origin": "null"},
            {"Origin": "http://127.0.0.1:9999"},  # another port is another origin
            {"Sec-Fetch-Site": "cross-site"},
        ):
            response = c.post("/datasets", files=files, data=fields, headers=headers)
            assert f.assert_problem(response, 403)["type"] == "/problems/cross-origin", headers
        assert _datasets(embedded_app) == 0
        same = c.post(
            "/datasets",
            files=files,
            data=fields,
            headers={"Origin": "http://127.0.0.1:8000", "Sec-Fetch-Site": "same-origin"},
        )
        assert same.status_code == 201, same.text
        # reads from anywhere are still answered (a page elsewhere cannot read them: no CORS)
        assert c.get("/datasets", headers={"Origin": "https://evil.example"}).status_code == 200


def test_a_foreign_host_is_refused_in_single_user_mode(embedded_app: FastAPI) -> None:
    with TestClient(embedded_app) as c:
        for host in ("evil.example", "evil.example:8000", "127.0.0.1.nip.io"):
            response = c.get("/datasets", headers={"Host": host})
            assert f.assert_problem(response, 400)["type"] == "/problems/untrusted-host", host
        for host in ("127.0.0.1:8000", "localhost", "[::1]:8000"):
            assert c.get("/datasets", headers={"Host": host}).status_code == 200, host


def test_keys_mode_answers_any_host_unless_told(tmp_path: Path) -> None:
    for allowed, expected in (([], 401), (["api.example"], 400)):
        settings = Settings(
            data_dir=tmp_path / str(len(allowed)), broker_url="memory://", auth="keys", allowed_hosts=allowed
        )
        settings.prepare_dirs()
        migrate.upgrade(settings.database_url)
        app = create_app(settings, queue=f.RecordingQueue(settings, None))
        with TestClient(app) as c:
            assert c.get("/datasets", headers={"Host": "other.example"}).status_code == expected
        app.state.engine.dispose()


def test_html_pages_carry_a_content_security_policy(embedded_app: FastAPI) -> None:
    with TestClient(embedded_app) as c:
        dataset = f.upload_csv(c, f.frame(seed=2402)).json()["id"]
        job = c.post("/jobs", json=f.job_body(dataset)).json()["id"]
        report = c.get(f"/jobs/{job}/report", params={"format": "html"})
        assert report.status_code == 200
        csp = report.headers["content-security-policy"]
        assert "script-src" not in csp and "default-src 'none'" in csp and "frame-ancestors 'none'" in csp
        assert report.headers["x-content-type-options"] == "nosniff"
        docs = c.get("/docs")
        assert "frame-ancestors 'none'" in docs.headers["content-security-policy"]
        assert (
            "/docs-assets/swagger-ui-bundle.js" in docs.text and "https://" not in docs.text
        )  # local assets
        assert c.get("/healthz").headers["x-content-type-options"] == "nosniff"


def test_markdown_reports_escape_stored_names() -> None:
    payload = "<img src=x onerror=alert(1)>|<script>alert(2)</script>"
    report = Report(
        title=f"Job {payload}",
        data={},
        notes=[payload],
        tables=[ReportTable(title="t", columns=["environment", "rows"], rows=[[payload, "3"]])],
    )
    text = to_markdown(report)
    assert "<img" not in text and "<script" not in text
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in text and "\\|" in text
