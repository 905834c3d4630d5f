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
from pathlib import Path

import uvicorn

from app import logs
from app.db import migrate
from app.queue import worker_command
from app.settings import get_settings

log = logging.getLogger("app.embedded")


def _die_with_parent() -> None:
    if sys.platform.startswith("linux"):
        import ctypes

        PR_SET_PDEATHSIG = 1
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def _exit_on_sigterm(signum: int, frame: object) -> None:
    # uvicorn re-raises the SIGTERM it handled once it has shut down; exiting through
    # SystemExit (instead of dying of the signal) lets main() stop the worker first.
    raise SystemExit(0)


class Supervisor:
    """Keeps one worker process alive until stopped."""

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self.command = command
        self.env = env
        self.process: subprocess.Popen[bytes] | None = None
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="worker-supervisor", daemon=True)

    def _spawn(self) -> subprocess.Popen[bytes]:
        # Its own session: a signal to our process group (Ctrl-C, a service manager) reaches the
        # worker only through stop(), once, so its warm shutdown is not cut short; and on Linux
        # it is told to stop if this process dies without cleaning up.
        return subprocess.Popen(
            self.command, env=self.env, start_new_session=True, preexec_fn=_die_with_parent
        )

    def start(self) -> None:
        self.process = self._spawn()
        self._thread.start()

    def _watch(self) -> None:
        while not self._stopping.wait(1.0):
            assert self.process is not None
            code = self.process.poll()
            if code is not None and not self._stopping.is_set():
                log.error("worker exited with %s; starting a new one", code)
                self.process = self._spawn()

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
    logs.configure(logging.INFO)  # JSON lines (app.logs); the worker it starts logs the same way

    # Single-user mode ("auto") only on a loopback address; see Settings.single_user.
    settings = settings.model_copy(update={"host": args.host})
    # One metrics directory for this API and its workers (app.metrics), emptied at each start;
    # set before app.main (and so prometheus_client) is imported.
    metrics_dir = Path(os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", str(settings.data_dir / "metrics")))
    metrics_dir.mkdir(parents=True, exist_ok=True)
    for stale in metrics_dir.glob("*.db"):
        stale.unlink()
    from app.main import create_app

    log.info("database %s, broker %s", settings.database_url, settings.broker_url)
    migrate.upgrade(settings.database_url)
    # The embedded worker takes GPU jobs too when this machine has a GPU (Settings.has_gpu_workers);
    # without one a "cuda" job waits on the GPU queue, as in every deployment (app.jobs.placement).
    # Chunk tasks of chunked fits too (worker.chunked): with --workers 2 one process helps the
    # other's fit; with one, the job's own process does every part and the queued tasks do nothing.
    queues = [
        settings.cpu_queue,
        settings.chunk_queue,
        *([settings.gpu_queue] if settings.has_gpu_workers else []),
    ]
    supervisor = Supervisor(worker_command(queues, args.workers), dict(os.environ))
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    supervisor.start()
    try:
        # log_config=None: uvicorn's loggers keep the JSON handler set above.
        uvicorn.run(create_app(settings), host=args.host, port=args.port, log_config=None, access_log=False)
    finally:
        supervisor.stop()


if __name__ == "__main__":
    main()
