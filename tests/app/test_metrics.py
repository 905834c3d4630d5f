"""GET /metrics (issue 11): the embedded service (API + a real worker process, one
PROMETHEUS_MULTIPROC_DIR) scraped before and after a job, parsed with prometheus-client's parser."""

from __future__ import annotations

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.app import factories as f
from tests.e2e import scenario

pytestmark = [pytest.mark.services, pytest.mark.slow]


def _scrape(base: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    response = httpx.get(f"{base}/metrics")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/plain")
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(response.text)
        for s in family.samples
    }


def _value(samples: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str, **labels: str) -> float:
    """The sum of the samples named ``name`` whose labels include ``labels``."""
    want = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and want <= ls)


def test_metrics_follow_a_job_through_a_real_worker(embedded: str) -> None:
    with httpx.Client(base_url=embedded) as client:
        dataset = f.upload_csv(client, f.frame(seed=1201)).json()
        before = _scrape(embedded)
        job = client.post("/jobs", json=f.job_body(dataset["id"], algorithm="ridge")).json()
        assert scenario.wait(client, job["id"])["status"] == "succeeded"
    after = _scrape(embedded)

    def grew(name: str, **labels: str) -> float:
        return _value(after, name, **labels) - _value(before, name, **labels)

    assert grew("sal_jobs_submitted_total", algorithm="ridge", device="cpu") == 1
    assert grew("sal_jobs_finished_total", status="succeeded", algorithm="ridge", device="cpu") == 1
    assert grew("sal_job_duration_seconds_count", algorithm="ridge") == 1
    assert grew("sal_job_queue_wait_seconds_count") >= 1
    assert grew("sal_jobs", status="succeeded") == 1
    assert grew("sal_http_requests_total", method="GET", route="/jobs/{job_id}", status="200") >= 1
    assert grew("sal_http_request_duration_seconds_count", method="POST", route="/jobs") == 1
    assert _value(after, "sal_dataset_bytes_stored") > 0
    assert ("sal_queue_depth", frozenset()) not in after  # per queue, labelled
