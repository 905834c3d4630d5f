# syntax=docker/dockerfile:1
# One image for every role: api, worker, gpu-worker and the one-shot migrate service
# (docker-compose.yml picks the command). docs/deployment.md is the guide.
#
#   CPU (default):   docker build -t sal-service:latest .
#   GPU (CUDA 12.6): docker build --build-arg TORCH_INDEX_URL=https://download.pytorch.org/whl/cu126 \
#                      -t sal-service:gpu .
#
# What is copied is what pyproject.toml packages (the wheel) plus the two files Alembic reads at
# run time; .dockerignore keeps everything else out of the build context. tests/deploy/test_image.py
# checks both lists against pyproject.toml, then installs this file set into a fresh venv and runs
# every entry point docker-compose.yml and the README use.

ARG PYTHON_IMAGE=python:3.11-slim

# ---- build: a venv with torch, the dependencies and the service installed (no source tree kept)
FROM ${PYTHON_IMAGE} AS build

ARG TORCH_VERSION=2.13.0
ARG TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu

ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PATH=/opt/venv/bin:$PATH
RUN python -m venv /opt/venv

# torch first, pinned exactly, from the index that matches the hardware: every later install
# finds torch==2.13.0 satisfied and never pulls another build.
RUN pip install "torch==${TORCH_VERSION}" --index-url "${TORCH_INDEX_URL}"

WORKDIR /src
# The dependencies alone, from pyproject.toml, so a code change does not reinstall them.
COPY pyproject.toml README.md ./
RUN python -c "import tomllib; print(*tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies'], sep='\n')" \
      > requirements.txt \
 && pip install -r requirements.txt

# Every package pyproject.toml's [tool.setuptools.packages.find] finds, then the service itself.
COPY sal_core ./sal_core
COPY app ./app
COPY worker ./worker
COPY bench ./bench
COPY sal_cli ./sal_cli
COPY clients/python/sal_client ./clients/python/sal_client
RUN pip install --no-deps . && python -c "import app.main, worker.celery_app, sal_cli.main"

# ---- runtime: the venv and Alembic's files; no compiler, no source tree, no pip cache
FROM ${PYTHON_IMAGE} AS runtime

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PATH=/opt/venv/bin:$PATH

RUN useradd --create-home --uid 10001 sal
COPY --from=build /opt/venv /opt/venv

# Commands run here: `alembic upgrade head` reads ./alembic.ini and ./migrations.
WORKDIR /srv
COPY alembic.ini ./
COPY migrations ./migrations

USER sal
EXPOSE 8000
# Overridden per service in docker-compose.yml.
CMD ["uvicorn", "app.main:app", "--host", "0.0.0.0", "--port", "8000"]
