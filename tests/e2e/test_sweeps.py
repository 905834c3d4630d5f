"""Sweeps, reports and reruns end to end on PostgreSQL + Redis with a real Celery worker process:
what the leaderboard selects equals what sal_core selects directly with the same seeds and split."""

from __future__ import annotations

import statistics
import time
from typing import Any

import httpx
import pytest

from app.jobs.validation import pooled_error
from sal_core import get_algorithm, synthetic
from sal_core.data import in_canonical_order, split_environments
from sal_core.metrics import evaluate
from tests.app import factories as f
from tests.e2e import scenario

pytestmark = [pytest.mark.services, pytest.mark.slow]

FIGURES = ("fig-error-by-environment", "fig-covariate-weights", "fig-coefficients", "fig-training-curves")


def wait_sweep(client: httpx.Client, sweep_id: str, timeout: float = 150.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        sweep = client.get(f"/sweeps/{sweep_id}").json()
        if sweep["status"] != "running":
            return sweep  # type: ignore[no-any-return]
        assert time.monotonic() < deadline, sweep["progress"]
        time.sleep(0.2)


@pytest.fixture(scope="module")
def setting() -> synthetic.Setting:
    return synthetic.selection_bias(n=300, n_test=100, p=6, seed=11, test_rs=(-3.0, -1.5, 1.5, 3.0))


@pytest.fixture(scope="module")
def finished(client: httpx.Client, pg_worker: object, setting: synthetic.Setting) -> dict[str, Any]:
    dataset = scenario.upload(client, setting, "sweep-e2e")
    body = {
        "dataset_id": dataset["id"],
        "train_environments": [e.name for e in setting.train],
        "algorithms": {
            "erm": {},
            "ridge": {"grid": {"lambda_": [0.01, 10.0]}},
            "sal": {"grid": {"lambda_": [1.0]}},
        },
        "seeds": [0, 1],
        "selection": "train_env_validation",
        "device": "cpu",
    }
    response = client.post("/sweeps", json=body)
    assert response.status_code == 202, response.text
    return wait_sweep(client, response.json()["id"])


def test_a_small_sweep_selects_what_sal_core_selects(
    finished: dict[str, Any], setting: synthetic.Setting
) -> None:
    assert finished["status"] == "succeeded", finished
    assert finished["progress"]["succeeded"] == finished["progress"]["total"] == 8
    board = finished["leaderboard"]
    assert [r["rank"] for r in board["algorithms"]] == [1, 2, 3] and board["oracle"] is False
    assert {r["algorithm"] for r in board["algorithms"]} == {"erm", "ridge", "sal"}
    means = [r["mean_error"]["mean"] for r in board["algorithms"]]
    assert means == sorted(means)

    # The same protocol by hand: per seed split 20% off each training environment (its rows in the
    # order the worker reads them), fit each candidate, score by pooled validation MSE averaged over
    # seeds, report test RMSE.
    scores: dict[float, list[float]] = {}
    tests: dict[float, list[Any]] = {}
    for lam in (0.01, 10.0):
        for seed in (0, 1):
            ordered = in_canonical_order(setting.train, setting.feature_names)
            train, valid = split_environments(ordered, 0.2, seed)
            fit = get_algorithm("ridge")({"lambda_": lam}, task="regression", seed=seed).fit(train)
            scores.setdefault(lam, []).append(pooled_error(fit.model, valid))
            tests.setdefault(lam, []).append(evaluate(fit.model, setting.test)[1])
    chosen = min(scores, key=lambda lam: statistics.fmean(scores[lam]))
    ridge = next(r for r in board["algorithms"] if r["algorithm"] == "ridge")
    assert ridge["selected_params"]["lambda_"] == chosen
    assert ridge["selection_score"] == pytest.approx(statistics.fmean(scores[chosen]), rel=1e-9)
    assert ridge["mean_error"]["mean"] == pytest.approx(
        statistics.fmean(s.mean_error for s in tests[chosen]), rel=1e-9
    )
    assert ridge["worst_error"]["std"] == pytest.approx(
        statistics.stdev(s.worst_error for s in tests[chosen]), rel=1e-9
    )
    assert [c["score"] is not None for c in ridge["candidates"]] == [True, True]
    assert set(ridge["environments"]) == {e.name for e in setting.test}
    sal = next(r for r in board["algorithms"] if r["algorithm"] == "sal")
    assert set(sal["covariate_weights"]) == set(setting.feature_names)


def test_sweep_and_job_reports(client: httpx.Client, finished: dict[str, Any]) -> None:
    url = f"/sweeps/{finished['id']}/report"
    data = client.get(url).json()
    assert data["kind"] == "sweep" and data["leaderboard"] == finished["leaderboard"]
    assert data["figures"] == ["error-by-environment", "covariate-weights", "coefficients", "training-curves"]
    page = client.get(url, params={"format": "html"})
    assert page.headers["content-type"].startswith("text/html")
    assert all(f'<figure id="{name}"' in page.text for name in FIGURES)
    assert page.text.count("data:image/png;base64,") == 4
    svg = client.get(url, params={"format": "html", "figures": "svg"}).text
    assert svg.count("<svg") >= 4 and "data:image/png" not in svg
    markdown = client.get(url, params={"format": "markdown"})
    assert markdown.headers["content-type"].startswith("text/markdown") and "## Leaderboard" in markdown.text

    sal_job = next(r for r in finished["leaderboard"]["algorithms"] if r["algorithm"] == "sal")["jobs"][0]
    job_page = client.get(f"/jobs/{sal_job}/report", params={"format": "html"}).text
    assert all(f'<figure id="{name}"' in job_page for name in FIGURES)
    f.assert_problem(client.get(url, params={"format": "pdf"}), 422, "format")
    f.assert_problem(client.get("/jobs/nope/report"), 404)


def test_rerun_reproduces_the_result_on_cpu(client: httpx.Client, finished: dict[str, Any]) -> None:
    job_id = next(r for r in finished["leaderboard"]["algorithms"] if r["algorithm"] == "sal")["jobs"][0]
    original = client.get(f"/jobs/{job_id}").json()
    record = original["reproducibility"]
    assert original["device"]["ran_on"] == "cpu" and record["versions"]["torch"].startswith("2.13.0")
    assert {"numpy", "sal-service", "python"} <= set(record["versions"])
    assert record["params"] == original["params"] and record["validation"] == {"fraction": 0.2}
    response = client.post(f"/jobs/{job_id}/rerun")
    assert response.status_code == 202, response.text
    again = scenario.wait(client, response.json()["id"])
    assert again["status"] == "succeeded" and again["rerun_of"] == job_id and again["sweep_id"] is None
    strip = lambda r: {k: v for k, v in r.items() if k != "duration_s"}  # noqa: E731
    assert strip(again["result"]) == strip(original["result"])  # bit for bit: history, θ, w, metrics
    assert {k: v for k, v in again["reproducibility"].items() if k != "hostname"} == {
        k: v for k, v in record.items() if k != "hostname"
    }
    f.assert_problem(client.post("/jobs/nope/rerun"), 404)


def test_leave_one_env_out_and_oracle_sweeps(client: httpx.Client, pg_worker: object) -> None:
    dataset = f.upload_csv(client, f.frame(seed=911, n_per_env=40)).json()["id"]
    common = {"dataset_id": dataset, "train_environments": ["a", "b"], "seeds": [5], "device": "cpu",
              "algorithms": {"ridge": {"grid": {"lambda_": [0.001, 10.0]}}}}  # fmt: skip
    loeo = client.post("/sweeps", json={**common, "selection": "leave_one_env_out"}).json()
    oracle = client.post("/sweeps", json={**common, "selection": "oracle"}).json()
    loeo, oracle = wait_sweep(client, loeo["id"]), wait_sweep(client, oracle["id"])
    assert loeo["status"] == "succeeded" and loeo["progress"]["total"] == 6
    (row,) = loeo["leaderboard"]["algorithms"]
    assert row["selection_score"] is not None and len(row["jobs"]) == 1
    assert (
        oracle["status"] == "succeeded"
        and oracle["oracle"] is True
        and oracle["leaderboard"]["oracle"] is True
    )
    (best,) = oracle["leaderboard"]["algorithms"]
    assert best["selection_score"] == pytest.approx(best["mean_error"]["mean"])  # selected on test error
    text = client.get(f"/sweeps/{oracle['id']}/report", params={"format": "markdown"}).text
    assert "ORACLE" in text and "Leaderboard (oracle)" in text
