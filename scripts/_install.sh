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
  # SAL's compiled w-paths (numba, sal_core/exact_compiled.py) compile here, once per install
  # (~10 s), into numba's cache beside the source, rather than in a worker's first start
  .venv/bin/python -c "from sal_core import exact_batch, exact_compiled; exact_batch.runs_compiled(2) and exact_compiled.warm_up()"
  touch .venv/.sal-installed
fi
