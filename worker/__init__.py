"""Celery workers: thin tasks that load a job by id, run sal_core and store the result in SQL."""
