"""Reports cost a render once per ETag, and only max_concurrent_renders at once (issue 24)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import app.reports
from app.db import migrate
from app.errors import ServiceUnavailable
from app.main import create_app
from app.reports import Renderer
from app.settings import Settings
from tests.app import factories as f


def test_a_report_is_drawn_once_per_etag(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    drawn: list[str] = []
    real = app.reports.to_html

    def counting(report: Any, figures: Any = "png") -> str:
        drawn.append(report.title)
        return real(report, figures)

    monkeypatch.setattr(app.reports, "to_html", counting)
    settings = Settings(data_dir=tmp_path, broker_url="memory://")
    migrate.upgrade(settings.database_url)
    service = create_app(settings, queue=f.RecordingQueue(settings, None))
    service.state.queue.engine = service.state.engine
    with TestClient(service) as c:
        dataset = f.upload_csv(c, f.frame(seed=2404)).json()["id"]
        job = c.post("/jobs", json=f.job_body(dataset)).json()["id"]
        url = f"/jobs/{job}/report"
        first, second = (c.get(url, params={"format": "html"}) for _ in range(2))
        assert first.status_code == second.status_code == 200 and first.text == second.text
        assert len(drawn) == 1 and first.headers["etag"] == second.headers["etag"]
        unchanged = c.get(url, params={"format": "html"}, headers={"If-None-Match": first.headers["etag"]})
        assert unchanged.status_code == 304 and len(drawn) == 1
        assert c.get(url, params={"format": "html", "figures": "svg"}).status_code == 200
        assert len(drawn) == 2  # another figure format is another document
        assert c.post(f"/jobs/{job}/cancel").status_code in (200, 202)
        changed = c.get(url, params={"format": "html"})
        assert changed.headers["etag"] != first.headers["etag"] and len(drawn) == 3
    service.state.engine.dispose()


def test_renders_beyond_the_limit_wait_then_get_a_503() -> None:
    renderer = Renderer(cache_size=8, concurrency=1, wait_s=0.05)
    started, release = threading.Event(), threading.Event()

    def slow() -> str:
        started.set()
        release.wait(30)
        return "slow"

    holder = threading.Thread(target=lambda: renderer.render("a", slow))
    holder.start()
    assert started.wait(30)
    with pytest.raises(ServiceUnavailable):
        renderer.render("b", lambda: "b")
    release.set()
    holder.join(30)
    assert renderer.render("a", lambda: "drawn again") == "slow"  # cached
    assert renderer.render("b", lambda: "b") == "b"
