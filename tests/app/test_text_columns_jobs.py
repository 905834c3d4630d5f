"""A raw table with a text column, a yes/no label and missing cells, end to end on a real worker: the
upload records the encoding, a job given no task classifies, and predictions take the text column by
its value, and a column with missing cells as null, as they take them by their features."""

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
    df.loc[::17, "x3"] = np.nan
    df.loc[5::23, "region"] = None
    df.loc[[3, 50], "y"] = None  # no label: left out
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
    assert dataset["feature_names"] == [
        "x1", "x2", "x3", "x3 is missing", "region=north", "region=south", "region is missing"
    ]  # fmt: skip
    assert dataset["text_features"] == {"region": ["east", "north", "south"]}
    raw = _raw_frame().dropna(subset=["y"])
    assert dataset["n_rows"] == len(raw)
    assert dataset["missing_features"] == {"x3": pytest.approx(raw["x3"].mean(), rel=1e-12), "region": None}
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
            "x3 is missing": 0.0,
            "region=north": float(r == "north"),
            "region=south": float(r == "south"),
            "region is missing": 0.0,
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


def test_a_column_with_missing_cells_predicts_from_null_as_from_its_features(
    client: httpx.Client, trained: dict[str, Any]
) -> None:
    url = f"/jobs/{trained['job']['id']}/predict"
    fill = trained["dataset"]["missing_features"]["x3"]
    by_null = [{"x1": 0.3, "x2": -0.2, "x3": None, "region": None}]
    by_features = [
        {
            "x1": 0.3,
            "x2": -0.2,
            "x3": fill,
            "x3 is missing": 1.0,
            "region=north": 0.0,
            "region=south": 0.0,
            "region is missing": 1.0,
        }
    ]
    first, second = (client.post(url, json={"rows": rows}) for rows in (by_null, by_features))
    assert first.status_code == 200 and second.status_code == 200, (first.text, second.text)
    assert first.json() == second.json()
    no_gap = client.post(url, json={"rows": [{**by_null[0], "x1": None}]})
    body = f.assert_problem(no_gap, 422, "rows[0].x1")
    assert "null only for a column the dataset had missing cells in" in body["detail"]
    both = client.post(url, json={"rows": [{**by_null[0], "x3 is missing": 1.0}]})
    f.assert_problem(both, 422, "rows[0].x3 is missing")


def test_exports_carry_the_encoding_that_turns_a_raw_row_into_the_models_input(
    client: httpx.Client, trained: dict[str, Any]
) -> None:
    import json

    import onnx
    import onnxruntime as ort

    job_id = trained["job"]["id"]
    dataset = trained["dataset"]
    weights = client.get(f"/jobs/{job_id}/weights", params={"format": "json"}).json()
    assert weights["encoding"] == {
        "text_features": dataset["text_features"],
        "missing_features": dataset["missing_features"],
        "target_labels": dataset["target_labels"],
    }
    graph = client.get(f"/jobs/{job_id}/model.onnx").content
    meta = {p.key: p.value for p in onnx.load_from_string(graph).metadata_props}
    encoding = json.loads(meta["encoding"])
    assert encoding == weights["encoding"]
    # A raw row with gaps, prepared from the encoding alone, gives /predict's answer to the same row.
    raw = {"x1": 0.3, "x2": -0.2, "x3": None, "region": None}
    row = {"x1": 0.3, "x2": -0.2}
    for column, fill in encoding["missing_features"].items():
        row[f"{column} is missing"] = float(raw[column] is None)
        if fill is not None:
            row[column] = fill if raw[column] is None else raw[column]
    for column, levels in encoding["text_features"].items():
        row.update({f"{column}={v}": float(raw[column] == v) for v in levels[1:]})
    X = np.asarray([[row[f] for f in weights["feature_names"]]], dtype=np.float64)
    label, probability, _ = ort.InferenceSession(graph).run(None, {"X": X})
    served = client.post(f"/jobs/{job_id}/predict", json={"rows": [raw]}).json()
    assert label.tolist() == served["predictions"]
    np.testing.assert_allclose(probability, served["probabilities"], rtol=1e-9)
