# One image for every role: api, worker, gpu-worker and the one-shot migrate service
# (docker-compose.yml picks the command). docs/deployment.md is the guide.
#
#   CPU (default):   docker build -t sal-service:latest .
#   One container, no configuration (embedded mode: SQLite + a worker, data under /srv/var):
#                    docker run -p 8000:8000 -v sal-data:/srv/var sal-service:latest
#   GPU (CUDA 12.6): docker build --build-arg TORCH_INDEX_URL=https://download.pytorch.org/whl/cu126 \
#                      -t sal-service:gpu .
#
# What is copied is what pyproject.toml packages (the wheel) plus the two files Alembic reads at
# run time; .dockerignore keeps everything else out of the build context. tests/deploy/test_image.py
# checks both lists against pyproject.toml, then installs this file set into a fresh venv and runs
# every entry point docker-compose.yml and the README use. No `# syntax=` line: BuildKit would fetch
# that frontend from a registry, and an offline build fails (tests/image/ checks this file;
# scripts/image_test.sh builds it and runs the compose stack on a real engine).

ARG PYTHON_IMAGE=python:3.11-slim

# ---- build: a venv with torch and the dependencies; the service beside it in /opt/sal (no source
# tree kept). Two folders, so the runtime stage copies them as two layers: a code change rebuilds and
# ships only /opt/sal (~4 MB), and the 1.3 GB venv layer stays cached.
FROM ${PYTHON_IMAGE} AS build

ARG TORCH_VERSION=2.13.0
ARG TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu

ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PATH=/opt/venv/bin:$PATH
# The venv finds the service in /opt/sal through a .pth file (importlib.metadata and pip see it too).
RUN python -m venv /opt/venv \
 && echo /opt/sal > "$(python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')/sal-service.pth"

# torch first, pinned exactly, from the index that matches the hardware: every later install
# finds torch==2.13.0 satisfied and never pulls another build.
RUN pip install "torch==${TORCH_VERSION}" --index-url "${TORCH_INDEX_URL}"

WORKDIR /src
# The dependencies alone, from pyproject.toml, so a code change does not reinstall them.
COPY pyproject.toml README.md ./
RUN python -c "import tomllib; print(*tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies'], sep='\n')" \
      > requirements.txt \
 && pip install -r requirements.txt
# What nothing at run time reads (~280 MB): torch's C++ headers and CMake files (extensions are
# compiled against them; the runtime stage has no compiler) and its C++ test programs, pyarrow's
# headers, and every package's own test suite (tests/ folders: numpy, pandas, sympy, matplotlib...).
RUN cd /opt/venv/lib/python3*/site-packages \
 && rm -rf torch/include torch/share/cmake torch/test torch/bin/*Test torch/bin/test_* pyarrow/include \
 && find . -type d -name tests -prune -exec rm -rf {} + \
 && python -c "import torch, numpy, pandas, pyarrow.parquet, matplotlib.pyplot, sympy, celery, sqlalchemy, fastapi"

# Every package pyproject.toml's [tool.setuptools.packages.find] finds, then the service itself.
COPY sal_core ./sal_core
COPY app ./app
COPY worker ./worker
COPY bench ./bench
COPY sal_cli ./sal_cli
COPY clients/python/sal_client ./clients/python/sal_client
RUN pip install --no-deps --target /opt/sal . \
 && PATH=/opt/sal/bin:$PATH sal --help >/dev/null \
 && python -c "import app.main, worker.celery_app, sal_cli.main" \
 && test -f /opt/sal/app/ui/static/index.html
# SAL's exact w-paths are compiled by numba on first use (~10 s); compile them here, into a cache the
# runtime stage keeps, so that a worker's first job loads them instead (sal_core/exact_compiled.py).
ENV NUMBA_CACHE_DIR=/opt/numba-cache
RUN cd /tmp && python -c "from sal_core import get_algorithm, exact_batch; from sal_core.synthetic import selection_bias; \
assert exact_batch.runs_compiled(10); get_algorithm('sal')().fit(selection_bias(r=1.7, n=200, seed=0, n_test=2).train)" \
 && ls /opt/numba-cache | grep -q .

# ---- runtime: the venv and Alembic's files; no compiler, no source tree, no pip cache
FROM ${PYTHON_IMAGE} AS runtime

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PATH=/opt/venv/bin:/opt/sal/bin:$PATH

# tini runs as PID 1: it forwards the stop signal to the command and reaps orphans. Celery as PID 1
# would ignore SIGTERM until its handlers are installed (the kernel drops signals a PID 1 does not
# handle), so a worker stopped while starting hung for the whole grace period.
# /srv, where every command runs, and /srv/var (SAL_DATA_DIR's default, ./var) belong to the user the
# image runs as: the default command's SQLite and broker files, and `sal jobs download -o FILE`.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && apt-get clean && rm -rf /var/lib/apt/lists/* \
 && useradd --create-home --uid 10001 sal \
 && install -d -o sal -g sal /srv /srv/var
COPY --from=build /opt/venv /opt/venv
COPY --from=build /opt/sal /opt/sal
# numba checks each cached kernel against its source file's time stamp and the CPU: where either
# differs it compiles again, into this folder, so it belongs to the user the image runs as.
COPY --from=build --chown=sal:sal /opt/numba-cache /opt/numba-cache
ENV NUMBA_CACHE_DIR=/opt/numba-cache

# Commands run here: `alembic upgrade head` reads ./alembic.ini and ./migrations.
WORKDIR /srv
COPY alembic.ini ./
COPY migrations ./migrations

USER sal
EXPOSE 8000
ENTRYPOINT ["/usr/bin/tini", "--"]
# With no configuration: the embedded mode (migrations, one worker, the API; SQLite and the
# filesystem broker in /srv/var; API keys required, as the host is not loopback:
# docker exec CONTAINER python -m app.admin keys create --tenant NAME). docker-compose.yml
# overrides the command per service.
CMD ["python", "-m", "app.embedded", "--host", "0.0.0.0", "--port", "8000"]
