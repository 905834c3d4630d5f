"""Fixtures for the service tests: real PostgreSQL, Redis and Celery worker processes.

The service fixtures are session-scoped and lazy, so tests that do not ask for them (sal_core's)
never touch a server. PostgreSQL database ``sal_service_test`` and Redis DB 5 belong to this
suite; a PostgreSQL advisory lock serialises concurrent runs of the suite on one machine.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import Engine, text

from app.db import migrate
from app.db.session import make_engine
from app.queue import worker_command
from app.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
PG_URL = os.environ.get(
    "SAL_TEST_DATABASE_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/sal_service_test"
)
REDIS_URL = os.environ.get("SAL_TEST_REDIS_URL", "redis://127.0.0.1:6379/5")
SUITE_LOCK_KEY = 0x5A15E7  # pg_advisory_lock key for "one sal-service test session at a time"
# The suite acts as a few tenants doing everything as fast as it can (200 concurrent POSTs,
# schemathesis); the per-tenant request limits have their own tests (tests/app/test_tenants_*.py),
# which set them explicitly. Settings() reads these; service_env passes them to servers it starts.
os.environ.setdefault("SAL_TENANT_RATE_LIMIT", "1000000/minute")
os.environ.setdefault("SAL_AUTH_FAILURE_LIMIT", "1000000/minute")


def _wait_for(predicate, timeout: float, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise TimeoutError(f"timed out after {timeout} s waiting for {what}")


class Proc:
    """A child process in its own session, logging to a file; stopped by its own pid only."""

    def __init__(self, args: list[str], env: dict[str, str], log_path: Path, cwd: Path = ROOT) -> None:
        self.log_path = log_path
        self._log = open(log_path, "wb")  # noqa: SIM115
        self.popen = subprocess.Popen(
            args, env=env, cwd=cwd, stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True
        )

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_for_log(self, needle: str, timeout: float) -> None:
        def seen() -> bool:
            if self.popen.poll() is not None:
                raise RuntimeError(f"process exited with {self.popen.returncode}:\n{self.log()[-4000:]}")
            return needle in self.log()

        _wait_for(seen, timeout, f"{needle!r} in {self.log_path}")

    def stop(self, timeout: float = 20.0) -> None:
        if self.popen.poll() is None:
            # SIGTERM to the main process only: it shuts its pool down itself (signalling the pool
            # children too can leave a Celery main process waiting forever). The SIGKILL fallback
            # goes to the group this fixture created (start_new_session).
            self.popen.send_signal(signal.SIGTERM)
            try:
                self.popen.wait(timeout)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.popen.pid, signal.SIGKILL)
                self.popen.wait()
        self._log.close()


def service_env(settings: Settings) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SAL_")}
    env.update(
        SAL_DATA_DIR=str(settings.data_dir),
        SAL_DATABASE_URL=settings.database_url,
        SAL_BROKER_URL=settings.broker_url,
        SAL_PROGRESS_MIN_INTERVAL_S=str(settings.progress_min_interval_s),
        SAL_TASK_SOFT_TIME_LIMIT=str(settings.task_soft_time_limit),
        SAL_TASK_TIME_LIMIT=str(settings.task_time_limit),
        SAL_CPU_QUEUE=settings.cpu_queue,
        SAL_GPU_QUEUE=settings.gpu_queue,
        SAL_AUTH=settings.auth,
        SAL_LEASE_S=str(settings.lease_s),
        SAL_HEARTBEAT_S=str(settings.heartbeat_s),
        SAL_REAPER_INTERVAL_S=str(settings.reaper_interval_s),
        SAL_MAX_ATTEMPTS=str(settings.max_attempts),
        SAL_REQUEUE_AFTER_S=str(settings.requeue_after_s),
        SAL_MAX_ACTIVE_JOBS_PER_TENANT=str(settings.max_active_jobs_per_tenant),
        SAL_TENANT_RATE_LIMIT=settings.tenant_rate_limit,
        SAL_AUTH_FAILURE_LIMIT=settings.auth_failure_limit,
        SAL_TORCH_THREADS="1",
        PYTHONUNBUFFERED="1",
    )
    return env


def start_worker(settings: Settings, log_path: Path) -> Proc:
    args = worker_command([settings.cpu_queue, settings.gpu_queue], hostname=f"test-{os.getpid()}@%h")
    proc = Proc(args, service_env(settings), log_path)
    proc.wait_for_log(" ready.", timeout=90)
    return proc


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# --- PostgreSQL + Redis ------------------------------------------------------------------------


SHARED_SERVICE_FIXTURES = {"pg_engine", "suite_lock", "redis_url"}


@pytest.hookimpl(tryfirst=True)  # before -m deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that uses the shared PostgreSQL or Redis is a ``services`` test, marked or not:
    scripts/test.sh runs those in one pytest process and the rest in another beside it, and only
    the first may take the suite's lock and reset the shared database."""
    for item in items:
        if SHARED_SERVICE_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.services)


@pytest.fixture(scope="session")
def pg_engine() -> Iterator[Engine]:
    engine = make_engine(PG_URL)
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except Exception as exc:  # pragma: no cover - environment problem, not a test failure
        pytest.fail(f"PostgreSQL at {PG_URL} is unreachable ({exc}); run scripts/test.sh, which starts it")
    yield engine
    engine.dispose()


@pytest.fixture(scope="session")
def suite_lock(pg_engine: Engine) -> Iterator[None]:
    """Hold an advisory lock for the whole session: another run of this suite waits for us."""
    with pg_engine.connect() as conn:
        conn.execute(text("SELECT pg_advisory_lock(:k)"), {"k": SUITE_LOCK_KEY})
        conn.commit()
        yield
        conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": SUITE_LOCK_KEY})
        conn.commit()


@pytest.fixture(scope="session")
def pg_url(pg_engine: Engine, suite_lock: None) -> str:
    """sal_service_test, emptied and migrated to head (the schema comes only from migrations)."""
    with pg_engine.begin() as conn:
        conn.execute(text("DROP SCHEMA IF EXISTS public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    migrate.upgrade(PG_URL)
    return PG_URL


@pytest.fixture(scope="session")
def redis_url(suite_lock: None) -> str:
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    try:
        client.ping()
    except redis.RedisError as exc:  # pragma: no cover
        pytest.fail(f"Redis at {REDIS_URL} is unreachable ({exc}); run scripts/test.sh, which starts it")
    client.flushdb()  # our own DB number only
    client.close()
    return REDIS_URL


@pytest.fixture(scope="session")
def pg_settings(pg_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    # Queues named per test session: a stray worker left by an interrupted run on the same Redis DB
    # must never take this session's jobs (it would run them against another data dir or schema).
    suffix = f"{os.getpid()}-{time.time_ns()}"
    return Settings(
        data_dir=tmp_path_factory.mktemp("pg-data"),
        database_url=pg_url,
        broker_url=redis_url,
        progress_min_interval_s=0.0,
        cpu_queue=f"sal-test-{suffix}",
        gpu_queue=f"gpu-test-{suffix}",
    )


@pytest.fixture(scope="session")
def stub_settings(pg_settings: Settings) -> Settings:
    """pg_settings with queues no worker consumes, for apps whose queue only records. A live
    pg_worker shares the database: on pg_settings' queues its reaper would relay such an app's
    outbox rows (app.jobs.outbox) and it would run jobs the test expects to stay queued."""
    suffix = f"{os.getpid()}-{time.time_ns()}"
    return pg_settings.model_copy(update={"cpu_queue": f"stub-{suffix}", "gpu_queue": f"stub-gpu-{suffix}"})


@pytest.fixture(scope="session")
def pg_worker(pg_settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Proc]:
    proc = start_worker(pg_settings, tmp_path_factory.mktemp("logs") / "pg-worker.log")
    yield proc
    proc.stop()


@pytest.fixture(scope="session")
def pg_app(pg_settings: Settings):  # type: ignore[no-untyped-def]
    from app.main import create_app

    app = create_app(pg_settings)
    yield app
    app.state.engine.dispose()


@pytest.fixture(scope="session")
def client(pg_app) -> Iterator[httpx.Client]:  # type: ignore[no-untyped-def]
    """The API in-process on PostgreSQL + Redis (no worker: jobs stay queued unless pg_worker runs)."""
    from fastapi.testclient import TestClient

    with TestClient(pg_app) as c:
        yield c


# --- API keys -----------------------------------------------------------------------------------


def make_api_key(engine: Engine, tenant: str) -> str:
    """A new key for ``tenant`` (created if new), straight in the database; returns the key."""
    from app import auth
    from app.db import tenancy
    from app.db.session import make_sessionmaker

    with make_sessionmaker(engine)() as session:
        record = tenancy.get_or_create_tenant(session, tenant)
        key = auth.new_key()
        tenancy.add_api_key(session, record.id, auth.key_sha256(key), auth.display_prefix(key))
        session.commit()
    return key


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


@pytest.fixture(scope="session")
def auth_headers(pg_app) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """A valid ``Authorization`` header of tenant "test-suite" in the PostgreSQL test database."""
    return bearer(make_api_key(pg_app.state.engine, "test-suite"))


@pytest.fixture(scope="session")
def keys_app(pg_settings: Settings):  # type: ignore[no-untyped-def]
    """The API on PostgreSQL + Redis with API keys required (SAL_AUTH=keys)."""
    from app.main import create_app

    app = create_app(pg_settings.model_copy(update={"auth": "keys"}))
    yield app
    app.state.engine.dispose()


@pytest.fixture(scope="session")
def keys_client(keys_app, auth_headers: dict[str, str]) -> Iterator[httpx.Client]:  # type: ignore[no-untyped-def]
    """``keys_app`` in-process, every request carrying ``auth_headers``."""
    from fastapi.testclient import TestClient

    with TestClient(keys_app, headers=auth_headers) as c:
        yield c


@pytest.fixture
def row_counts(pg_app):  # type: ignore[no-untyped-def]
    """A function returning {table: rows} in the PostgreSQL test database.

    Only the tables a request writes: ``job_results`` rows are written by workers, and a worker of
    this session may finish an older queued job (the idle re-send delivers jobs that stub-queue tests
    left queued) at any moment; a result row needs a job row, so an unchanged ``jobs`` count already
    says a refused request wrote none."""

    def counts() -> dict[str, int]:
        with pg_app.state.engine.connect() as conn:
            return {
                t: int(conn.execute(text(f"SELECT count(*) FROM {t}")).scalar_one())
                for t in ("datasets", "jobs", "idempotency_keys")
            }

    return counts


# --- the embedded default: SQLite + filesystem broker, one command ---------------------------


@pytest.fixture(scope="session")
def embedded_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """SAL_DATA_DIR of the ``embedded`` instance (its SQLite database is in here)."""
    return tmp_path_factory.mktemp("embedded") / "var"


@pytest.fixture(scope="session")
def embedded(embedded_data_dir: Path) -> Iterator[str]:
    """``python -m app.embedded`` as a user runs it; yields its base URL."""
    data = embedded_data_dir.parent
    port = free_port()
    # The load smoke test submits jobs faster than one embedded worker drains them.
    settings = Settings(
        data_dir=embedded_data_dir, progress_min_interval_s=0.0, max_active_jobs_per_tenant=1_000_000
    )
    env = service_env(settings)
    env.pop("SAL_DATABASE_URL")
    env.pop("SAL_BROKER_URL")
    proc = Proc([sys.executable, "-m", "app.embedded", "--port", str(port)], env, data / "embedded.log")
    base = f"http://127.0.0.1:{port}"
    try:
        proc.wait_for_log(" ready.", timeout=120)  # the worker

        def ready() -> bool:
            try:
                return httpx.get(f"{base}/readyz", timeout=2).status_code == 200
            except httpx.HTTPError:
                return False

        _wait_for(ready, 60, "the embedded API")
        yield base
    finally:
        proc.stop()
