"""A raw table with a text column and a yes/no label, end to end on a real worker: the upload
records the encoding, a job given no task classifies, and predictions take the text column by its
value as they take it by its indicator features."""

from __future__ import annotations

from typing import Any

import httpx
import numpy as np
import pandas as pd
import pytest

from tests.app import factories as f
from tests.e2e.scenario import wait

pytestmark = [pytest.mark.services, pytest.mark.slow]


def _raw_frame() -> pd.DataFrame:
    df = f.frame(seed=2101, n_per_env=60)
    rng = np.random.default_rng(2101)
    df["region"] = rng.choice(["south", "north", "east"], size=len(df))
    shift = df["region"].map({"east": 0.0, "north": 1.0, "south": -1.0})
    df["y"] = np.where(df["x1"] - df["x2"] + shift > 0, "yes", "no")
    return df


@pytest.fixture(scope="module")
def trained(client: httpx.Client, pg_worker: object) -> dict[str, Any]:
    uploaded = f.upload_csv(client, _raw_frame())
    assert uploaded.status_code in (200, 201), uploaded.text
    body = f.job_body(uploaded.json()["id"], params={"steps": 80})
    body.pop("task", None)
    response = client.post("/jobs", json=body)
    assert response.status_code == 202, response.text
    job = wait(client, response.json()["id"])
    assert job["status"] == "succeeded", job
    return {"dataset": uploaded.json(), "job": job}


def test_the_dataset_says_how_its_text_was_encoded(client: httpx.Client, trained: dict[str, Any]) -> None:
    dataset = client.get(f"/datasets/{trained['dataset']['id']}").json()
    assert dataset["feature_names"] == ["x1", "x2", "x3", "region=north", "region=south"]
    assert dataset["text_features"] == {"region": ["east", "north", "south"]}
    assert dataset["target_labels"] == ["no", "yes"]
    assert trained["job"]["task"] == "classification"


def test_a_text_column_predicts_by_its_value_as_by_its_features(
    client: httpx.Client, trained: dict[str, Any]
) -> None:
    url = f"/jobs/{trained['job']['id']}/predict"
    by_value = [{"x1": 0.3, "x2": -0.2, "x3": 1.0, "region": r} for r in ("east", "north", "south")]
    by_features = [
        {
            "x1": 0.3,
            "x2": -0.2,
            "x3": 1.0,
            "region=north": float(r == "north"),
            "region=south": float(r == "south"),
        }
        for r in ("east", "north", "south")
    ]
    first, second = (client.post(url, json={"rows": rows}) for rows in (by_value, by_features))
    assert first.status_code == 200 and second.status_code == 200, (first.text, second.text)
    assert first.json() == second.json()
    probabilities = first.json()["probabilities"]
    assert probabilities[1] > probabilities[0] > probabilities[2]  # north shifts y up, south down
    labels = first.json()["labels"]
    assert labels == [["no", "yes"][int(p)] for p in first.json()["predictions"]]

    unknown = client.post(url, json={"rows": [{**by_value[0], "region": "west"}]})
    body = f.assert_problem(unknown, 422, "rows[0].region")
    assert "'west' is not a value of 'region'" in body["detail"]
    both = client.post(url, json={"rows": [{**by_features[1], "region": "north"}]})
    f.assert_problem(both, 422, "rows[0].region=north")
    word = client.post(url, json={"rows": [{**by_value[0], "x1": "high"}]})
    f.assert_problem(word, 422, "rows[0].x1")
