"""The Celery application workers run; start one with ``python -m worker -Q sal`` (CPU) or
``-Q gpu`` (CUDA jobs), which execs ``app.queue.worker_command``."""

from __future__ import annotations

from typing import Any

from celery.signals import setup_logging, worker_init

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


@worker_init.connect
def _load_compiled_w_paths(**_: Any) -> None:
    # SAL's compiled w-paths (sal_core.exact_compiled) load here, once, before the pool forks: each
    # pool process inherits them instead of loading numba and the kernel (~1.2 s) in its first job.
    from sal_core import exact_batch

    if exact_batch.runs_compiled(2):
        from sal_core import exact_compiled

        exact_compiled.warm_up()
