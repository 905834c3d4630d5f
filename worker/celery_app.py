"""The Celery application workers run: ``celery -A worker.celery_app worker -Q sal`` (CPU) or
``-Q gpu`` (CUDA jobs)."""

from __future__ import annotations

from app.queue import make_celery
from app.settings import get_settings

celery_app = make_celery(get_settings())
celery_app.conf.include = ["worker.tasks"]
app = celery_app
