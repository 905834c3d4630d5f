"""One command, one machine: migrate, start a real Celery worker process, serve the API.

    python -m app.embedded [--host 127.0.0.1] [--port 8000] [--workers 1]

Defaults to SQLite (WAL) and kombu's filesystem transport under ``SAL_DATA_DIR`` (./var), so no
server is needed; the code path is the production one (a separate worker process, not eager
mode). Set SAL_DATABASE_URL / SAL_BROKER_URL to use PostgreSQL / Redis instead.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import subprocess
import sys
import threading
import time

import uvicorn

from app.db import migrate
from app.main import create_app
from app.settings import get_settings

log = logging.getLogger("app.embedded")


def worker_command(queues: list[str], concurrency: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "worker.celery_app",
        "worker",
        "--pool=prefork",
        f"--concurrency={concurrency}",
        "-Q",
        ",".join(queues),
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
        "--loglevel=INFO",
    ]


class Supervisor:
    """Keeps one worker process alive until stopped."""

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self.command = command
        self.env = env
        self.process: subprocess.Popen[bytes] | None = None
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="worker-supervisor", daemon=True)

    def start(self) -> None:
        self.process = subprocess.Popen(self.command, env=self.env)
        self._thread.start()

    def _watch(self) -> None:
        while not self._stopping.wait(1.0):
            assert self.process is not None
            code = self.process.poll()
            if code is not None and not self._stopping.is_set():
                log.error("worker exited with %s; starting a new one", code)
                self.process = subprocess.Popen(self.command, env=self.env)

    def stop(self, timeout: float = 20.0) -> None:
        self._stopping.set()
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)  # warm shutdown: finish or hand back the current job
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def main(argv: list[str] | None = None) -> None:
    settings = get_settings()
    parser = argparse.ArgumentParser(prog="python -m app.embedded", description=__doc__.splitlines()[0])
    parser.add_argument("--host", default=settings.host)
    parser.add_argument("--port", type=int, default=settings.port)
    parser.add_argument("--workers", type=int, default=settings.worker_concurrency, help="worker processes")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    log.info("database %s, broker %s", settings.database_url, settings.broker_url)
    migrate.upgrade(settings.database_url)
    # The embedded worker takes CPU and GPU jobs alike (a CUDA job without a GPU fails clearly).
    supervisor = Supervisor(worker_command([settings.cpu_queue, settings.gpu_queue], args.workers), dict(os.environ))
    supervisor.start()
    try:
        time.sleep(0.1)
        uvicorn.run(create_app(settings), host=args.host, port=args.port, log_level="info")
    finally:
        supervisor.stop()


if __name__ == "__main__":
    main()
