"""Runs you can name, find, compare and delete (issue 22), on PostgreSQL with a real worker:
names, tags and a description at submit time and by PATCH; GET /jobs by text, tag, parameter
and metric, sorted by a metric across pages; GET /jobs/compare; DELETE /jobs/{id}; and a dataset
that jobs use refused (409 naming them) unless ``cascade=true``."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from tests.app import factories as f

pytestmark = pytest.mark.services


def _finish(client: httpx.Client, job_id: str, timeout: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = client.get(f"/jobs/{job_id}").json()
        if job["status"] in ("succeeded", "failed", "cancelled"):
            return job  # type: ignore[no-any-return]
        time.sleep(0.05)
    raise TimeoutError(job_id)


@pytest.fixture(scope="module")
def runs(client: httpx.Client, pg_worker: object) -> dict[str, Any]:
    """A dataset of its own and three finished ridge jobs on it, named and tagged."""
    dataset = f.upload_csv(client, f.frame(seed=2201)).json()
    jobs = []
    for i, lam in enumerate((0.01, 10.0, 1000.0)):
        body = f.job_body(dataset["id"], algorithm="ridge", params={"lambda_": lam},
                          name=f"Ridge sweep {i}", tags=["issue22", f"lam{i}"],
                          description="finding runs" if i == 1 else None)  # fmt: skip
        created = client.post("/jobs", json=body)
        assert created.status_code == 202, created.text
        jobs.append(created.json())
    done = [_finish(client, j["id"]) for j in jobs]
    assert [j["status"] for j in done] == ["succeeded"] * 3, done
    return {"dataset": dataset, "jobs": done}


def test_a_job_carries_its_name_tags_and_description(client: httpx.Client, runs: dict[str, Any]) -> None:
    job = runs["jobs"][1]
    assert (job["name"], job["tags"], job["description"]) == (
        "Ridge sweep 1",
        ["issue22", "lam1"],
        "finding runs",
    )
    listed = client.get("/jobs", params={"tag": "lam1"}).json()["items"]
    assert [(j["id"], j["name"], j["tags"]) for j in listed] == [
        (job["id"], "Ridge sweep 1", ["issue22", "lam1"])
    ]


def test_bad_names_and_tags_are_422_naming_the_field(client: httpx.Client, runs: dict[str, Any]) -> None:
    ds = runs["dataset"]["id"]
    f.assert_problem(client.post("/jobs", json=f.job_body(ds, tags=["has space"])), 422, "tags[0]")
    f.assert_problem(client.post("/jobs", json=f.job_body(ds, name="")), 422, "name")
    f.assert_problem(
        client.post("/jobs", json=f.job_body(ds, tags=[f"t{i}" for i in range(21)])), 422, "tags"
    )
    f.assert_problem(client.patch(f"/jobs/{runs['jobs'][0]['id']}", json={"colour": "red"}), 422, "colour")


def test_patch_renames_retags_and_describes(client: httpx.Client, runs: dict[str, Any]) -> None:
    job_id = runs["jobs"][2]["id"]
    patched = client.patch(
        f"/jobs/{job_id}", json={"tags": ["issue22", "best", "best"], "description": "large λ"}
    )
    assert patched.status_code == 200, patched.text
    assert (patched.json()["name"], patched.json()["tags"]) == ("Ridge sweep 2", ["issue22", "best"])
    again = client.get(f"/jobs/{job_id}").json()
    assert again["description"] == "large λ" and again["result"] is not None
    f.assert_problem(client.patch("/jobs/no-such-job", json={"name": "x"}), 404)


def test_search_by_text_tag_parameter_and_metric(client: httpx.Client, runs: dict[str, Any]) -> None:
    ids = [j["id"] for j in runs["jobs"]]

    def found(**params: Any) -> list[str]:
        response = client.get("/jobs", params={"dataset_id": runs["dataset"]["id"], **params})
        assert response.status_code == 200, response.text
        return [j["id"] for j in response.json()["items"]]

    assert found(q="ridge SWEEP") == ids[::-1]  # any case, newest first
    assert found(q="FINDING") == [ids[1]]  # the description
    assert found(q="100%") == []  # a literal %, not a wildcard
    assert found(tag=["issue22", "lam0"]) == [ids[0]]  # every tag given
    assert found(tag="lam") == []  # whole tags only
    assert found(param="lambda_=10") == [ids[1]] and found(param="lambda_=10.0") == [ids[1]]
    best = min(runs["jobs"], key=lambda j: j["result"]["summary"]["mean_error"])
    assert found(max_mean_error=best["result"]["summary"]["mean_error"]) == [best["id"]]
    f.assert_problem(client.get("/jobs", params={"param": "lambda_"}), 422, "param")
    f.assert_problem(client.get("/jobs", params={"sort": "colour"}), 422, "sort")


def test_sort_by_a_metric_pages_through_every_job(client: httpx.Client, runs: dict[str, Any]) -> None:
    by_error = sorted(runs["jobs"], key=lambda j: j["result"]["summary"]["mean_error"])
    seen: list[str] = []
    params: dict[str, Any] = {"dataset_id": runs["dataset"]["id"], "sort": "mean_error", "limit": 2}
    while True:
        page = client.get("/jobs", params=params).json()
        seen += [j["id"] for j in page["items"]]
        if page["next_cursor"] is None:
            break
        params["cursor"] = page["next_cursor"]
    assert seen == [j["id"] for j in by_error]
    worst_first = client.get(
        "/jobs", params={"dataset_id": runs["dataset"]["id"], "sort": "-mean_error"}
    ).json()
    assert [j["id"] for j in worst_first["items"]] == [j["id"] for j in by_error[::-1]]
    # A cursor from another sort is refused, not misread.
    params["sort"] = "name"
    f.assert_problem(client.get("/jobs", params=params), 422, "cursor")


def test_compare_lines_jobs_up_side_by_side(client: httpx.Client, runs: dict[str, Any]) -> None:
    a, b = runs["jobs"][0], runs["jobs"][2]
    response = client.get("/jobs/compare", params={"ids": [a["id"], b["id"]]})
    assert response.status_code == 200, response.text
    doc = response.json()
    assert [j["id"] for j in doc["jobs"]] == [a["id"], b["id"]]
    assert doc["differing_params"] == ["lambda_"] and doc["params"]["lambda_"] == [0.01, 1000.0]
    metric = doc["metric"]
    env = next(e for e in a["result"]["environments"] if e["split"] == "test")
    assert doc["environments"][env["name"]][0] == pytest.approx(env[metric])
    assert set(doc["coefficients"]) == {"x1", "x2", "x3"}
    f.assert_problem(client.get("/jobs/compare", params={"ids": [a["id"]]}), 422, "ids")
    f.assert_problem(client.get("/jobs/compare", params={"ids": [a["id"], "no-such-job"]}), 404)


def test_delete_a_finished_job_refuse_an_active_one(stub_client: httpx.Client, client: httpx.Client,
                                                    runs: dict[str, Any]) -> None:  # fmt: skip
    dataset = f.upload_csv(stub_client, f.frame(seed=2202)).json()
    queued = stub_client.post("/jobs", json=f.job_body(dataset["id"])).json()
    body = f.assert_problem(stub_client.delete(f"/jobs/{queued['id']}"), 409)
    assert "cancel it first" in body["detail"]
    assert stub_client.post(f"/jobs/{queued['id']}/cancel").status_code == 200
    assert stub_client.delete(f"/jobs/{queued['id']}").status_code == 204
    f.assert_problem(stub_client.get(f"/jobs/{queued['id']}"), 404)
    f.assert_problem(stub_client.delete(f"/jobs/{queued['id']}"), 404)


def test_deleting_a_dataset_jobs_use_is_409_naming_them_unless_cascade(
    client: httpx.Client, runs: dict[str, Any]
) -> None:
    dataset_id, ids = runs["dataset"]["id"], [j["id"] for j in runs["jobs"]]
    body = f.assert_problem(client.delete(f"/datasets/{dataset_id}"), 409)
    assert (
        "3 job(s)" in body["detail"] and all(i in body["detail"] for i in ids) and "cascade" in body["detail"]
    )
    assert client.get(f"/jobs/{ids[0]}").json()["dataset_id"] == dataset_id  # nothing changed
    assert client.delete(f"/datasets/{dataset_id}", params={"cascade": "true"}).status_code == 204
    for job_id in ids:
        f.assert_problem(client.get(f"/jobs/{job_id}"), 404)
    f.assert_problem(client.get(f"/datasets/{dataset_id}"), 404)
