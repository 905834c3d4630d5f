"""Private servers for the fault tests: a PostgreSQL cluster and Redis servers of our own, on
other ports in temp dirs, which the tests stop and restart. The shared PostgreSQL (5432) and
Redis (6379) are never touched; everything here is stopped by its own pid or data directory."""

from __future__ import annotations

import contextlib
import glob
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
from sqlalchemy import text

from app.db import migrate
from app.db.session import make_engine
from app.settings import Settings
from tests.conftest import ROOT, Proc, _wait_for, free_port, service_env

PG_BIN = (
    Path(sorted(glob.glob("/usr/lib/postgresql/*/bin"))[-1])
    if glob.glob("/usr/lib/postgresql/*/bin")
    else None
)


def _as_postgres(args: list[str]) -> list[str]:
    # initdb refuses to run as root; the cluster then belongs to the postgres system user.
    return ["runuser", "-u", "postgres", "--", *args] if os.geteuid() == 0 else args


class PrivatePostgres:
    def __init__(self, root: Path) -> None:
        assert PG_BIN is not None
        self.root = root
        self.data = root / "data"
        self.port = free_port()
        self.log = root / "postgres.log"
        subprocess.run(
            _as_postgres([str(PG_BIN / "initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]),
            check=True, capture_output=True,
        )  # fmt: skip

    def start(self) -> None:
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off"
        subprocess.run(
            _as_postgres([str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-o", options, "-w", "-t", "30", "start"]),  # type: ignore[operator]
            check=True, capture_output=True,
        )  # fmt: skip

    def stop(self) -> None:
        subprocess.run(
            _as_postgres([str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop"]),  # type: ignore[operator]
            check=False, capture_output=True,
        )  # fmt: skip

    def url(self, database: str) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def new_database(self, name: str) -> str:
        engine = make_engine(self.url("postgres"), isolation_level="AUTOCOMMIT")
        with engine.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        engine.dispose()
        migrate.upgrade(self.url(name))
        return self.url(name)


class PrivateRedis:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.port = free_port()
        self.proc: Proc | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        # No persistence: a restart loses every queued message, the worst case.
        args = [
            "redis-server",
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(self.root),
        ]
        self.proc = Proc(args, dict(os.environ), self.root / f"redis-{time.monotonic_ns()}.log")
        import redis

        def up() -> bool:
            try:
                return bool(redis.Redis(port=self.port, socket_timeout=1).ping())
            except redis.RedisError:
                return False

        _wait_for(up, 15, "the private redis-server")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.stop()
            self.proc = None


def start_api(
    settings: Settings, log_path: Path, *, workers: int = 1, auth: str = "single-user"
) -> tuple[Proc, str]:
    """The API as its own uvicorn process (``--workers N`` processes); returns it and its base URL."""
    port = free_port()
    env = service_env(settings) | {"SAL_AUTH": auth}
    args = [
        sys.executable,
        "-m",
        "uvicorn",
        "app.main:app",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        str(workers),
    ]
    proc = Proc(args, env, log_path, cwd=ROOT)
    base = f"http://127.0.0.1:{port}"

    def up() -> bool:
        if proc.popen.poll() is not None:
            raise RuntimeError(proc.log()[-3000:])
        with contextlib.suppress(httpx.HTTPError):
            return httpx.get(f"{base}/healthz", timeout=1).status_code == 200
        return False

    _wait_for(up, 60, "the API process")
    return proc, base
