# One image for every role: api, worker, gpu-worker and the one-shot migrate service
# (docker-compose.yml picks the command). CPU torch by default; for the GPU image build with
#   docker build --build-arg TORCH_INDEX_URL=https://download.pytorch.org/whl/cu126 -t sal-service:gpu .
FROM python:3.11-slim

ARG TORCH_VERSION=2.13.0
ARG TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /srv
RUN useradd --create-home --uid 10001 sal

# torch first, pinned exactly, from the index that matches the hardware.
RUN pip install "torch==${TORCH_VERSION}" --index-url "${TORCH_INDEX_URL}"

COPY pyproject.toml README.md ./
COPY sal_core ./sal_core
COPY app ./app
COPY worker ./worker
COPY migrations ./migrations
COPY alembic.ini ./
RUN pip install .

USER sal
EXPOSE 8000
# Overridden per service in docker-compose.yml.
CMD ["uvicorn", "app.main:app", "--host", "0.0.0.0", "--port", "8000"]
