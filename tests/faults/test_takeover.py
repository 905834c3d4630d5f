"""Fast takeover and the claim inside the retry path, without processes: a redelivered message
takes over a job whose holder is provably gone (same host, dead pid), fenced by attempt; a
database error during the claim re-queues the message instead of dropping it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError

from app.db import migrate
from app.db import repository as repo
from app.db.models import Job
from app.settings import Settings
from tests.worker.test_leases import _job
from worker import tasks
from worker.leases import holder_gone
from worker.runner import Runner

HOST = socket.gethostname()


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_holder_is_gone_only_when_provably_so() -> None:
    assert holder_gone(f"{HOST}:{_dead_pid()}")
    assert holder_gone(f"{HOST}:{os.getpid()}")  # this process runs one task at a time: not that one
    assert not holder_gone(f"{HOST}:{os.getppid()}")  # alive
    assert not holder_gone(f"elsewhere:{_dead_pid()}")  # another host: only its lease can tell
    assert not holder_gone("garbage")


@pytest.fixture
def runner(tmp_path: Path) -> Iterator[Runner]:
    settings = Settings(data_dir=tmp_path, broker_url="memory://", max_attempts=2)
    migrate.upgrade(settings.database_url)
    run = Runner.from_settings(settings)
    yield run
    run.close()


def _running(runner: Runner, worker: str) -> tuple[str, int]:
    job_id = _job(runner.sessions)
    with runner.sessions() as s:
        attempt = repo.claim_job(s, job_id, worker=worker, lease_s=600)
        s.commit()
    assert attempt is not None
    return job_id, attempt


def test_a_redelivered_message_takes_over_from_a_dead_holder_at_once(runner: Runner) -> None:
    job_id, first = _running(runner, f"{HOST}:{_dead_pid()}")  # lease still 600 s away
    second = runner.claim(job_id, f"{HOST}:{os.getpid()}")
    assert second == first + 1
    with runner.sessions() as s:
        # The old attempt is fenced: its progress and result writes change nothing.
        assert not repo.report_progress(s, job_id, 1, 2, attempt=first)
        job = s.get(Job, job_id)
        assert job is not None and [a["number"] for a in job.attempts] == [1, 2]


def test_a_live_holder_keeps_its_job(runner: Runner) -> None:
    job_id, _ = _running(runner, f"{HOST}:{os.getppid()}")
    assert runner.claim(job_id, f"{HOST}:{os.getpid()}") is None


def test_the_last_attempt_lost_fails_worker_lost(runner: Runner) -> None:
    job_id, _ = _running(runner, f"{HOST}:{_dead_pid()}")
    with runner.sessions() as s:
        s.get(Job, job_id).attempt = 2  # type: ignore[union-attr]
        s.commit()
    assert runner.claim(job_id, f"{HOST}:{os.getpid()}") is None
    with runner.sessions() as s:
        job = s.get(Job, job_id)
        assert job is not None and job.status == "failed" and (job.error or {})["type"] == "worker_lost"


def test_a_database_error_in_the_claim_retries_the_message(monkeypatch: pytest.MonkeyPatch) -> None:
    class Down:
        def run(self, job_id: str) -> str:
            raise OperationalError("UPDATE jobs ...", {}, Exception("connection refused"))

    retried: list[dict[str, Any]] = []

    class Retry(Exception):
        pass

    def retry(**kwargs: Any) -> Retry:
        retried.append(kwargs)
        return Retry()

    monkeypatch.setattr(tasks, "runner", lambda: Down())
    monkeypatch.setattr(tasks.run_job, "retry", retry)
    with pytest.raises(Retry):
        tasks.run_job("some-job")
    assert retried and retried[0]["max_retries"] is None and 0 < retried[0]["countdown"] <= 8
