"""Structured logs (issue 11): one JSON schema for the API and the worker, the request id from
the API's submit line to the worker's run lines, and no API key anywhere in them."""

from __future__ import annotations

import io
import json
import logging
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from app import logs
from tests.app import factories as f
from tests.conftest import Proc, bearer, make_api_key
from tests.e2e import scenario

SCHEMA = {"timestamp", "level", "logger", "message", "request_id", "tenant", "job_id", "attempt"}
SCHEMA |= {"algorithm", "duration_ms"}


def _lines(text: str) -> list[dict[str, Any]]:
    """The JSON lines of a log (a worker's stdout also has Celery's banner)."""
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def test_every_line_has_the_schema_and_secrets_are_scrubbed() -> None:
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(logs.JsonFormatter())
    logger = logging.getLogger("tests.logs.unit")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        with logs.bind(request_id="r-1", job_id="j-1"):
            logs.add(tenant="t")
            logger.warning("sent Authorization: Bearer sal_abcdefghijklmnop and sal_qrstuvwxyz012345")
        logger.warning("outside", extra={"duration_ms": 1.5})
    finally:
        logger.removeHandler(handler)
    first, second = _lines(out.getvalue())
    assert set(first) >= SCHEMA and set(second) >= SCHEMA
    assert (first["request_id"], first["job_id"], first["tenant"]) == ("r-1", "j-1", "t")
    assert "sal_abc" not in first["message"] and "sal_qrs" not in first["message"], first
    assert second["request_id"] is None and second["duration_ms"] == 1.5
    # A client's request id is kept only when it is a plain token.
    assert logs.request_id_from("abc-123") == "abc-123"
    for bad in ("a\nb", "x" * 200, "sal_abcdefghijklmnop", "", None):
        assert logs.request_id_from(bad) != bad


@pytest.fixture
def api_log() -> Iterator[io.StringIO]:
    """Every line this process logs at INFO and above, as the API writes it."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(logs.JsonFormatter())
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    yield out
    root.removeHandler(handler)
    root.setLevel(level)


@pytest.mark.services
def test_one_request_id_from_the_api_submit_to_the_worker_and_no_key_logged(
    keys_app, pg_worker: Proc, api_log: io.StringIO
) -> None:  # type: ignore[no-untyped-def]
    from fastapi.testclient import TestClient

    key = make_api_key(keys_app.state.engine, "logs-suite")
    request_id = f"obs-{uuid.uuid4().hex}"
    with TestClient(keys_app, headers=bearer(key)) as client:
        dataset = f.upload_csv(client, f.frame(seed=1201)).json()
        submitted = client.post(
            "/jobs", json=f.job_body(dataset["id"], params={"steps": 5}), headers={"X-Request-ID": request_id}
        )
        assert submitted.status_code == 202 and submitted.headers["X-Request-ID"] == request_id
        job_id = submitted.json()["id"]
        assert scenario.wait(client, job_id)["status"] == "succeeded"
        # A made-up id for a request without one; a wrong key and a key smuggled into the id header.
        assert client.get("/jobs?limit=1").headers["X-Request-ID"]
        wrong = httpx.Headers({**bearer(key + "x"), "X-Request-ID": key})
        rejected = client.get("/datasets", headers=wrong)
        assert rejected.status_code == 401 and rejected.headers["X-Request-ID"] != key

    api = _lines(api_log.getvalue())
    worker_text = pg_worker.log()
    worker = [line for line in _lines(worker_text) if line["job_id"] == job_id]
    queued = [line for line in api if line["message"] == "job queued" and line["job_id"] == job_id]
    assert len(queued) == 1 and queued[0]["request_id"] == request_id and queued[0]["tenant"] == "logs-suite"
    assert {line["message"] for line in worker} >= {"job started", "job succeeded"}, worker
    for line in worker:
        assert set(line) >= SCHEMA, line
        assert line["request_id"] == request_id and line["attempt"] == 1 and line["algorithm"] == "erm", line
    access = [line for line in api if line["request_id"] == request_id and line.get("route") == "/jobs"]
    assert access and access[0]["duration_ms"] is not None and access[0]["tenant"] == "logs-suite"
    assert key not in api_log.getvalue() and key not in worker_text
    assert key[: len(logs.KEY_PREFIX) + 8] not in api_log.getvalue()
