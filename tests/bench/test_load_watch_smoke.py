"""Smoke test: bench/load_watch.py's phases run end to end at small sizes against its own API
process on the suite's PostgreSQL and Redis (no timing assertions: the figures come from
``python -m bench.load_watch``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bench import load_watch
from bench.load import Stack

pytestmark = [pytest.mark.services, pytest.mark.slow]


def test_watch_phases_run_and_render(pg_url: str, redis_url: str, tmp_path: Path) -> None:
    queue = f"bench-watch-smoke-{os.getpid()}"  # nobody takes these jobs
    stack = Stack(
        database_url=pg_url,
        broker_url=redis_url,
        api_procs=1,
        workers=0,
        log_dir=tmp_path,
        extra_env={"SAL_CPU_QUEUE": queue},
    )
    # each phase spans several of the API watcher's passes (SAL_EVENTS_POLL_S, 0.5 s) and of the
    # pretend workers' progress steps (0.5 s): one second could end between two passes on a loaded
    # host (the image build and the other pytest half share the CI machine's cores) and see no event
    config = load_watch.WatchConfig(jobs=3, sse_clients=6, pollers=3, poll_hz=2, duration=4.0)
    try:
        stack.start()
        phases = load_watch.run(stack.base_url, pg_url, stack.pids(), config)
    finally:
        stack.stop()
        _cancel_jobs_on(pg_url, queue)  # they would count against the tenant's cap in later tests
    idle, sse, poll, listing = phases
    assert sse.requests > 0 and poll.requests > 0 and listing.requests > 0  # events and answers came
    assert all(p.api_cpu_s >= 0 for p in phases) and listing.bytes_per_response
    text = load_watch.render(phases, "python -m bench.load_watch --test")
    for piece in (
        "| phase |",
        "SSE, 6 streams",
        "poll GET /jobs/{id}",
        "GET /jobs?limit=100",
        "SSE / polling",
    ):
        assert piece in text


def _cancel_jobs_on(url: str, queue: str) -> None:
    from sqlalchemy import text

    from app.db.session import make_engine

    engine = make_engine(url)
    with engine.begin() as conn:
        conn.execute(
            text("UPDATE jobs SET status = 'cancelled', finished_at = now() WHERE queue = :q"), {"q": queue}
        )
    engine.dispose()
