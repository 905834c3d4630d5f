"""The Celery application workers run; start one with ``python -m worker -Q sal`` (CPU) or
``-Q gpu`` (CUDA jobs), which execs ``app.queue.worker_command``."""

from __future__ import annotations

from typing import Any

from celery.signals import setup_logging

from app import logs
from app.queue import make_celery
from app.settings import get_settings

celery_app = make_celery(get_settings())
celery_app.conf.include = ["worker.tasks"]
app = celery_app


@setup_logging.connect
def _json_logs(loglevel: int | str | None = None, **_: Any) -> None:
    # Connected, this replaces Celery's own logging setup: the worker writes the API's JSON lines.
    logs.configure(loglevel or "INFO")
