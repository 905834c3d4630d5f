"""Results and responses bounded in bytes whatever the parameters: a result's history keeps at
most HISTORY_NUMBERS numbers, and a page of GET /jobs stops at max_response_bytes."""

from __future__ import annotations

import json
from pathlib import Path

from fastapi.testclient import TestClient

from app.db import migrate
from app.jobs.result import HISTORY_NUMBERS, RoundResult, thin_history
from app.main import create_app
from app.settings import Settings
from sal_core.history import Round
from tests.app import factories as f


def test_a_long_wide_history_is_thinned_to_the_budget() -> None:
    rounds = [
        Round(round=i, risk=1.0, env_losses={"a": 1.0, "b": 2.0}, w=[1.0] * 100) for i in range(100_000)
    ]
    kept = thin_history(rounds)
    numbers = sum(2 + len(r.env_losses) + len(r.w or ()) for r in kept)
    assert numbers <= HISTORY_NUMBERS and kept[0].round == 0 and kept[-1].round == 99_999
    assert len(json.dumps([RoundResult.of(r).model_dump() for r in kept])) < 4 * 1024 * 1024
    short = rounds[:10]
    assert thin_history(short) == short  # within the budget: every round


def test_a_page_of_jobs_stops_at_the_byte_budget_and_the_cursor_goes_on(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, broker_url="memory://", max_response_bytes=2048)
    migrate.upgrade(settings.database_url)
    app = create_app(settings, queue=f.RecordingQueue(settings, None))
    app.state.queue.engine = app.state.engine
    with TestClient(app) as client:
        dataset = f.upload_csv(client, f.frame(seed=41)).json()["id"]
        ids = [client.post("/jobs", json=f.job_body(dataset, seed=i)).json()["id"] for i in range(5)]
        one = len(client.get(f"/jobs/{ids[0]}").content)
        seen: list[str] = []
        cursor = None
        while True:
            response = client.get("/jobs", params={"limit": 50, **({"cursor": cursor} if cursor else {})})
            assert len(response.content) <= max(2048, one) + 100
            page = response.json()
            assert 1 <= len(page["items"]) < 5
            seen += [j["id"] for j in page["items"]]
            cursor = page["next_cursor"]
            if cursor is None:
                break
        assert seen == ids[::-1]
    app.state.engine.dispose()
