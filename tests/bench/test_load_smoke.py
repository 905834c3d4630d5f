"""Smoke test: bench/load.py's phases run end to end against the embedded service for a couple of
seconds (no timing assertions: the numbers come from ``python -m bench.load``)."""

from __future__ import annotations

import httpx
import pytest

from bench import load

pytestmark = [pytest.mark.services, pytest.mark.slow]


def test_load_phases_run_and_render(embedded: str) -> None:
    config = load.LoadConfig(
        duration=0.5, get_rate=40, post_rate=10, concurrency=2, jobs=2, poll_s=0.01, warmup=0.2
    )
    report = load.run(embedded, config)
    names = [(s.name, s.mode.split(",")[0].split(" at ")[0]) for s in report.rows]
    assert names == [
        ("GET /jobs/{id}", "open loop"),
        ("GET /jobs/{id}", "closed loop"),
        ("tiny ERM job, POST → succeeded", "sequential"),
        ("POST /jobs", "open loop"),
        ("POST /jobs", "closed loop"),
    ]
    for row in report.rows:
        assert row.n > 0 and row.errors == 0, (row.name, row.mode, row.statuses)
    text = load.render(report, "python -m bench.load --test")
    for piece in ("| operation |", "GET /jobs/{id}", "POST /jobs", "tiny ERM job", "Targets"):
        assert piece in text


def test_raw_client_reads_statuses_and_bodies(embedded: str) -> None:
    import asyncio

    async def go() -> list[int | None]:
        client = load.RawClient(embedded, connections=2)
        try:
            requests = [
                client.encode("GET", "/healthz"),
                client.encode("GET", "/jobs/nope"),
                client.encode("GET", "/healthz"),
            ]
            return [await client.send(r) for r in requests]
        finally:
            await client.close()

    assert asyncio.run(go()) == [200, 404, 200]
    assert httpx.get(f"{embedded}/healthz").status_code == 200


def test_tiny_csv_is_a_valid_upload(embedded: str) -> None:
    with httpx.Client(base_url=embedded) as client:
        first = load.upload_dataset(client, seed=99)
        assert load.upload_dataset(client, seed=99) == first  # content-addressed: same id
