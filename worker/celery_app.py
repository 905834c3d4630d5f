"""The Celery application workers run; start one with ``python -m worker -Q sal`` (CPU) or
``-Q gpu`` (CUDA jobs), which execs ``app.queue.worker_command``."""

from __future__ import annotations

from app.queue import make_celery
from app.settings import get_settings

celery_app = make_celery(get_settings())
celery_app.conf.include = ["worker.tasks"]
app = celery_app
