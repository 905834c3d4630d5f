"""Leases, the heartbeat and the reaper, on a private SQLite database with a clock passed in."""

from __future__ import annotations

import datetime as dt
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update
from sqlalchemy.orm import Session, sessionmaker

from app.db import migrate
from app.db import repository as repo
from app.db.models import DEFAULT_TENANT_ID, Job, utcnow
from app.db.session import make_engine, make_sessionmaker
from app.settings import Settings
from worker.leases import Heartbeat, Reaper


class Sent:
    def __init__(self) -> None:
        self.sent: list[tuple[str, str]] = []

    def enqueue(self, job_id: str, queue: str, priority: int = 0) -> None:
        self.sent.append((job_id, queue))


@pytest.fixture
def sessions(tmp_path: Path) -> Iterator[sessionmaker[Session]]:
    url = f"sqlite:///{tmp_path / 'leases.db'}"
    migrate.upgrade(url)
    engine = make_engine(url)
    yield make_sessionmaker(engine)
    engine.dispose()


SETTINGS = Settings(
    lease_s=3, heartbeat_s=1, max_attempts=2, requeue_after_s=30, task_soft_time_limit=50, task_time_limit=100
)


def _job(sessions: sessionmaker[Session], **fields: Any) -> str:
    job_id = str(uuid.uuid4())
    row: dict[str, Any] = dict(
        id=job_id, tenant_id=DEFAULT_TENANT_ID, dataset_id=None, status="queued", algorithm="erm", task="regression",
        params={}, model={}, seed=0, device="cpu", queue="q", train_environments=[], test_environments=[],
        progress_step=0, attempts=[], enqueued_at=utcnow(),
    )  # fmt: skip
    row.update(fields)
    with sessions() as s:
        s.add(Job(**row))
        s.commit()
    return job_id


def _row(sessions: sessionmaker[Session], job_id: str) -> Job:
    with sessions() as s:
        job = s.get(Job, job_id)
        assert job is not None
        return job


def _claim(sessions: sessionmaker[Session], job_id: str) -> int:
    with sessions() as s:
        attempt = repo.claim_job(s, job_id, worker="w:1", lease_s=SETTINGS.lease_s)
        s.commit()
    assert attempt is not None
    return attempt


def _reap(sessions: sessionmaker[Session], after_s: float) -> tuple[dict[str, int], Sent]:
    sent = Sent()
    reaper = Reaper(sessions, sent, SETTINGS, clock=lambda: utcnow() + dt.timedelta(seconds=after_s))  # type: ignore[arg-type]
    return reaper.run_once(), sent


def test_a_lost_worker_is_retried_then_failed_worker_lost(sessions: sessionmaker[Session]) -> None:
    job_id = _job(sessions)
    assert _claim(sessions, job_id) == 1
    assert _reap(sessions, 1)[0]["requeued"] == 0  # the lease still holds
    counts, sent = _reap(sessions, 10)
    assert counts["requeued"] == 1 and sent.sent == [(job_id, "q")]
    assert _row(sessions, job_id).status == "queued"
    assert _claim(sessions, job_id) == 2
    counts, sent = _reap(sessions, 10)
    assert counts["failed"] == 1 and sent.sent == []
    job = _row(sessions, job_id)
    assert job.status == "failed" and job.error is not None and job.error["type"] == "worker_lost"
    assert [a["number"] for a in job.attempts] == [1, 2] and all(a["worker"] == "w:1" for a in job.attempts)


def test_past_the_hard_limit_is_a_timeout_and_a_requested_cancel_ends_cancelled(
    sessions: sessionmaker[Session],
) -> None:
    slow, cancelled = _job(sessions), _job(sessions)
    _claim(sessions, slow)
    _claim(sessions, cancelled)
    with sessions() as s:
        repo.cancel_job(s, cancelled, tenant_id=DEFAULT_TENANT_ID)
        s.commit()
    counts, sent = _reap(sessions, SETTINGS.task_time_limit + 5)
    assert (
        counts == {"requeued": 0, "failed": 1, "cancelled": 1, "resent": 0, "skipped": 0, "relayed": 0}
        and sent.sent == []
    )
    assert (_row(sessions, slow).error or {})["type"] == "timeout"
    assert _row(sessions, cancelled).status == "cancelled"


def test_a_stale_attempt_cannot_write(sessions: sessionmaker[Session]) -> None:
    job_id = _job(sessions)
    first = _claim(sessions, job_id)
    _reap(sessions, 10)
    second = _claim(sessions, job_id)
    with sessions() as s:
        assert repo.report_progress(s, job_id, 1, 2, attempt=first) is False
        assert repo.finish_job(s, job_id, {}, b"w", "sha", attempt=first) is None
        assert (
            repo.fail_job(s, job_id, {"type": "x", "message": ""}, from_status=["running"], attempt=first)
            is False
        )
        assert repo.finish_job(s, job_id, {}, b"w", "sha", attempt=second) == "succeeded"
        s.commit()


def test_an_unclaimed_job_is_sent_again_once_per_pass(sessions: sessionmaker[Session]) -> None:
    job_id = _job(sessions, enqueued_at=utcnow() - dt.timedelta(seconds=60))
    fresh = _job(sessions)
    reapers = [Reaper(sessions, Sent(), SETTINGS) for _ in range(3)]  # type: ignore[arg-type]
    for reaper in reapers:
        reaper.run_once()
    assert sum(len(r.queue.sent) for r in reapers) == 1  # type: ignore[attr-defined]
    assert _row(sessions, fresh).enqueued_at == _row(sessions, fresh).enqueued_at
    assert _row(sessions, job_id).status == "queued"


def test_the_heartbeat_renews_the_lease_until_the_job_is_taken(sessions: sessionmaker[Session]) -> None:
    job_id = _job(sessions)
    attempt = _claim(sessions, job_id)
    first = _row(sessions, job_id).lease_expires_at
    assert first is not None
    fast = SETTINGS.model_copy(update={"heartbeat_s": 0.05})
    with Heartbeat(sessions, job_id, attempt, fast) as beat:
        time.sleep(0.3)
        renewed = _row(sessions, job_id).lease_expires_at
        assert renewed is not None and renewed > first and not beat.lost
        with sessions() as s:
            s.execute(update(Job).where(Job.id == job_id).values(attempt=attempt + 1))
            s.commit()
        time.sleep(0.3)
        assert beat.lost
