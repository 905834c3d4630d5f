"""The hand-written client layer (sal_client.easy) against a live embedded service: errors raise
typed exceptions carrying the problem body, wait/iter_events follow a job, reports come back in
every format, and the generated calls that used to crash (events, problem values) do not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e import scenario

pytestmark = [pytest.mark.services, pytest.mark.slow]


@pytest.fixture(scope="module")
def sal(embedded: str) -> Any:
    from sal_client.easy import Sal

    with Sal(embedded) as s:
        yield s


@pytest.fixture(scope="module")
def finished(sal: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    s = scenario.setting("regression")
    csv = tmp_path_factory.mktemp("easy") / "sb.csv"
    csv.write_bytes(scenario.to_csv(s))
    dataset = sal.upload_dataset(csv, target="outcome", environment="site", name="easy")
    job = sal.submit_job(dataset_id=dataset.id, algorithm="ridge", train_environments=[e.name for e in s.train],
                         device="cpu", name="easy ridge", tags=["easy"])  # fmt: skip
    return {"dataset": dataset, "job": sal.wait(job.id, check=True), "train": [e.name for e in s.train]}


def test_wait_returns_the_finished_job(finished: dict[str, Any]) -> None:
    job = finished["job"]
    assert job.status == "succeeded" and job.name == "easy ridge" and job.tags == ["easy"]
    assert job.result.summary.mean_error > 0


def test_errors_are_typed_exceptions_with_the_problem(sal: Any, finished: dict[str, Any]) -> None:
    from sal_client.easy import ApiError, Conflict, InvalidInput, NotFound

    with pytest.raises(NotFound) as missing:
        sal.wait("no-such-job")  # the docs' loop ends on a wrong id
    assert missing.value.status == 404 and missing.value.problem["status"] == 404
    assert "no-such-job" in missing.value.detail
    with pytest.raises(InvalidInput) as bad:
        sal.submit_job(
            dataset_id=finished["dataset"].id, algorithm="sal", train_environments=finished["train"][:1]
        )
    assert [e["field"] for e in bad.value.errors] == ["train_environments"]
    assert isinstance(bad.value, ApiError) and "train_environments" in str(bad.value)
    with pytest.raises(Conflict) as in_use:
        sal.delete_dataset(finished["dataset"].id)
    assert finished["job"].id in in_use.value.detail


def test_iter_events_ends_with_the_final_summary(sal: Any, finished: dict[str, Any]) -> None:
    job = sal.submit_job(dataset_id=finished["dataset"].id, algorithm="erm", train_environments=finished["train"],
                         device="cpu")  # fmt: skip
    events = list(sal.iter_events(job.id))
    assert events[-1].event == "final" and events[-1].data["status"] == "succeeded"
    assert {e.event for e in events[:-1]} <= {"status", "progress"}
    assert list(sal.iter_events(job.id, last_event_id=events[-1].id)) == []  # 204: nothing more


def test_reports_in_every_format(sal: Any, finished: dict[str, Any]) -> None:
    job_id = finished["job"].id
    assert sal.job_report(job_id)["job_id"] == job_id
    assert sal.job_report(job_id, "markdown").startswith(f"# Job {job_id}")
    assert sal.job_report(job_id, "html").lstrip().lower().startswith("<!doctype html>")


def test_generated_calls_no_longer_crash(embedded: str, finished: dict[str, Any]) -> None:
    from sal_client import Client
    from sal_client.api.jobs import get_job, get_job_events
    from sal_client.easy import NotFound, read_events, unwrap

    with Client(base_url=embedded) as c:
        text = get_job_events.sync(finished["job"].id, client=c)
        assert isinstance(text, str)
        assert [e.event for e in read_events(iter(text.splitlines()))][-1] == "final"
        assert unwrap(get_job.sync(finished["job"].id, client=c)).id == finished["job"].id
        with pytest.raises(NotFound):
            unwrap(get_job.sync("no-such-job", client=c))


def test_runs_are_found_compared_and_deleted(sal: Any, finished: dict[str, Any]) -> None:
    other = sal.submit_job(dataset_id=finished["dataset"].id, algorithm="ridge", train_environments=finished["train"],
                           device="cpu", params={"lambda_": 100.0}, tags=["easy", "other"])  # fmt: skip
    sal.wait(other.id)
    assert [j.id for j in sal.list_jobs(tag="other")] == [other.id]
    assert [j.id for j in sal.list_jobs(q="EASY RIDGE")] == [finished["job"].id]
    doc = sal.compare_jobs([finished["job"].id, other.id])
    assert doc["differing_params"] == ["lambda_"]
    assert sal.update_job(other.id, name="renamed").name == "renamed"
    sal.delete_job(other.id)
    assert [j.id for j in sal.list_jobs(tag="other")] == []


def test_the_docs_client_snippet_type_checks(tmp_path: Path) -> None:
    """The Python client block of docs/api.md is mypy-clean against the installed client."""
    import os
    import re
    import subprocess
    import sys

    from tests.conftest import ROOT

    text = (ROOT / "docs" / "api.md").read_text()
    block = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "sal_client" in b)
    (tmp_path / "snippet.py").write_text(block)
    env = {**os.environ, "MYPYPATH": str(ROOT / "clients" / "python")}  # mypy does not follow editable hooks
    out = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--follow-imports=silent", "snippet.py"],
                         cwd=tmp_path, capture_output=True, text=True, env=env)  # fmt: skip
    assert out.returncode == 0, out.stdout + json.dumps(block)


def test_keys_are_made_used_and_revoked(sal: Any, embedded: str) -> None:
    """Single-user mode's one user is an operator; a key it makes acts as the key's tenant, with
    the key's scopes."""
    import uuid

    from sal_client.easy import Forbidden, InvalidInput, NotFound, Sal, Unauthorized

    tenant = f"easy-{uuid.uuid4().hex[:8]}"
    made = sal.create_key(tenant, scopes=["read"], name="reader", expires_in_days=7)
    assert made.key.startswith(made.prefix) and made.scopes == ["read"] and made.state == "active"
    with Sal(embedded, made.key) as reader:
        assert list(reader.list_datasets()) == []  # the key's tenant, not the default one
        with pytest.raises(Forbidden) as refused:
            reader.upload_dataset(b"env,x,y\na,1,2\nb,2,3\n", target="y", environment="env")
        assert "'write' scope" in refused.value.detail
        with pytest.raises(Forbidden):
            reader.list_keys()
        assert [k.id for k in sal.list_keys(tenant=tenant)] == [made.id]
        assert sal.revoke_key(made.id).state == "revoked"
        with pytest.raises(Unauthorized):
            list(reader.list_datasets())
    with pytest.raises(InvalidInput) as bad:
        sal.create_key(tenant, scopes=["admin"])
    assert [e["field"] for e in bad.value.errors] == ["scopes"]
    with pytest.raises(NotFound):
        sal.revoke_key("no-such-key")
