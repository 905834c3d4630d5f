"""sal-service: datasets and training jobs over REST, run by Celery workers, results in SQL."""
