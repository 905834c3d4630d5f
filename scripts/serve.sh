#!/usr/bin/env bash
# Run the service on one machine with no servers: SQLite (WAL) + kombu's filesystem broker under
# ./var, the API on http://127.0.0.1:8000 and a real Celery worker process.
#   bash scripts/serve.sh [--host H] [--port P] [--workers N]
# Scale-out uses the same code: set SAL_DATABASE_URL=postgresql+psycopg://... and
# SAL_BROKER_URL=redis://... (see docker-compose.yml).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_install.sh"
exec .venv/bin/python -m app.embedded "$@"   # migrates, starts the worker, serves the API
