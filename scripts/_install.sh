# Sourced by serve.sh and test.sh: make .venv and install the project into it (idempotent).
# torch goes first, pinned exactly: any other spec may pull a multi-GB CUDA build.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
if ! .venv/bin/python -c "import torch, sys; sys.exit(torch.__version__.split('+')[0] != '2.13.0')" 2>/dev/null; then
  .venv/bin/python -m pip install --quiet torch==2.13.0
fi
if ! .venv/bin/python -c "import app, worker, sal_core, celery, fastapi, openapi_python_client, sal_client, sal_cli, matplotlib" 2>/dev/null \
   || [ pyproject.toml -nt .venv/.sal-installed ]; then
  .venv/bin/python -m pip install --quiet -e '.[dev]'
  touch .venv/.sal-installed
fi
